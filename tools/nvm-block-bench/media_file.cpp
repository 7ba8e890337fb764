// The media file of the file baselines.
#include "media_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "bam/harness/data_pattern.hpp"

namespace bam::tools {

void fail_errno(const std::string& what, int err) {
  throw std::runtime_error(fmt::format("{}: {}", what, std::strerror(err)));
}

bool prepare_media_file(const std::string& path, std::uint64_t bytes) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  const std::uint64_t have = exists ? static_cast<std::uint64_t>(st.st_size) : 0;
  if (have >= bytes) return false;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
  if (fd < 0) fail_errno(fmt::format("cannot create media file '{}'", path), errno);
  const std::uint64_t chunk = 1 << 20;
  std::vector<std::uint8_t> buf(chunk);
  std::uint64_t off = have / file_pattern_block * file_pattern_block;
  while (off < bytes) {
    const std::uint64_t n = std::min(chunk, bytes - off);
    fill_pattern(buf.data(), file_pattern_block, pattern_seed, 0, off / file_pattern_block,
                 n / file_pattern_block);
    if (::pwrite(fd, buf.data(), n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) {
      const int e = errno;
      ::close(fd);
      fail_errno(fmt::format("cannot write media file '{}'", path), e);
    }
    off += n;
  }
  ::close(fd);
  return true;
}

}  // namespace bam::tools
