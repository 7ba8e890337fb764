// checks.cpp: see checks.hpp.
#include "checks.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace bam::guest {

namespace {
std::atomic<int> failure_count{0};
}  // namespace

int failures() {
  return failure_count;
}

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what.c_str());
  std::fflush(stdout);
  if (!ok) ++failure_count;
}

void expect_errno(int fd, unsigned long req, void* arg, int err, const std::string& what) {
  errno = 0;
  const int r = ::ioctl(fd, req, arg);
  const int got = errno;
  check(r == -1 && got == err,
        what + " -> " + (r == 0 ? "0" : std::strerror(got)) + " (want " + std::strerror(err) + ")");
}

void expect_mmap_errno(int fd, std::size_t len, off_t off, int flags, int err,
                       const std::string& what, int prot) {
  errno = 0;
  void* p = ::mmap(nullptr, len, prot, flags, fd, off);
  const int got = errno;
  if (p != MAP_FAILED) ::munmap(p, len);
  check(p == MAP_FAILED && got == err, what + " -> " +
                                           (p != MAP_FAILED ? "mapped" : std::strerror(got)) +
                                           " (want " + std::strerror(err) + ")");
}

long long pins_held() {
  // Fold the per-CPU counter deltas first, or the sums lag.
  std::ofstream("/proc/sys/vm/stat_refresh") << "1" << std::flush;
  std::ifstream in("/proc/vmstat");
  std::string key;
  long long value = 0, acquired = 0, released = 0;
  while (in >> key >> value) {
    if (key == "nr_foll_pin_acquired") acquired = value;
    if (key == "nr_foll_pin_released") released = value;
  }
  return acquired - released;
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

bool bus_master_on(const std::string& pci_address) {
  const int fd = ::open(("/sys/bus/pci/devices/" + pci_address + "/config").c_str(), O_RDONLY);
  std::uint16_t command = 0;
  const bool ok = fd >= 0 && ::pread(fd, &command, sizeof command, 4) == sizeof command;
  if (fd >= 0) ::close(fd);
  return ok && (command & 0x4) != 0;
}

long vm_pin_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmPin:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

}  // namespace bam::guest
