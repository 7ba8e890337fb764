// The report keys' file checks: report.json and report.csv are written after the whole run, so
// a path that cannot be written is found before it starts.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "bam/config/config_io.hpp"

namespace bam {
namespace {

[[noreturn]] void unwritable(const char* key, const std::string& path, int err) {
  throw config_error(key, fmt::format("cannot write '{}': {}, allowed a writable file in an "
                                      "existing directory (or \"\": none)",
                                      path, std::strerror(err)));
}

/// Opens an existing regular file for appending (its contents stay as they are).
void check_existing_file(const char* key, const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) unwritable(key, path, errno);
  ::close(fd);
}

/// Creates the file and removes it again.
void check_new_file(const char* key, const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) unwritable(key, path, errno);
  ::close(fd);
  ::unlink(path.c_str());
}

void check_writable(const char* key, const std::string& path) {
  if (path.empty()) return;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) unwritable(key, path, errno);
    check_new_file(key, path);
  } else if (S_ISDIR(st.st_mode)) {
    unwritable(key, path, EISDIR);
  } else if (S_ISREG(st.st_mode)) {
    check_existing_file(key, path);
  } else if (::access(path.c_str(), W_OK) != 0) {
    // A device or a pipe (/dev/stdout): opening a FIFO could block, so only ask.
    unwritable(key, path, errno);
  }
}

}  // namespace

void check_report_paths(const report_config& r) {
  check_writable("report.json", r.json);
  check_writable("report.csv", r.csv);
}

}  // namespace bam
