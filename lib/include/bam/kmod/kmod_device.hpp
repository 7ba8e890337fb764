// bam/kmod/kmod_device.hpp: API, one NVMe controller bound to the bamkit kernel module.
// Opens /dev/bamkit-nvmeN, reports what the module knows of the controller, maps BAR0 uncached
// (a bar_ref) and DMA-maps user memory for the controller (bus address of each page).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bam/bar.hpp"
#include "bam/kmod/uapi.h"

namespace bam {

/// A DMA mapping made by the module: names it (handle) and lists the bus address of each page.
struct kmod_mapping {
  std::uint64_t handle = 0;
  std::uint32_t page_shift = 12;
  std::vector<std::uint64_t> bus_pages;
};

/// Owner of an open controller device file and its BAR0 mapping. Move-only. Errors throw
/// std::system_error with the errno the module returned. The file is opened for writing, which
/// the module grants to one file per controller at a time (EBUSY otherwise) and, unless the
/// controller is isolated by a strict IOMMU, only with CAP_SYS_RAWIO (EPERM).
class kmod_device {
 public:
  /// Opens `path` (e.g. "/dev/bamkit-nvme0"), queries it and maps BAR0.
  explicit kmod_device(const std::string& path);
  kmod_device(kmod_device&& o) noexcept;
  kmod_device& operator=(kmod_device&& o) noexcept;
  kmod_device(const kmod_device&) = delete;
  kmod_device& operator=(const kmod_device&) = delete;
  ~kmod_device();

  /// The controller's registers (BAR0, mapped uncached). Valid while this object lives.
  bar_ref bar() const { return bar_ref(bar_, info_.bar_size); }
  const bamkit_info& info() const { return info_; }
  /// "dddd:bb:ss.f"
  std::string pci_address() const;
  bool gpu_mapping_supported() const { return (info_.flags & BAMKIT_INFO_GPU_SUPPORT) != 0; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  /// Pins host memory [addr, addr + bytes) (4 KiB aligned) and maps it for the controller.
  kmod_mapping map_host(void* addr, std::size_t bytes) const;
  /// Maps GPU memory (64 KiB aligned, cudaMalloc'd) for the controller; needs a module built
  /// with GPU support (otherwise throws with EOPNOTSUPP).
  kmod_mapping map_gpu(std::uint64_t gpu_addr, std::size_t bytes) const;
  /// Releases a mapping made by map_host or map_gpu. Returns true when the module deferred
  /// unpinning its memory because the controller was running (until it is seen stopped or the
  /// file is closed): the memory must then stay allocated (GPU memory freed under it would
  /// make the module cut the controller's bus mastering).
  bool unmap(std::uint64_t handle) const;

 private:
  kmod_mapping map(unsigned long request, std::uint64_t addr, std::size_t bytes) const;
  void close() noexcept;

  std::string path_;
  int fd_ = -1;
  bamkit_info info_{};
  void* bar_ = nullptr;
};

/// Lists the controller device files present now (/dev/bamkit-nvme*), sorted.
std::vector<std::string> kmod_device_paths();

}  // namespace bam
