// kmod_device: the user side of the bamkit module's character device.
#include "bam/kmod/kmod_device.hpp"

#include <fcntl.h>
#include <glob.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>
#include <utility>

namespace bam {

namespace {
[[noreturn]] void throw_errno(int err, const std::string& what) {
  throw std::system_error(err, std::generic_category(), what);
}

/// What the module means by the errors a user meets first (kmod/README.md, "What you see").
std::string explain(int err) {
  switch (err) {
    case EPERM:
      return " (needs CAP_SYS_RAWIO: the controller is not isolated by a strict IOMMU)";
    case EBUSY:
      return " (another file has the controller open for writing: one owner at a time)";
    case ENOMEM:
      return " (pinned memory is charged to RLIMIT_MEMLOCK: ulimit -l)";
    case ENOSPC:
      return " (at most " + std::to_string(BAMKIT_MAX_MAPPINGS) + " mappings per open file)";
    case ENOPKG:
      return " (the NVIDIA driver is not loaded)";
    default:
      return "";
  }
}
}  // namespace

kmod_device::kmod_device(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0) throw_errno(errno, "open " + path + explain(errno));
  if (::ioctl(fd_, BAMKIT_IOC_GET_INFO, &info_) != 0) {
    const int err = errno;
    close();
    throw_errno(err, path + ": BAMKIT_IOC_GET_INFO");
  }
  if (info_.abi_version != BAMKIT_ABI_VERSION) {
    close();
    throw_errno(EPROTO, path + ": module ABI version " + std::to_string(info_.abi_version) +
                            ", expected " + std::to_string(BAMKIT_ABI_VERSION));
  }
  void* p = ::mmap(nullptr, info_.bar_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    close();
    throw_errno(err, path + ": mmap BAR0");
  }
  bar_ = p;
}

kmod_device::kmod_device(kmod_device&& o) noexcept
    : path_(std::move(o.path_)),
      fd_(std::exchange(o.fd_, -1)),
      info_(o.info_),
      bar_(std::exchange(o.bar_, nullptr)) {}

kmod_device& kmod_device::operator=(kmod_device&& o) noexcept {
  if (this != &o) {
    close();
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    info_ = o.info_;
    bar_ = std::exchange(o.bar_, nullptr);
  }
  return *this;
}

kmod_device::~kmod_device() {
  close();
}

void kmod_device::close() noexcept {
  if (bar_ != nullptr) ::munmap(bar_, info_.bar_size);
  bar_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string kmod_device::pci_address() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", info_.domain, info_.bus, info_.slot,
                info_.function);
  return buf;
}

kmod_mapping kmod_device::map(unsigned long request, std::uint64_t addr, std::size_t bytes) const {
  bamkit_map req{};
  req.vaddr = addr;
  req.length = bytes;
  if (::ioctl(fd_, request, &req) != 0) {
    const int err = errno;
    throw_errno(err, path_ + ": DMA map" + explain(err));
  }
  kmod_mapping m;
  m.handle = req.handle;
  m.page_shift = req.page_shift;
  m.bus_pages.resize(req.pages);
  bamkit_map_addrs addrs{};
  addrs.handle = req.handle;
  addrs.addrs = reinterpret_cast<std::uintptr_t>(m.bus_pages.data());
  addrs.first = 0;
  addrs.count = req.pages;
  if (::ioctl(fd_, BAMKIT_IOC_MAP_GET_ADDRS, &addrs) != 0) {
    const int err = errno;
    unmap(req.handle);
    throw_errno(err, path_ + ": BAMKIT_IOC_MAP_GET_ADDRS");
  }
  return m;
}

kmod_mapping kmod_device::map_host(void* addr, std::size_t bytes) const {
  return map(BAMKIT_IOC_MAP_HOST, reinterpret_cast<std::uintptr_t>(addr), bytes);
}

kmod_mapping kmod_device::map_gpu(std::uint64_t gpu_addr, std::size_t bytes) const {
  return map(BAMKIT_IOC_MAP_GPU, gpu_addr, bytes);
}

bool kmod_device::unmap(std::uint64_t handle) const {
  bamkit_unmap req{};
  req.handle = handle;
  if (::ioctl(fd_, BAMKIT_IOC_UNMAP, &req) != 0) throw_errno(errno, path_ + ": BAMKIT_IOC_UNMAP");
  return (req.flags & BAMKIT_UNMAP_DEFERRED) != 0;
}

std::vector<std::string> kmod_device_paths() {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob("/dev/" BAMKIT_DEVICE_PREFIX "*", 0, nullptr, &g) == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i)
      out.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  return out;  // glob sorts
}

}  // namespace bam
