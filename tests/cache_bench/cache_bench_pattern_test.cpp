// cache-bench's access pattern (tools/cache-bench/bench_pattern.hpp) as params_of builds it from
// a config: the thread and warp layouts touch exactly the same elements in every iteration of a
// sequential pass, a full pass touches every element once, a warp-layout group's 32 threads
// cover their chunk exactly once with consecutive lanes on consecutive elements, and write
// decisions are per chunk owner.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bam/nvme/names.hpp"
#include "bench_pattern.hpp"
#include "bench_run.hpp"

namespace bam::tools {
namespace {

bench_params params(std::uint32_t threads, std::uint32_t coarsening, std::uint64_t elements,
                    cache_bench_layout layout, io_pattern pattern, io_op op = io_op::read) {
  run_config c;
  c.workload.threads = threads;
  c.workload.pattern = pattern;
  c.workload.op = op;
  c.cache_bench.coarsening = coarsening;
  c.cache_bench.elements = elements;
  c.cache_bench.layout = layout;
  c.cache_bench.iterations = 8;
  return params_of(c, false);
}

/// The elements every thread accesses in iteration k, sorted.
std::vector<std::uint64_t> iteration_elements(const bench_params& p, std::uint64_t k) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t t = 0; t < p.threads; ++t) {
    const std::uint64_t ch = chunk_of(p, owner_of(p, t), k);
    for (std::uint32_t j = 0; j < p.coarsening; ++j)
      out.push_back(element_of(p, ch, t, j));
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct shape {
  std::uint32_t threads, coarsening;
  std::uint64_t elements;
};

TEST(CacheBenchPattern, SequentialLayoutsTouchTheSameElementsEveryIteration) {
  // threads x c equal to, a divisor of, and (third) not dividing the dataset.
  for (const shape s : {shape{64, 4, 256}, shape{32, 8, 1024}, shape{96, 2, 1024}}) {
    const bench_params th = params(s.threads, s.coarsening, s.elements, cache_bench_layout::thread,
                                   io_pattern::sequential);
    const bench_params wp = params(s.threads, s.coarsening, s.elements, cache_bench_layout::warp,
                                   io_pattern::sequential);
    EXPECT_EQ(th.owners, s.threads);
    EXPECT_EQ(wp.owners, s.threads / 32);
    EXPECT_EQ(th.chunks, s.elements / s.coarsening);
    EXPECT_EQ(wp.chunks, s.elements / (32u * s.coarsening));
    for (std::uint64_t k = 0; k < 8; ++k) {
      const auto a = iteration_elements(th, k);
      ASSERT_EQ(a, iteration_elements(wp, k)) << s.threads << " " << s.coarsening << " k=" << k;
      // threads x c distinct elements when they fit the dataset.
      if (std::uint64_t{s.threads} * s.coarsening <= s.elements) {
        EXPECT_EQ(std::adjacent_find(a.begin(), a.end()), a.end());
      }
    }
  }
}

TEST(CacheBenchPattern, FullSequentialPassTouchesEveryElementOnce) {
  // 32 threads x 8 elements = 256 per iteration; 4 iterations cover 1024 elements.
  for (const auto layout : {cache_bench_layout::thread, cache_bench_layout::warp}) {
    const bench_params p = params(32, 8, 1024, layout, io_pattern::sequential);
    std::vector<int> seen(1024, 0);
    for (std::uint64_t k = 0; k < 4; ++k) {
      for (const std::uint64_t i : iteration_elements(p, k))
        ++seen[i];
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 1024);
  }
}

TEST(CacheBenchPattern, WarpLayoutLanesInterleaveOverTheGroupsChunk) {
  const bench_params p =
      params(64, 4, 4096, cache_bench_layout::warp, io_pattern::random, io_op::mixed);
  const bench_params t =
      params(64, 4, 4096, cache_bench_layout::thread, io_pattern::random, io_op::mixed);
  EXPECT_EQ(p.chunks, 32u);  // 4096 / (32 x 4)
  for (std::uint64_t k = 0; k < 8; ++k) {
    for (std::uint64_t g = 0; g < 2; ++g) {
      const std::uint64_t ch = chunk_of(p, g, k);
      ASSERT_LT(ch, p.chunks);
      std::vector<std::uint64_t> got;
      for (std::uint64_t l = 0; l < 32; ++l) {
        const std::uint64_t thread = g * 32 + l;
        EXPECT_EQ(owner_of(p, thread), g);
        EXPECT_EQ(owner_of(t, thread), thread);
        for (std::uint32_t j = 0; j < 4; ++j) {
          const std::uint64_t i = element_of(p, ch, thread, j);
          EXPECT_EQ(i, ch * 128 + j * 32 + l);  // step j: one 256-byte run across the lanes
          got.push_back(i);
        }
      }
      std::sort(got.begin(), got.end());
      for (std::uint64_t x = 0; x < 128; ++x)
        ASSERT_EQ(got[x], ch * 128 + x);
    }
  }
  // Mixed: both decisions occur over the owners and iterations, one per (owner, iteration).
  int writes = 0;
  for (std::uint64_t o = 0; o < 2; ++o) {
    for (std::uint64_t k = 0; k < 64; ++k)
      writes += writes_in(p, o, k) ? 1 : 0;
  }
  EXPECT_GT(writes, 0);
  EXPECT_LT(writes, 128);
}

TEST(CacheBenchPattern, ThreadLayoutKeepsItsChunks) {
  // Stored results stay comparable: thread t, iteration k, chunk (k * threads + t) % chunks.
  const bench_params p = params(8, 4, 64, cache_bench_layout::thread, io_pattern::sequential);
  EXPECT_EQ(chunk_of(p, 3, 1), (8u + 3u) % 16u);
  EXPECT_EQ(element_of(p, 11, 3, 2), 11u * 4u + 2u);
}

TEST(CacheBenchPattern, MixedWriteCountIsTheSameOnAnyNumberOfHostThreads) {
  // The report's write count of a mixed pass replays the pattern on the host, split over host
  // threads when it is large: every split must count what one owner-by-owner loop counts.
  for (const cache_bench_layout layout : {cache_bench_layout::thread, cache_bench_layout::warp}) {
    const bench_params p =
        params(32 * 1001, 4, 32 * 1001 * 4, layout, io_pattern::random, io_op::mixed);
    std::uint64_t chunks_written = 0;
    for (std::uint64_t o = 0; o < p.owners; ++o) {
      for (std::uint64_t k = 0; k < p.iterations; ++k)
        chunks_written += writes_in(p, o, k) ? 1 : 0;
    }
    const std::uint64_t expect = chunks_written * chunk_elements(p);
    // About half of the chunks are written (read_ratio 0.5): the count is not trivially 0 or all.
    EXPECT_GT(expect, p.threads * p.iterations * p.coarsening / 3);
    EXPECT_LT(expect, p.threads * p.iterations * p.coarsening * 2 / 3);
    for (const std::uint32_t workers : {1u, 2u, 7u, 64u, 0u})
      EXPECT_EQ(write_accesses(p, workers), expect) << "workers " << workers;
  }
  // Write-only and read-only passes need no replay.
  const bench_params w =
      params(64, 4, 4096, cache_bench_layout::thread, io_pattern::random, io_op::write);
  EXPECT_EQ(write_accesses(w), 64u * 8u * 4u);
  EXPECT_EQ(write_accesses(params(64, 4, 4096, cache_bench_layout::thread, io_pattern::random)),
            0u);
}

}  // namespace
}  // namespace bam::tools

// ---- failures reach the run_result (the tools' exit status 3), not the run's error --------------

namespace bam::tools {
namespace {

/// A rig whose measured pass failed: 3 I/O errors (2 read errors, 1 timeout), 5 accesses.
class failing_rig final : public cache_rig {
 public:
  void new_cache(const bench_shape&) override {}
  void fill(const bench_shape&) override {}
  void warm(const bench_shape&) override {}
  double measure(const bench_params&, bench_counters& out) override {
    out = bench_counters{};
    failed_ = true;
    return 0.001;
  }
  bench_counters check(const bench_shape&) override { return bench_counters{}; }
  bool flush() override { return true; }
  cache_stats stats() override {
    cache_stats s;
    if (failed_) {
      s.io_errors = 3;
      s.timeouts = 1;
      s.failed_accesses = 5;
      s.errors_by_code = {{nvme::sc::unrecovered_read_error.code(), 2},
                          {nvme::sc::host_timeout.code(), 1}};
    }
    return s;
  }
  void reset_stats() override { failed_ = false; }

 private:
  bool failed_ = false;
};

TEST(CacheBenchRun, FailedAccessesAndIoErrorsGoToTheResultNotToTheRunsError) {
  run_config c;
  c.workload.threads = 4;
  c.cache_bench.temperature = cache_temperature::cold;
  c.cache_bench.elements = 4096;
  failing_rig rig;
  bool media_dirty = false;
  const run_result r = run_cache_bench(rig, c, run_hooks{}, media_dirty);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.io_failed());
  EXPECT_EQ(r.errors, 3u);
  EXPECT_EQ(r.timeouts, 1u);
  ASSERT_EQ(r.errors_by_status.size(), 2u);
  EXPECT_EQ(r.errors_by_status.at(std::string(nvme::status_name(nvme::sc::unrecovered_read_error))),
            2u);
  EXPECT_EQ(r.errors_by_status.at(std::string(nvme::status_name(nvme::sc::host_timeout))), 1u);
  EXPECT_EQ(r.tool_stats["io_failures"]["failed_accesses"].get<std::uint64_t>(), 5u);
  EXPECT_EQ(r.tool_stats["cache"]["failed_accesses"].get<std::uint64_t>(), 5u);
}

}  // namespace
}  // namespace bam::tools
