// security.cpp: who may use a controller, checked in the guest (see security.hpp).
#include "security.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <system_error>
#include <vector>

#include "bam/kmod/kmod_controller.hpp"
#include "bam/kmod/kmod_device.hpp"
#include "bam/kmod/uapi.h"
#include "bam/nvme/spec.hpp"
#include "bam_queue_io.hpp"
#include "checks.hpp"

namespace bam::guest {

namespace {

constexpr std::size_t kib = 1024;
constexpr std::size_t memlock_limit = 256 * kib;  // RLIMIT_MEMLOCK of the children below
constexpr uid_t user_id = 1000;

constexpr std::uint64_t cap_bit(int cap) {
  return std::uint64_t{1} << cap;
}

/// Sets this process's capabilities: effective = permitted = `caps`, no inheritable ones.
bool set_caps(std::uint64_t caps) {
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct d[2] = {};
  d[0].effective = d[0].permitted = static_cast<std::uint32_t>(caps);
  d[1].effective = d[1].permitted = static_cast<std::uint32_t>(caps >> 32);
  return ::syscall(SYS_capset, &h, d) == 0;
}

std::uint64_t effective_caps() {
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct d[2] = {};
  if (::syscall(SYS_capget, &h, d) != 0) return ~std::uint64_t{0};
  return d[0].effective | (std::uint64_t{d[1].effective} << 32);
}

/// Runs `body` (which returns failures()) in a child process; returns the failures it added (its
/// checks print as ours do).
template <class F>
int in_child(const char* name, F body) {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int before = failures();  // the parent's, inherited
    int f = 100;
    try {
      f = body() - before;
    } catch (const std::exception& e) {
      std::printf("FAIL %s: %s\n", name, e.what());
    }
    std::fflush(stdout);
    ::_exit(std::min(f, 100));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

void* map_anonymous(std::size_t bytes, int prot = PROT_READ | PROT_WRITE) {
  void* p = ::mmap(nullptr, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap");
  return p;
}

/// A descriptor opened read-only: information only (no BAR0, no DMA mapping).
void check_read_only(const std::string& path, const std::string& who) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd >= 0, who + ": read-only open of " + path);
  if (fd < 0) return;
  bamkit_info info{};
  check(::ioctl(fd, BAMKIT_IOC_GET_INFO, &info) == 0 && info.abi_version == BAMKIT_ABI_VERSION &&
            (info.flags & BAMKIT_INFO_OWNER) == 0 && info.bar_size >= 0x2000,
        who + ": GET_INFO on a read-only descriptor (not the owner)");
  void* mem = map_anonymous(4096);
  const auto addr = reinterpret_cast<std::uintptr_t>(mem);
  bamkit_map m{addr, 4096, 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EBADF, who + ": read-only descriptor: MAP_HOST");
  m = {0x7f0000000000ull, 1ull << 16, 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_GPU, &m, EBADF, who + ": read-only descriptor: MAP_GPU");
  std::uint64_t out[1] = {};
  bamkit_map_addrs a{1, reinterpret_cast<std::uintptr_t>(out), 0, 1};
  expect_errno(fd, BAMKIT_IOC_MAP_GET_ADDRS, &a, EBADF,
               who + ": read-only descriptor: MAP_GET_ADDRS");
  bamkit_unmap u{1, 0, 0};
  expect_errno(fd, BAMKIT_IOC_UNMAP, &u, EBADF, who + ": read-only descriptor: UNMAP");
  expect_mmap_errno(fd, 4096, 0, MAP_SHARED, EACCES, who + ": read-only descriptor: mmap BAR0",
                    PROT_READ);
  expect_mmap_errno(fd, 4096, 0, MAP_SHARED, EACCES,
                    who + ": read-only descriptor: mmap BAR0 writable", PROT_READ | PROT_WRITE);
  ::munmap(mem, 4096);
  ::close(fd);
}

/// Pinned memory is charged to RLIMIT_MEMLOCK (memlock_limit, set by the caller, who has no
/// CAP_IPC_LOCK) and shows in VmPin; the charge goes back with UNMAP. The controller is stopped.
void check_memlock(int fd, const std::string& who) {
  char* mem = static_cast<char*>(map_anonymous(512 * kib));
  const auto addr = reinterpret_cast<std::uintptr_t>(mem);
  auto map = [&](std::size_t off, std::size_t bytes, std::uint64_t& handle) {
    bamkit_map m{addr + off, bytes, 0, 0, 0};
    errno = 0;
    const int r = ::ioctl(fd, BAMKIT_IOC_MAP_HOST, &m);
    handle = m.handle;
    return r == 0 ? 0 : errno;
  };
  auto unmap = [&](std::uint64_t handle) {
    bamkit_unmap u{handle, 0, 0};
    return ::ioctl(fd, BAMKIT_IOC_UNMAP, &u) == 0 && u.flags == 0;
  };
  const long pin0 = vm_pin_kib();
  std::uint64_t h1 = 0, h2 = 0, h3 = 0;
  check(map(0, 192 * kib, h1) == 0 && vm_pin_kib() == pin0 + 192,
        who + ": MAP_HOST 192 KiB under RLIMIT_MEMLOCK 256 KiB, VmPin +192 kB");
  const int err = map(192 * kib, 128 * kib, h2);
  check(err == ENOMEM, who + ": 192 + 128 KiB over RLIMIT_MEMLOCK 256 KiB -> " +
                           std::strerror(err) + " (want ENOMEM)");
  check(map(192 * kib, 64 * kib, h3) == 0, who + ": 192 + 64 KiB, exactly the limit");
  check(unmap(h1) && vm_pin_kib() == pin0 + 64, who + ": UNMAP returns the charge (VmPin)");
  check(map(256 * kib, 192 * kib, h2) == 0 && unmap(h2) && unmap(h3) && vm_pin_kib() == pin0,
        who + ": the returned charge is usable again; all returned");
  ::munmap(mem, 512 * kib);
}

/// The controller's owner: one writable descriptor; read-only ones stay allowed.
void check_owner(const std::string& path) {
  {
    kmod_device owner(path);
    check((owner.info().flags & BAMKIT_INFO_OWNER) != 0, "owner: GET_INFO names the owner");
    for (const int mode : {O_RDWR, O_WRONLY}) {
      errno = 0;
      const int fd = ::open(path.c_str(), mode | O_CLOEXEC);
      const int err = errno;
      if (fd >= 0) ::close(fd);
      check(fd < 0 && err == EBUSY, std::string("second writable open (") +
                                        (mode == O_RDWR ? "O_RDWR" : "O_WRONLY") +
                                        ") while owned -> " + std::strerror(err) + " (want EBUSY)");
    }
    int code = 0;
    try {
      kmod_device second(path);
    } catch (const std::system_error& e) {
      code = e.code().value();
      std::printf("  kmod_device says: %s\n", e.what());
    }
    check(code == EBUSY, "kmod_device on a controller in use throws EBUSY");
    check_read_only(path, "root, controller owned");
  }
  bool reopened = false;
  try {
    kmod_device again(path);
    reopened = true;
  } catch (const std::exception&) {
  }
  check(reopened, "writable open once the owner closed");

  // Closing a read-only descriptor leaves the owner's running controller alone.
  kmod_controller kc(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
  const bar_ref bar = kc.device().bar();
  check((bar.read32(nvme::reg::cc) & 1) != 0 && (bar.read32(nvme::reg::csts) & 1) != 0 &&
            host_io_verified(kc, 140000, 41),
        "closing a read-only descriptor does not reset the owner's controller");
}

/// UNMAP while the controller runs keeps the pages pinned until the controller is disabled.
void check_deferred_unmap(const std::string& path) {
  const long long pins0 = pins_held();
  {
    kmod_controller kc(path);
    // Warm the allocators: their freed regions stay mapped for reuse, so later I/O pins nothing.
    check(host_io_verified(kc, 141000, 42), "deferred: verified I/O");
    const long long pins1 = pins_held();
    char* mem = static_cast<char*>(map_anonymous(64 * kib));
    const kmod_device& dev = kc.device();
    const kmod_mapping m = dev.map_host(mem, 64 * kib);
    check(dev.unmap(m.handle), "UNMAP while the controller runs: deferred");
    check(pins_held() == pins1 + 16, "deferred: its 16 pages stay pinned");
    std::uint64_t out[1] = {};
    bamkit_map_addrs a{m.handle, reinterpret_cast<std::uintptr_t>(out), 0, 1};
    expect_errno(dev.fd(), BAMKIT_IOC_MAP_GET_ADDRS, &a, EINVAL, "deferred: the handle is gone");
    check(host_io_verified(kc, 141000, 43) && pins_held() == pins1 + 16,
          "deferred: the controller still works, the pages still pinned");
    disable_controller(dev);
    const kmod_mapping m2 = dev.map_host(mem, 4096);
    check(pins_held() == pins1 + 1, "controller disabled: the next MAP released the 16 pages");
    check(!dev.unmap(m2.handle) && pins_held() == pins1,
          "UNMAP with the controller disabled releases at once");
    ::munmap(mem, 64 * kib);
  }
  check(pins_held() == pins0, "deferred: every pin released with the owner");
}

/// At most BAMKIT_MAX_MAPPINGS mappings per file: the next one is ENOSPC.
void check_mapping_bound(const std::string& path) {
  kmod_device dev(path);
  void* mem = map_anonymous(4096);
  std::vector<std::uint64_t> handles;
  int err = 0;
  for (int i = 0; i <= BAMKIT_MAX_MAPPINGS; ++i) {
    bamkit_map m{reinterpret_cast<std::uintptr_t>(mem), 4096, 0, 0, 0};
    if (::ioctl(dev.fd(), BAMKIT_IOC_MAP_HOST, &m) != 0) {
      err = errno;
      break;
    }
    handles.push_back(m.handle);
  }
  check(handles.size() == BAMKIT_MAX_MAPPINGS && err == ENOSPC,
        std::to_string(handles.size()) + " mappings, then " + std::strerror(err) + " (want " +
            std::to_string(BAMKIT_MAX_MAPPINGS) + ", then ENOSPC)");
  bool ok = !dev.unmap(handles.back());
  handles.pop_back();
  bamkit_map m{reinterpret_cast<std::uintptr_t>(mem), 4096, 0, 0, 0};
  ok = ok && ::ioctl(dev.fd(), BAMKIT_IOC_MAP_HOST, &m) == 0;
  handles.push_back(m.handle);
  for (auto h : handles)
    ok = !dev.unmap(h) && ok;
  check(ok, "after an UNMAP the file maps again; all unmapped");
  ::munmap(mem, 4096);
}

/// A process with uid 1000 and no capabilities; the node is opened to everyone meanwhile (what
/// a udev rule would do), so that the module's own check decides.
void check_unprivileged(const std::string& path, bool isolated) {
  ::chmod(path.c_str(), 0666);
  const int f = in_child("unprivileged", [&] {
    const rlimit lim{memlock_limit, memlock_limit};
    check(::setrlimit(RLIMIT_MEMLOCK, &lim) == 0 && ::setgroups(0, nullptr) == 0 &&
              ::setresgid(user_id, user_id, user_id) == 0 &&
              ::setresuid(user_id, user_id, user_id) == 0 && set_caps(0),
          "unprivileged: setresuid(1000) and capset(none)");
    check(::getuid() == user_id && ::geteuid() == user_id && effective_caps() == 0,
          "unprivileged: uid 1000, no capabilities");
    errno = 0;
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    const int err = errno;
    if (!isolated) {
      check(fd < 0 && err == EPERM,
            std::string("unprivileged, no isolating IOMMU: writable open -> ") +
                std::strerror(err) + " (want EPERM)");
      if (fd >= 0) ::close(fd);
      check_read_only(path, "unprivileged");
      return failures();
    }
    check(fd >= 0, std::string("unprivileged, isolated by the IOMMU: writable open -> ") +
                       (fd >= 0 ? "ok" : std::strerror(err)));
    if (fd < 0) return failures();
    void* bar = ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
    check(bar != MAP_FAILED && static_cast<volatile std::uint32_t*>(bar)[2] != 0,
          "unprivileged, isolated: BAR0 mapped, VS readable");
    if (bar != MAP_FAILED) ::munmap(bar, 4096);
    check_memlock(fd, "unprivileged");
    ::close(fd);
    return failures();
  });
  ::chmod(path.c_str(), 0600);
  check(f == 0, "unprivileged child: " + std::to_string(f) + " failures");
}

/// Root with CAP_SYS_RAWIO but without CAP_IPC_LOCK: RLIMIT_MEMLOCK applies.
void check_memlock_privileged(const std::string& path) {
  const int f = in_child("memlock", [&] {
    const rlimit lim{memlock_limit, memlock_limit};
    check(::setrlimit(RLIMIT_MEMLOCK, &lim) == 0 && set_caps(cap_bit(CAP_SYS_RAWIO)) &&
              effective_caps() == cap_bit(CAP_SYS_RAWIO),
          "memlock: CAP_SYS_RAWIO only (no CAP_IPC_LOCK), RLIMIT_MEMLOCK 256 KiB");
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    check(fd >= 0, "memlock: writable open with CAP_SYS_RAWIO");
    if (fd < 0) return failures();
    check_memlock(fd, "CAP_SYS_RAWIO without CAP_IPC_LOCK");
    ::close(fd);
    return failures();
  });
  check(f == 0, "memlock child: " + std::to_string(f) + " failures");
}

}  // namespace

int run_security(const std::string& path) {
  bamkit_info info{};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::ioctl(fd, BAMKIT_IOC_GET_INFO, &info) != 0)
    throw std::system_error(errno, std::generic_category(), "open " + path + " read-only");
  ::close(fd);
  // The boot with QEMU's IOMMU runs it in strict mode, one device per group
  // (scripts/qemu/run-test).
  const bool iommu_boot =
      read_first_line("/proc/cmdline").find("intel_iommu=on") != std::string::npos;
  const bool isolated = (info.flags & BAMKIT_INFO_IOMMU_ISOLATED) != 0;
  check(isolated == iommu_boot,
        std::string("GET_INFO: isolated by the IOMMU = ") + (isolated ? "yes" : "no") +
            " (strict IOMMU in this boot: " + (iommu_boot ? "yes" : "no") + ")");
  check_read_only(path, "root");
  check_owner(path);
  check_unprivileged(path, isolated);
  check_memlock_privileged(path);
  check_deferred_unmap(path);
  check_mapping_bound(path);
  return failures();
}

}  // namespace bam::guest
