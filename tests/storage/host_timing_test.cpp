// Host-emulated controllers at the pace of storage.model (the GPU engine's timing model): a
// command never completes before the drive's pipe and latency allow, so the time of a known
// amount of work has an exact lower bound: bytes / bandwidth cap, commands / IOPS cap, commands
// one after another x latency. Upper bounds are loose (a shared machine may be slow), the lower
// ones exact: nothing here can pass by luck or fail by load.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "bam/config/config_io.hpp"
#include "bam/storage/host_context.hpp"

namespace {

bam::run_config config(std::uint32_t ssds, const bam::ssd_model& m) {
  bam::run_config c;
  c.storage.backend = bam::backend_kind::host;
  c.storage.ssd_count = ssds;
  c.storage.media.size_bytes = 8u << 20;
  c.storage.model = bam::model_spec{"", m};
  c.queues.pairs_per_ssd = 4;
  c.queues.depth = 64;
  return c;
}

/// Seconds to read `bytes` of a region through the queues with `threads` threads (64 KiB
/// commands); `commands` gets their count.
double timed_read(const bam::run_config& c, std::uint64_t bytes, unsigned threads,
                  std::uint64_t& commands) {
  bam::host_context ctx(c, bam::layout_options{.manifest = false});
  ctx.add_region("r", bytes);
  std::vector<std::byte> data(bytes, std::byte{7});
  ctx.write_region("r", data.data(), bytes);
  std::vector<std::byte> back(bytes);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = ctx.read_region("r", 0, back.data(), bytes, threads);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(back, data);
  commands = r.commands;
  EXPECT_EQ(r.bytes, bytes);
  return s;
}

TEST(HostTiming, BandwidthCapBoundsEveryTransfer) {
  bam::ssd_model m;
  m.read_bandwidth_gbps = 0.2;  // 200 MB/s: 4 MiB take 20.97 ms
  std::uint64_t n = 0;
  const double s = timed_read(config(1, m), 4u << 20, 4, n);
  const double floor = double(4u << 20) / 0.2e9;
  EXPECT_EQ(n, 64u);
  EXPECT_GE(s, floor * 0.999) << "faster than the bandwidth cap";
  EXPECT_LT(s, floor * 20 + 1.0);
  // Two SSDs, each its own pipe: half the bytes each.
  const double s2 = timed_read(config(2, m), 4u << 20, 4, n);
  EXPECT_GE(s2, floor / 2 * 0.999);
}

TEST(HostTiming, IopsCapBoundsTheCommandRate) {
  bam::ssd_model m;
  m.read_iops_512 = m.read_iops_4k = 20'000;  // 50 us per 4 KiB: a 64 KiB command 800 us
  std::uint64_t n = 0;
  const double s = timed_read(config(1, m), 1u << 20, 4, n);
  EXPECT_EQ(n, 16u);
  const double floor = 16 * 16 * 50e-6;  // 12.8 ms
  EXPECT_GE(s, floor * 0.999) << "faster than the IOPS cap";
  EXPECT_LT(s, floor * 20 + 1.0);
}

TEST(HostTiming, LatencyDelaysEachCommandAndIdealDoesNot) {
  bam::ssd_model m;
  m.latency_us = 2000;  // no caps: each command 2 ms after its fetch
  std::uint64_t n = 0;
  const double s = timed_read(config(1, m), 5u << 16, 1, n);  // one thread: one after another
  EXPECT_EQ(n, 5u);
  EXPECT_GE(s, 5 * 2e-3 * 0.999);
  EXPECT_LT(s, 5 * 2e-3 * 20 + 1.0);
  // Four threads: their commands overlap (one latency each, not four in a row).
  const double s4 = timed_read(config(1, m), 4u << 16, 4, n);
  EXPECT_GE(s4, 2e-3 * 0.999);
  // The ideal model books nothing (no floor to check: it must just work).
  EXPECT_LT(timed_read(config(1, bam::ssd_model{}), 4u << 20, 4, n), 30.0);
}

}  // namespace
