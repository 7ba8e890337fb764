// Host-side hot path of the BaM queue pair against the host emulated controller: one iteration is
// enqueue + doorbell + completion poll + dequeue of a 512 B read (items_per_second =
// commands/s). The controller's worker threads share the machine's cores with the clients.
// Run: bam-microbench --benchmark_filter=QueueRoundTrip --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"

namespace {

/// One controller, one driver and `pairs` queue pairs, built once per (pairs, workers) setup.
struct host_stack {
  std::unique_ptr<bam::emu::emulated_controller> ctrl;
  std::unique_ptr<bam::controller_driver> driver;
  std::vector<bam::io_queue_pair> qps;
  std::vector<bam::dma_buffer> buffers;

  host_stack(std::uint32_t pairs, std::uint32_t depth, std::uint32_t workers) {
    bam::emu::controller_options o;
    o.namespace_lbas = 1u << 16;
    o.worker_threads = workers;
    ctrl = std::make_unique<bam::emu::emulated_controller>(o);
    ctrl->start();
    driver = std::make_unique<bam::controller_driver>(ctrl->bar(), ctrl->allocator());
    for (std::uint32_t q = 0; q < pairs; ++q)
      qps.push_back(driver->create_io_queue_pair(depth));
    for (int t = 0; t < 64; ++t)
      buffers.emplace_back(ctrl->allocator(), 4096);
  }
};

host_stack& stack_for(std::uint32_t pairs, std::uint32_t workers) {
  // Built on first use and kept: construction stays outside the timed loops.
  static host_stack one_pair(1, 1024, 1);
  static host_stack per_thread(8, 1024, 1);
  static host_stack two_workers(8, 1024, 2);
  if (pairs == 1) return one_pair;
  return workers == 1 ? per_thread : two_workers;
}

void QueueRoundTrip(benchmark::State& state) {
  const auto pairs = static_cast<std::uint32_t>(state.range(0));
  const auto workers = static_cast<std::uint32_t>(state.range(1));
  host_stack& s = stack_for(pairs, workers);
  const auto t = static_cast<std::size_t>(state.thread_index());
  const auto ref = s.qps[t % s.qps.size()].ref();
  const bam::dma_buffer& buf = s.buffers[t];
  std::uint64_t lba = t * 4096;
  std::uint64_t failed = 0;
  for (auto _ : state) {
    const bam::nvme::completion c =
        ref.submit_and_wait(bam::nvme::read(1, lba, 1, {buf.bus_address(), 0}));
    failed += c.status().ok() ? 0 : 1;
    lba = (lba + 1) & ((1u << 16) - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  if (failed != 0) state.SkipWithError("a command failed");
}
// Args: queue pairs, controller worker threads. Threads: client threads.
BENCHMARK(QueueRoundTrip)
    ->ArgNames({"pairs", "workers"})
    ->Args({1, 1})
    ->Args({8, 1})
    ->Args({8, 2})
    ->Threads(1)
    ->Threads(2)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime()
    ->MinTime(0.5);

}  // namespace
