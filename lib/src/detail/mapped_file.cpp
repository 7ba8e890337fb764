// A read-only mapping of an input file (detail/mapped_file.hpp).
#include "mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "bam/io/input_error.hpp"

namespace bam::detail {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const char* what, const char* why) {
  std::string msg = file.string();
  msg += ": ";
  msg += what;
  msg += ": ";
  msg += why;
  throw input_error(msg);
}

}  // namespace

mapped_file::mapped_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(file, "cannot open", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(file, "cannot open", "not a regular file");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ != 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      fail(file, "cannot map", std::strerror(e));
    }
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const char*>(p);
  }
  ::close(fd);
}

mapped_file::~mapped_file() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace bam::detail
