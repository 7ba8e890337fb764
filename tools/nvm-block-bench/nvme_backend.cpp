// The nvme backend of nvm-block-bench (host mode): real controllers through bamkit.ko.
#include "nvme_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "bam/queue/doorbell.hpp"
#include "queue_runner.hpp"

namespace bam::tools {

nvme_backend::nvme_backend() = default;
nvme_backend::~nvme_backend() = default;

void nvme_backend::open(const run_config& c) {
  // storage.device_paths (one per SSD, existing character devices) was checked by validate().
  const std::vector<std::string>& paths = c.storage.device_paths;
  check_outstanding_fits(c);
  if (std::uint64_t{c.workload.threads} * c.workload.outstanding > 4096) {
    throw config_error("workload.outstanding",
                       fmt::format("{} x {} threads is above the 4096 I/O threads of backend "
                                   "\"nvme\" (one per I/O in flight)",
                                   c.workload.outstanding, c.workload.threads));
  }
  for (const std::string& p : paths) {
    driver_options d;
    d.io_queue_pairs = c.queues.pairs_per_ssd;
    ssds_.push_back(std::make_unique<kmod_controller>(p, d));
  }
  // The SSDs of one run must agree on what the run relies on: take the smallest of each.
  caps_ = {};
  caps_.max_ssds = static_cast<std::uint32_t>(paths.size());
  caps_.max_threads = 4096;
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
                                     c.storage.lba_size, info.lba_size, paths[i], info.lba_size));
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
}

backend_caps nvme_backend::capabilities() const {
  return caps_;
}

run_result nvme_backend::run(const run_config& c, const run_hooks& hooks) {
  std::vector<queue_ssd> ssds;
  for (auto& s : ssds_)
    ssds.push_back({&s->driver(), &s->data_allocator()});
  // A BaM queue's wait() returns only once the CQ head has passed the caller's entry, so one
  // thread that holds several commands on a queue and waits for them oldest first deadlocks when
  // the controller completes them out of order (QEMU's does; real SSDs may). Each of the
  // threads x outstanding I/Os in flight therefore gets its own thread with one command.
  run_config one_each = c;
  one_each.workload.threads = c.workload.threads * c.workload.outstanding;
  one_each.workload.outstanding = 1;
  run_result out = run_queue_workload<mmio_doorbell>(one_each, hooks, ssds);
  nlohmann::json devices = nlohmann::json::array();
  for (std::size_t i = 0; i < ssds_.size(); ++i) {
    const controller_info& info = ssds_[i]->info();
    devices.push_back({{"path", c.storage.device_paths[i]},
                       {"max_queue_entries", info.max_queue_entries},
                       {"io_queue_pairs", info.io_queue_pairs},
                       {"namespace_lbas", info.namespace_lbas}});
  }
  out.tool_stats["devices"] = devices;
  out.tool_stats["io_threads"] = one_each.workload.threads;
  // storage.nvme_ordering_read concerns data a controller writes into GPU memory; this backend
  // runs in host mode (buffers in pinned host memory), so it never issues the extra read.
  out.tool_stats["nvme_ordering_read"] = {{"configured", c.storage.nvme_ordering_read},
                                          {"applied", false},
                                          {"why", "host mode: data buffers in host memory"}};
  return out;
}

}  // namespace bam::tools
