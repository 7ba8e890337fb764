// The atomically renamed output file and the binary inputs' errors (graph/files.hpp).
#include "files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bam/graph/csr.hpp"

namespace bam::graph::detail {

output_file::output_file(std::filesystem::path target) : target_(std::move(target)) {
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  std::string name = ".";
  name += target_.filename().string();
  name += ".tmp.XXXXXX";
  temp_ = (dir / name).string();
  fd_ = ::mkstemp(temp_.data());
  if (fd_ < 0) fail("cannot create a temporary file in " + dir.string());
  ::fchmod(fd_, 0644);
}

output_file::~output_file() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void output_file::fail(const std::string& what) const {
  std::string msg = target_.string();
  msg += ": ";
  msg += what;
  msg += ": ";
  msg += std::strerror(errno);
  throw std::runtime_error(msg);
}

void output_file::write(const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd_, p, std::min<std::size_t>(bytes, std::size_t{1} << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write");
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void output_file::write_at(const void* data, std::size_t bytes, std::uint64_t offset) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd_, p, std::min<std::size_t>(bytes, std::size_t{1} << 30),
                               static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write");
    p += n;
    offset += static_cast<std::uint64_t>(n);
    bytes -= static_cast<std::size_t>(n);
  }
}

void output_file::resize(std::uint64_t bytes) {
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) fail("cannot size the file");
}

void output_file::commit() {
  if (::fdatasync(fd_) != 0) fail("cannot sync");
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("cannot close");
  }
  fd_ = -1;
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail("cannot rename the temporary file");
  committed_ = true;
}

bool read_exact(int fd, void* data, std::size_t bytes, std::uint64_t offset) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pread(fd, p, std::min<std::size_t>(bytes, std::size_t{1} << 30),
                              static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    offset += static_cast<std::uint64_t>(n);
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

void fail_at_byte(const std::filesystem::path& file, std::uint64_t byte, const std::string& what) {
  std::string msg = file.string();
  msg += ": byte ";
  msg += std::to_string(byte);
  msg += ": ";
  msg += what;
  throw input_error(msg);
}

}  // namespace bam::graph::detail
