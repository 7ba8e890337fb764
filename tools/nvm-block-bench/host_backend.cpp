// The host backend of nvm-block-bench: CPU threads, BaM queue pairs, host emulated controllers.
#include "host_backend.hpp"

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "bam/bench/ceilings.hpp"
#include "bam/queue/doorbell.hpp"
#include "queue_runner.hpp"

namespace bam::tools {
namespace {

/// MDTS of the emulated controllers: 2^8 pages of 4 KiB = 1 MiB per command.
constexpr std::uint32_t emulated_mdts = 8;

}  // namespace

host_backend::host_backend() = default;
host_backend::~host_backend() {
  for (ssd& s : ssds_) {
    if (s.driver) s.driver->shutdown();
  }
}

void host_backend::open(const run_config& c) {
  const std::uint32_t n = c.storage.ssd_count;
  if (n > max_ssds) {
    throw config_error("storage.ssd_count",
                       fmt::format("{} is above the {} SSDs backend \"host\" emulates, allowed "
                                   "[1, {}]",
                                   n, max_ssds, max_ssds));
  }
  check_outstanding_fits(c);
  for (std::uint32_t i = 0; i < n; ++i) {
    emu::controller_options o;
    o.lba_size = c.storage.lba_size;
    o.namespace_lbas = c.storage.media.size_bytes / c.storage.lba_size;
    o.max_queue_entries = 4096;
    o.max_io_queue_pairs = 1024;
    o.mdts = emulated_mdts;
    o.worker_threads = 1;
    o.serial = fmt::format("BAMHOST{:04}", i);
    if (c.storage.media.kind == media_kind::file) {
      o.media = emu::media_kind::file;
      o.media_path = n == 1 ? c.storage.media.path : fmt::format("{}.{}", c.storage.media.path, i);
    }
    ssd s;
    s.controller = std::make_unique<emu::emulated_controller>(o);
    s.controller->start();
    driver_options d;
    d.io_queue_pairs = c.queues.pairs_per_ssd;
    s.driver =
        std::make_unique<controller_driver>(s.controller->bar(), s.controller->allocator(), d);
    ssds_.push_back(std::move(s));
  }
  const controller_info& info = ssds_.front().driver->info();
  caps_.max_ssds = max_ssds;
  caps_.max_queue_entries = info.max_queue_entries;
  caps_.max_pairs_per_ssd = info.io_queue_pairs;
  caps_.max_transfer_bytes = info.max_transfer_bytes;
  caps_.media_bytes = info.namespace_lbas * info.lba_size;
  caps_.max_threads = 4096;
}

backend_caps host_backend::capabilities() const {
  return caps_;
}

run_result host_backend::run(const run_config& c, const run_hooks& hooks) {
  std::vector<queue_ssd> ssds;
  for (std::uint32_t i = 0; i < c.storage.ssd_count; ++i)
    ssds.push_back({ssds_[i].driver.get(), &ssds_[i].controller->allocator()});
  run_result out = run_queue_workload<memory_doorbell>(c, hooks, ssds);
  nlohmann::json ctrl_stats = nlohmann::json::array();
  for (std::uint32_t i = 0; i < c.storage.ssd_count; ++i) {
    const emu::controller_stats s = ssds_[i].controller->stats();
    ctrl_stats.push_back({{"completions", s.completions},
                          {"errors", s.errors},
                          {"doorbell_reads", s.doorbell_reads},
                          {"invalid_doorbells", s.invalid_doorbells}});
  }
  out.tool_stats["controllers"] = ctrl_stats;
  return out;
}

nlohmann::json host_backend::measure_ceilings(const run_config& c) {
  // The media of the emulated SSDs is host memory: random memcpy at the run's I/O size.
  const std::uint64_t bytes = c.dataset();
  std::unique_ptr<std::uint8_t[]> mem(new std::uint8_t[bytes]());
  return nlohmann::json{
      {"host_memory_random_read",
       measure_memory_random_read(mem.get(), bytes, c.workload.io_size, c.workload.threads, 0.5)}};
}

}  // namespace bam::tools
