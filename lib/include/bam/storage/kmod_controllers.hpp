// bam/storage/kmod_controllers.hpp: API. The SSDs of storage.backend = nvme (host_context, the
// tools' nvme backends): one real NVMe controller per storage.device_paths entry
// (bam::kmod_controller, bound to bamkit.ko), the checks of a run_config against them, memory all
// of them reach, and what reports say of them.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/config/config_io.hpp"
#include "bam/kmod/kmod_controller.hpp"
#include "bam/kmod/kmod_host_allocator.hpp"

namespace bam {

class kmod_controllers {
 public:
  /// Opens every storage.device_paths entry (already checked by validate()), asking each for
  /// queues.pairs_per_ssd I/O queue pairs. Throws config_error (storage.lba_size) when a
  /// namespace's LBA size is not storage.lba_size; std::system_error / std::runtime_error when a
  /// controller cannot be opened or brought up.
  explicit kmod_controllers(const run_config& c);
  ~kmod_controllers();
  kmod_controllers(const kmod_controllers&) = delete;
  kmod_controllers& operator=(const kmod_controllers&) = delete;

  std::uint32_t size() const { return static_cast<std::uint32_t>(ssds_.size()); }
  kmod_controller& controller(std::uint32_t i) { return *ssds_[i]; }
  controller_driver& driver(std::uint32_t i) { return ssds_[i]->driver(); }
  /// The smallest of each limit over the controllers; max_ssds = their number, max_threads 0.
  /// validate_against() then names queues.depth (above CAP.MQES + 1), queues.pairs_per_ssd
  /// (above the pairs granted) and workload.dataset_bytes (above the smallest namespace).
  backend_caps caps() const { return caps_; }
  /// Pinned host memory DMA-mapped for every controller (device i = controller i; each may see
  /// it at its own bus addresses): what several controllers DMA into, e.g. cache slots.
  /// Free its regions before this object goes.
  kmod_host_allocator& shared_memory() { return *shared_; }
  /// Adds to a report's tool_stats: "devices" (path, max_queue_entries, io_queue_pairs,
  /// namespace_lbas, lba_size per controller) and "nvme_ordering_read" (host mode: not applied).
  void describe(const run_config& c, nlohmann::json& tool_stats) const;

 private:
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<kmod_controller>> ssds_;
  std::unique_ptr<kmod_host_allocator> shared_;  // after ssds_: destroyed first
  backend_caps caps_{};
};

}  // namespace bam
