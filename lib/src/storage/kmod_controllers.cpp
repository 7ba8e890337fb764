// The real controllers of the tools' nvme backends (bam/storage/kmod_controllers.hpp).
#include "bam/storage/kmod_controllers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bam {

kmod_controllers::kmod_controllers(const run_config& c) : paths_(c.storage.device_paths) {
  std::vector<const kmod_device*> devices;
  for (const std::string& p : paths_) {
    driver_options d;
    d.io_queue_pairs = c.queues.pairs_per_ssd;
    ssds_.push_back(std::make_unique<kmod_controller>(p, d));
    devices.push_back(&ssds_.back()->device());
  }
  // The SSDs of one run must agree on what the run relies on: take the smallest of each.
  caps_.max_ssds = size();
  caps_.max_queue_entries = ~0u;
  caps_.max_pairs_per_ssd = ~0u;
  caps_.max_transfer_bytes = ~std::uint64_t{0};
  caps_.media_bytes = ~std::uint64_t{0};
  for (std::size_t i = 0; i < ssds_.size(); ++i) {
    const controller_info& info = ssds_[i]->info();
    if (info.lba_size != c.storage.lba_size) {
      throw config_error("storage.lba_size",
                         fmt::format("{} differs from the {} B LBAs of {} (namespace 1), allowed "
                                     "{}",
                                     c.storage.lba_size, info.lba_size, paths_[i], info.lba_size));
    }
    caps_.max_queue_entries = std::min(caps_.max_queue_entries, info.max_queue_entries);
    caps_.max_pairs_per_ssd = std::min(caps_.max_pairs_per_ssd, info.io_queue_pairs);
    if (info.max_transfer_bytes != 0) {  // 0: no limit
      caps_.max_transfer_bytes = std::min(caps_.max_transfer_bytes, info.max_transfer_bytes);
    }
    caps_.media_bytes =
        std::min<std::uint64_t>(caps_.media_bytes, info.namespace_lbas * info.lba_size);
  }
  if (caps_.max_transfer_bytes == ~std::uint64_t{0}) caps_.max_transfer_bytes = 0;
  shared_ = std::make_unique<kmod_host_allocator>(devices);
}

kmod_controllers::~kmod_controllers() {
  shared_.reset();  // its mappings go while the device files are open
  ssds_.clear();
}

void kmod_controllers::describe(const run_config& c, nlohmann::json& tool_stats) const {
  nlohmann::json devices = nlohmann::json::array();
  for (std::size_t i = 0; i < ssds_.size(); ++i) {
    const controller_info& info = ssds_[i]->info();
    devices.push_back({{"path", paths_[i]},
                       {"max_queue_entries", info.max_queue_entries},
                       {"io_queue_pairs", info.io_queue_pairs},
                       {"namespace_lbas", info.namespace_lbas},
                       {"lba_size", info.lba_size}});
  }
  tool_stats["devices"] = devices;
  // storage.nvme_ordering_read concerns data a controller writes into GPU memory; the nvme
  // backends run in host mode (data in pinned host memory), so they never issue the extra read.
  tool_stats["nvme_ordering_read"] = {{"configured", c.storage.nvme_ordering_read},
                                      {"applied", false},
                                      {"why", "host mode: data buffers in host memory"}};
}

}  // namespace bam
