// Many host threads on one cache over a dataset 8x its size, uniform or skewed (hot-set)
// access: reads of a read-only region (single, and short scans through array_ref) checked
// against the media's initial values, writes and read-backs of per-thread elements (threads
// interleave element by element, so lines are shared), and atomic adds to shared counters whose
// final sums are exact. After a flush the media, read directly, must hold every write and every
// sum; the statistics must add up (accesses as counted by the threads, one read per miss,
// evictions = misses - slots, one write I/O per write-back). A watchdog turns a hang into a
// failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bam/array/array_ref.hpp"
#include "cache_test_util.hpp"

namespace {

using namespace bam::test;

struct stress_case {
  bool skewed;
  std::uint32_t ssds, threads, ops_per_thread;
};

constexpr std::uint32_t line_bytes = 512;
constexpr std::uint64_t per_line = line_bytes / 8;
constexpr std::uint64_t slots = 64;
constexpr std::uint64_t lines = 8 * slots;
// Regions, in lines: read-only [0, 192), per-thread elements [192, 448), counters [448, 512).
constexpr std::uint64_t ro_first = 0, ro_lines = 192;
constexpr std::uint64_t own_first = 192, own_lines = 256;
constexpr std::uint64_t ctr_first = 448, ctr_lines = 64;

class CacheStress : public ::testing::TestWithParam<stress_case> {};

/// An element index in a region of `region_lines` lines starting at `first`: uniform, or 90%
/// of the time from the first eighth of the region (the hot set).
std::uint64_t pick(std::mt19937_64& rng, bool skewed, std::uint64_t first,
                   std::uint64_t region_lines) {
  std::uint64_t n = region_lines * per_line;
  if (skewed && rng() % 10 != 0) n = (region_lines / 8) * per_line;
  return first * per_line + rng() % n;
}

TEST_P(CacheStress, EveryValueAndCountIsExact) {
  const stress_case p = GetParam();
  host_rig rig(p.ssds, 4, lines * (line_bytes / 512) / p.ssds + 64, 512, 64);
  bam::cache_config cfg;
  cfg.line_bytes = line_bytes;
  cfg.slots = slots;
  cfg.lines = lines;
  cfg.io_timeout_ns = 60'000'000'000ull;
  host_cache c(cfg, rig.ssds(), rig.slot_memory());
  rig.share(c.storage());
  const bam::line_map m = map_of(c);
  fill_media(rig, m, line_bytes, lines);
  const u64_array a(c.ref(), bam::range<std::uint64_t>{0, lines * per_line});

  const std::uint64_t own_elems = own_lines * per_line, ctr_elems = ctr_lines * per_line;
  std::atomic<std::uint64_t> done{0}, bad_ro{0}, bad_own{0}, accesses{0};
  // Per thread: the last value written to each element it owns (0: none), adds per counter.
  std::vector<std::vector<std::uint64_t>> last(p.threads), adds(p.threads);
  std::vector<std::thread> threads;
  for (std::uint32_t t = 0; t < p.threads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(7 + t);
      last[t].assign(own_elems, 0);
      adds[t].assign(ctr_elems, 0);
      std::uint64_t seq = 0;
      for (std::uint32_t op = 0; op < p.ops_per_thread; ++op, done.fetch_add(1)) {
        const std::uint64_t kind = rng() % 10;
        if (kind < 4) {
          const std::uint64_t i = pick(rng, p.skewed, ro_first, ro_lines);
          if (a[i] != initial_value(i)) bad_ro.fetch_add(1);
          accesses.fetch_add(1, std::memory_order_relaxed);
        } else if (kind == 4) {
          // A short scan through an array_ref: one cache access per line it enters.
          const std::uint64_t i = pick(rng, p.skewed, ro_first, ro_lines);
          const std::uint64_t end = std::min(i + 24, (ro_first + ro_lines) * per_line);
          bam::array_ref<std::uint64_t, host_cache::ref_type> h(a);
          for (std::uint64_t j = i; j < end; ++j) {
            if (h[j] != initial_value(j)) bad_ro.fetch_add(1);
          }
          accesses.fetch_add((end - 1) / per_line - i / per_line + 1, std::memory_order_relaxed);
        } else if (kind < 8) {
          accesses.fetch_add(1, std::memory_order_relaxed);
          // An element of ours: index k of the region with k % threads == t.
          std::uint64_t k = pick(rng, p.skewed, 0, own_lines);
          k = k - k % p.threads + t;
          if (k >= own_elems) k -= p.threads;
          const std::uint64_t i = own_first * per_line + k;
          if (kind < 7) {
            const std::uint64_t v = (i << 24) | (++seq & 0xffffff);
            a.write(i, v);
            last[t][k] = v;
          } else {
            const std::uint64_t expect = last[t][k] != 0 ? last[t][k] : initial_value(i);
            if (a.read(i) != expect) bad_own.fetch_add(1);
          }
        } else {
          accesses.fetch_add(1, std::memory_order_relaxed);
          const std::uint64_t i = pick(rng, p.skewed, ctr_first, ctr_lines);
          const std::uint64_t add = t + 1;
          a.atomic_add(i, add);
          adds[t][i - ctr_first * per_line] += add;
        }
      }
    });
  }
  const std::uint64_t total = std::uint64_t{p.threads} * p.ops_per_thread;
  std::uint64_t seen = 0;
  auto last_change = std::chrono::steady_clock::now();
  while (done.load() < total) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (done.load() != seen) {
      seen = done.load();
      last_change = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - last_change > std::chrono::seconds(60)) {
      ADD_FAILURE() << "stalled at " << seen << "/" << total << " accesses";
      std::fflush(nullptr);
      std::_Exit(1);
    }
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(bad_ro.load(), 0u);
  EXPECT_EQ(bad_own.load(), 0u);

  const bam::cache_stats before = c.stats();
  EXPECT_EQ(before.accesses, accesses.load());
  EXPECT_EQ(before.io_errors, 0u);
  EXPECT_EQ(before.reads, before.misses);
  EXPECT_EQ(before.evictions + slots, before.misses);
  EXPECT_EQ(before.write_backs, before.dirty_evictions);
  EXPECT_EQ(before.writes, before.write_backs);
  ASSERT_TRUE(c.flush());
  const bam::cache_stats s = c.stats();
  EXPECT_GT(s.write_backs, before.write_backs);
  EXPECT_LE(s.write_backs - before.write_backs, slots);  // at most every resident line
  EXPECT_EQ(s.writes, s.write_backs);
  EXPECT_EQ(s.flushes, p.ssds);
  std::uint64_t br = 0, bw = 0;
  for (std::uint32_t d = 0; d < p.ssds; ++d) {
    br += s.bytes_read[d];
    bw += s.bytes_written[d];
  }
  EXPECT_EQ(br, s.reads * line_bytes);
  EXPECT_EQ(bw, s.writes * line_bytes);

  // The media, read directly: read-only lines unchanged, last writes, exact counter sums.
  std::uint64_t wrong_ro = 0, wrong_own = 0, wrong_ctr = 0;
  for (std::uint64_t l = 0; l < lines; ++l) {
    const std::vector<std::uint64_t> v = media_line(rig, m, line_bytes, l, m.ssd_of(l));
    for (std::uint64_t e = 0; e < per_line; ++e) {
      const std::uint64_t i = l * per_line + e;
      if (l < own_first) {
        wrong_ro += v[e] != initial_value(i);
      } else if (l < ctr_first) {
        const std::uint64_t k = i - own_first * per_line;
        const std::uint64_t w = last[k % p.threads][k];
        wrong_own += v[e] != (w != 0 ? w : initial_value(i));
      } else {
        const std::uint64_t k = i - ctr_first * per_line;
        std::uint64_t sum = initial_value(i);
        for (std::uint32_t t = 0; t < p.threads; ++t)
          sum += adds[t][k];
        wrong_ctr += v[e] != sum;
        // And through the cache.
        wrong_ctr += a[i] != sum;
      }
    }
  }
  EXPECT_EQ(wrong_ro, 0u);
  EXPECT_EQ(wrong_own, 0u);
  EXPECT_EQ(wrong_ctr, 0u);
  std::printf("  %llu accesses: %llu hits, %llu misses, %llu evictions, %llu write-backs\n",
              static_cast<unsigned long long>(s.accesses), static_cast<unsigned long long>(s.hits),
              static_cast<unsigned long long>(s.misses),
              static_cast<unsigned long long>(s.evictions),
              static_cast<unsigned long long>(s.write_backs));
}

INSTANTIATE_TEST_SUITE_P(Patterns, CacheStress,
                         ::testing::Values(stress_case{false, 2, 16, 3000},
                                           stress_case{true, 2, 16, 3000},
                                           stress_case{true, 1, 32, 1500}),
                         [](const auto& param_info) {
                           return std::string(param_info.param.skewed ? "skewed" : "uniform") +
                                  "_" + std::to_string(param_info.param.ssds) + "ssd_" +
                                  std::to_string(param_info.param.threads) + "t";
                         });

}  // namespace
