// Media of host emulated controllers: anonymous memory or a MAP_SHARED file mapping.
#include "bam/emu/host_media.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace bam::emu {

namespace {
[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(fmt::format("host_media: {}: {}", what, std::strerror(errno)));
}
}  // namespace

host_media::host_media(media_kind kind, const std::string& path, std::uint64_t bytes)
    : kind_(kind), size_(bytes) {
  if (bytes == 0) throw std::invalid_argument("host_media: zero-sized media");
  void* p = MAP_FAILED;
  if (kind == media_kind::memory) {
    p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fail("mmap anonymous");
  } else {
    if (path.empty()) throw std::invalid_argument("host_media: file media needs a path");
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("open " + path);
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail("fstat " + path);
    if (static_cast<std::uint64_t>(st.st_size) < bytes &&
        ::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
      ::close(fd_);
      fail("ftruncate " + path);
    }
    p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) {
      ::close(fd_);
      fail("mmap " + path);
    }
  }
  data_ = static_cast<std::uint8_t*>(p);
}

host_media::~host_media() {
  flush();
  ::munmap(data_, size_);
  if (fd_ >= 0) ::close(fd_);
}

void host_media::flush() {
  if (kind_ == media_kind::file) ::msync(data_, size_, MS_SYNC);
}

}  // namespace bam::emu
