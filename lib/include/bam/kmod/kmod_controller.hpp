// bam/kmod/kmod_controller.hpp: API, the `nvme` backend: a real NVMe controller bound to the
// bamkit kernel module, driven from host memory by the same controller_driver that drives
// emulated controllers (BAR0 through kmod_device, DMA memory through kmod_host_allocator).
#pragma once
#include <memory>
#include <string>

#include "bam/driver/controller_driver.hpp"
#include "bam/kmod/kmod_device.hpp"
#include "bam/kmod/kmod_host_allocator.hpp"

namespace bam {

/// Owns device, allocators and driver, in that order of construction (the driver shuts the
/// controller down and it is disabled, CC.EN = 0, before the memory goes: the module releases
/// memory unmapped while the controller runs only once it is disabled). Not movable: the driver
/// keeps references. Destroy the io_queue_pairs made through driver() before this object: their
/// rings are its memory.
class kmod_controller {
 public:
  /// Opens `path` (/dev/bamkit-nvmeN) and brings the controller up. Queue rings come from
  /// 2 MiB huge pages when `huge_page_rings` (needed on controllers that require contiguous
  /// queues without an IOMMU; reserve pages in /proc/sys/vm/nr_hugepages), else from 4 KiB
  /// pages (then rings larger than a page need an IOMMU to be bus-contiguous). Doorbells are
  /// written as MMIO (driver_options::mmio_doorbells is forced on).
  explicit kmod_controller(const std::string& path, driver_options opts = {},
                           bool huge_page_rings = true);
  kmod_controller(const kmod_controller&) = delete;
  kmod_controller& operator=(const kmod_controller&) = delete;
  ~kmod_controller();

  controller_driver& driver() { return *driver_; }
  const controller_info& info() const { return driver_->info(); }
  const kmod_device& device() const { return *device_; }
  /// Memory for data buffers (4 KiB pages, each with its own bus address).
  kmod_host_allocator& data_allocator() { return *data_; }
  /// The allocator the driver takes its rings and admin buffers from.
  kmod_host_allocator& ring_allocator() { return *rings_; }

 private:
  std::unique_ptr<kmod_device> device_;
  std::unique_ptr<kmod_host_allocator> rings_;
  std::unique_ptr<kmod_host_allocator> data_;
  std::unique_ptr<controller_driver> driver_;
};

}  // namespace bam
