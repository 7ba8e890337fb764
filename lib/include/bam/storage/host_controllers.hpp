// bam/storage/host_controllers.hpp: API. The SSDs of storage.backend = host (host_context, the
// tools' host backends): one host-emulated NVMe controller per SSD of a run_config (LBA size,
// media size or file, queue pairs), each brought up by bam::controller_driver, shut down on
// destruction.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "bam/config/config_io.hpp"
#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"

namespace bam {

class host_controllers {
 public:
  /// Most SSDs (controllers) emulated.
  static constexpr std::uint32_t max_ssds = 64;

  /// Starts storage.ssd_count controllers and their drivers (queues.pairs_per_ssd I/O queue
  /// pairs each). Throws config_error (storage.ssd_count) above max_ssds.
  explicit host_controllers(const run_config& c);
  ~host_controllers();
  host_controllers(const host_controllers&) = delete;
  host_controllers& operator=(const host_controllers&) = delete;

  std::uint32_t size() const { return static_cast<std::uint32_t>(ssds_.size()); }
  emu::emulated_controller& controller(std::uint32_t i) { return *ssds_[i].controller; }
  controller_driver& driver(std::uint32_t i) { return *ssds_[i].driver; }
  /// What the first controller reports (max_threads left 0).
  backend_caps caps() const;
  /// Memory every controller reaches at the same bus addresses: taken from controller 0's
  /// allocator and registered in the other controllers' DMA windows while allocated (e.g. cache
  /// slots striped over the SSDs). Free its regions before this object goes.
  dma_allocator& shared_memory();

 private:
  struct ssd {
    std::unique_ptr<emu::emulated_controller> controller;
    std::unique_ptr<controller_driver> driver;
  };
  std::vector<ssd> ssds_;
  class shared_allocator;
  std::unique_ptr<shared_allocator> shared_;
};

}  // namespace bam
