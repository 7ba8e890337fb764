// The nvme backend of nvm-block-bench (host mode): real controllers through bamkit.ko.
#include "nvme_backend.hpp"

#include <fmt/format.h>

#include "bam/queue/doorbell.hpp"
#include "queue_runner.hpp"

namespace bam::tools {

nvme_backend::nvme_backend() = default;
nvme_backend::~nvme_backend() = default;

void nvme_backend::open(const run_config& c) {
  // storage.device_paths (one per SSD, existing character devices) was checked by validate();
  // kmod_controllers checks the LBA size, the caps the rest (validate_against).
  check_outstanding_fits(c);
  if (std::uint64_t{c.workload.threads} * c.workload.outstanding > 4096) {
    throw config_error("workload.outstanding",
                       fmt::format("{} x {} threads is above the 4096 I/O threads of backend "
                                   "\"nvme\" (one per I/O in flight)",
                                   c.workload.outstanding, c.workload.threads));
  }
  ssds_ = std::make_unique<kmod_controllers>(c);
  caps_ = ssds_->caps();
  caps_.max_threads = 4096;
}

backend_caps nvme_backend::capabilities() const {
  return caps_;
}

run_result nvme_backend::run(const run_config& c, const run_hooks& hooks) {
  std::vector<queue_ssd> ssds;
  for (std::uint32_t i = 0; i < ssds_->size(); ++i)
    ssds.push_back({&ssds_->driver(i), &ssds_->controller(i).data_allocator()});
  // A BaM queue's wait() returns only once the CQ head has passed the caller's entry, so one
  // thread that holds several commands on a queue and waits for them oldest first deadlocks when
  // the controller completes them out of order (QEMU's does; real SSDs may). Each of the
  // threads x outstanding I/Os in flight therefore gets its own thread with one command.
  run_config one_each = c;
  one_each.workload.threads = c.workload.threads * c.workload.outstanding;
  one_each.workload.outstanding = 1;
  run_result out = run_queue_workload<mmio_doorbell>(one_each, hooks, ssds);
  ssds_->describe(c, out.tool_stats);
  out.tool_stats["io_threads"] = one_each.workload.threads;
  return out;
}

}  // namespace bam::tools
