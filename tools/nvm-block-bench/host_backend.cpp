// The host backend of nvm-block-bench: CPU threads, BaM queue pairs, host emulated controllers.
#include "host_backend.hpp"

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "bam/harness/ceilings.hpp"
#include "bam/queue/doorbell.hpp"
#include "queue_runner.hpp"

namespace bam::tools {

host_backend::host_backend() = default;
host_backend::~host_backend() = default;

void host_backend::open(const run_config& c) {
  check_outstanding_fits(c);
  ssds_ = std::make_unique<host_controllers>(c);
  caps_ = ssds_->caps();
  caps_.max_threads = 4096;
}

backend_caps host_backend::capabilities() const {
  return caps_;
}

run_result host_backend::run(const run_config& c, const run_hooks& hooks) {
  std::vector<queue_ssd> ssds;
  for (std::uint32_t i = 0; i < c.storage.ssd_count; ++i)
    ssds.push_back({&ssds_->driver(i), &ssds_->controller(i).allocator()});
  run_result out = run_queue_workload<memory_doorbell>(c, hooks, ssds);
  nlohmann::json ctrl_stats = nlohmann::json::array();
  for (std::uint32_t i = 0; i < c.storage.ssd_count; ++i) {
    const emu::controller_stats s = ssds_->controller(i).stats();
    ctrl_stats.push_back({{"completions", s.completions},
                          {"errors", s.errors},
                          {"doorbell_reads", s.doorbell_reads},
                          {"invalid_doorbells", s.invalid_doorbells},
                          {"injected_errors", s.injected_errors},
                          {"injected_delays", s.injected_delays},
                          {"injected_drops", s.injected_drops},
                          {"aborted", s.aborted},
                          {"aborted_by_sq_deletion", s.aborted_by_sq_deletion}});
  }
  out.tool_stats["controllers"] = ctrl_stats;
  return out;
}

nlohmann::json host_backend::measure_ceilings(const run_config& c) {
  // The media of the emulated SSDs is host memory: random memcpy at the run's I/O size.
  const std::uint64_t bytes = c.dataset();
  std::unique_ptr<std::uint8_t[]> mem(new std::uint8_t[bytes]());
  return to_json(measure_memory_random_read(mem.get(), bytes, c.workload.io_size,
                                            c.workload.threads, 0.5,
                                            "host memory of the dataset's size (not the media)"));
}

}  // namespace bam::tools
