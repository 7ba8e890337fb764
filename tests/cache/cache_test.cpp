// The host cache's logic, single-threaded and exact: cold and warm scans issue exactly the
// reads the pattern implies, written data reaches the media on eviction and flush (checked by
// reading the media directly), line sizes from 512 B to 64 KiB (PRP lists), striped and
// replicated layouts, array ranges, and array_ref pinning its line.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/array/array_ref.hpp"
#include "cache_test_util.hpp"

namespace {

using namespace bam::test;
using bam::cache_config;
using bam::line_layout;
using bam::range;

cache_config config(std::uint32_t line_bytes, std::uint64_t slots, std::uint64_t lines,
                    line_layout layout = line_layout::striped) {
  cache_config c;
  c.line_bytes = line_bytes;
  c.slots = slots;
  c.lines = lines;
  c.layout = layout;
  c.io_timeout_ns = 30'000'000'000ull;
  return c;
}

std::uint64_t round128(std::uint64_t n) {
  return (n + 127) / 128 * 128;
}

TEST(Cache, ColdScanIssuesOneReadAndOneMissPerLine) {
  host_rig rig(1, 2, 4096);
  host_cache c(config(4096, 16, 128), rig.ssds(), rig.slot_memory());
  fill_media(rig, map_of(c), 4096, 128);
  const u64_array a(c.ref(), range<std::uint64_t>{0, 128 * 512});
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < a.size(); ++i)
    wrong += a[i] != initial_value(i);
  EXPECT_EQ(wrong, 0u);
  const bam::cache_stats s = c.stats();
  EXPECT_EQ(s.reads, 128u);
  EXPECT_EQ(s.misses, 128u);
  EXPECT_EQ(s.hits, 128u * 511);
  EXPECT_EQ(s.accesses, 128u * 512);
  EXPECT_EQ(s.evictions, 128u - 16);
  EXPECT_EQ(s.writes, 0u);
  EXPECT_EQ(s.write_backs, 0u);
  EXPECT_EQ(s.io_errors, 0u);
  ASSERT_EQ(s.bytes_read.size(), 1u);
  EXPECT_EQ(s.bytes_read[0], 128u * 4096);
  // The BaM metadata: 8 bytes per dataset line, 16 per slot, the clock hand and the counters.
  EXPECT_EQ(s.metadata_bytes,
            round128(128 * 8) + round128(16 * 16) + 128 + round128(sizeof(bam::cache_counters)));
  EXPECT_EQ(s.slot_bytes, 16u * 4096);
}

TEST(Cache, SecondScanOfAFittingDatasetOnlyHits) {
  host_rig rig(2, 2, 4096);
  host_cache c(config(4096, 32, 32), rig.ssds(), rig.slot_memory());
  rig.share(c.storage());
  fill_media(rig, map_of(c), 4096, 32);
  const u64_array a(c.ref(), range<std::uint64_t>{0, 32 * 512});
  for (int pass = 0; pass < 2; ++pass) {
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < a.size(); ++i)
      wrong += a.read(i) != initial_value(i);
    EXPECT_EQ(wrong, 0u);
  }
  const bam::cache_stats s = c.stats();
  EXPECT_EQ(s.reads, 32u);
  EXPECT_EQ(s.misses, 32u);
  EXPECT_EQ(s.hits, 2u * 32 * 512 - 32);
  EXPECT_EQ(s.evictions, 0u);
  ASSERT_EQ(s.bytes_read.size(), 2u);
  // Striped by 64 KiB units: lines 0-15 on SSD 0, lines 16-31 on SSD 1.
  EXPECT_EQ(s.bytes_read[0], 16u * 4096);
  EXPECT_EQ(s.bytes_read[1], 16u * 4096);
}

TEST(Cache, FlushSendsNvmeFlushesOnlyAfterTheCacheWrote) {
  host_rig rig(2, 2, 4096);
  host_cache c(config(4096, 8, 32), rig.ssds(), rig.slot_memory());
  rig.share(c.storage());
  fill_media(rig, map_of(c), 4096, 32);
  const u64_array a(c.ref(), range<std::uint64_t>{0, 32 * 512});
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < a.size(); ++i)
    wrong += a.read(i) != initial_value(i);  // clean evictions: no write-back
  EXPECT_EQ(wrong, 0u);
  ASSERT_TRUE(c.flush());
  EXPECT_EQ(c.stats().flushes, 0u);  // a read-only cache has nothing to make durable
  a.write(0, 7);                     // one dirty line (line 0, SSD 0)
  ASSERT_TRUE(c.flush());
  bam::cache_stats s = c.stats();
  EXPECT_EQ(s.write_backs, 1u);
  EXPECT_EQ(s.flushes, 2u);  // every SSD: the flag is the cache's, not per SSD
  ASSERT_TRUE(c.flush());    // nothing written since
  EXPECT_EQ(c.stats().flushes, 2u);
  a.write(31 * 512, 9);  // line 31 on SSD 1, in a slot a read then evicts (dirty eviction)
  for (std::uint64_t i = 0; i < 16 * 512; ++i)
    wrong += a.read(i) != (i == 0 ? 7 : initial_value(i));
  EXPECT_EQ(wrong, 0u);
  s = c.stats();
  EXPECT_EQ(s.dirty_evictions, 1u);
  EXPECT_EQ(s.flushes, 2u);
  ASSERT_TRUE(c.flush());  // the eviction's write counts as written since the last flush
  EXPECT_EQ(c.stats().flushes, 4u);
}

struct durable_case {
  std::uint32_t line_bytes, ssds;
};

class CacheWrites : public ::testing::TestWithParam<durable_case> {};

TEST_P(CacheWrites, AreOnTheMediaAfterEvictionAndFlush) {
  const durable_case p = GetParam();
  const std::uint64_t slots = 8, lines = 8 * slots;
  const std::uint64_t per_line = p.line_bytes / 8;
  host_rig rig(p.ssds, 2, lines * p.line_bytes / 512 / p.ssds + 256);
  host_cache c(config(p.line_bytes, slots, lines), rig.ssds(), rig.slot_memory());
  rig.share(c.storage());
  const bam::line_map m = map_of(c);
  fill_media(rig, m, p.line_bytes, lines);
  const u64_array a(c.ref(), range<std::uint64_t>{0, lines * per_line});
  for (std::uint64_t i = 0; i < a.size(); ++i)
    a.write(i, ~initial_value(i));
  bam::cache_stats s = c.stats();
  EXPECT_EQ(s.misses, lines);  // every line fetched once before its first write
  EXPECT_EQ(s.reads, lines);
  EXPECT_EQ(s.evictions, lines - slots);
  EXPECT_EQ(s.dirty_evictions, lines - slots);
  EXPECT_EQ(s.write_backs, lines - slots);
  EXPECT_EQ(s.writes, lines - slots);
  ASSERT_TRUE(c.flush());
  s = c.stats();
  EXPECT_EQ(s.write_backs, lines);  // the resident lines, written back by flush
  EXPECT_EQ(s.writes, lines);
  EXPECT_EQ(s.flushes, p.ssds);
  EXPECT_EQ(s.io_errors, 0u);
  std::uint64_t written = 0;
  for (std::uint32_t d = 0; d < p.ssds; ++d)
    written += s.bytes_written[d];
  EXPECT_EQ(written, lines * p.line_bytes);
  // The media, read directly, holds every written value.
  std::uint64_t wrong = 0;
  for (std::uint64_t l = 0; l < lines; ++l) {
    const std::vector<std::uint64_t> v = media_line(rig, m, p.line_bytes, l, m.ssd_of(l));
    for (std::uint64_t k = 0; k < per_line; ++k)
      wrong += v[k] != ~initial_value(l * per_line + k);
  }
  EXPECT_EQ(wrong, 0u);
  // A second flush has nothing to write; reading back through the cache sees the writes.
  ASSERT_TRUE(c.flush());
  EXPECT_EQ(c.stats().write_backs, lines);
  for (std::uint64_t i = 0; i < a.size(); ++i)
    wrong += a[i] != ~initial_value(i);
  EXPECT_EQ(wrong, 0u);
}

INSTANTIATE_TEST_SUITE_P(LineSizes, CacheWrites,
                         ::testing::Values(durable_case{512, 1}, durable_case{4096, 1},
                                           durable_case{8192, 2}, durable_case{16384, 1},
                                           durable_case{65536, 2}),
                         [](const auto& param_info) {
                           return std::to_string(param_info.param.line_bytes) + "B_" +
                                  std::to_string(param_info.param.ssds) + "ssd";
                         });

TEST(Cache, FlushOfARangeWritesBackOnlyThatRange) {
  host_rig rig(1, 1, 4096);
  host_cache c(config(4096, 16, 16), rig.ssds(), rig.slot_memory());
  const bam::line_map m = map_of(c);
  fill_media(rig, m, 4096, 16);
  const u64_array a(c.ref(), range<std::uint64_t>{0, 16 * 512});
  for (std::uint64_t i = 0; i < a.size(); ++i)
    a.write(i, i);
  ASSERT_TRUE(c.flush(0, 8));
  EXPECT_EQ(c.stats().write_backs, 8u);
  for (std::uint64_t l = 0; l < 16; ++l) {
    const std::vector<std::uint64_t> v = media_line(rig, m, 4096, l, 0);
    const std::uint64_t i = l * 512 + 7;
    EXPECT_EQ(v[7], l < 8 ? i : initial_value(i)) << "line " << l;
  }
  ASSERT_TRUE(c.flush());
  EXPECT_EQ(c.stats().write_backs, 16u);
  EXPECT_EQ(media_line(rig, m, 4096, 15, 0)[7], 15u * 512 + 7);
}

TEST(Cache, ReplicatedLinesAreWrittenToEverySsd) {
  host_rig rig(2, 2, 4096);
  host_cache c(config(4096, 8, 64, line_layout::replicated), rig.ssds(), rig.slot_memory());
  rig.share(c.storage());
  const bam::line_map m = map_of(c);
  fill_media(rig, m, 4096, 64);
  const u64_array a(c.ref(), range<std::uint64_t>{0, 64 * 512});
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < a.size(); ++i) {
    wrong += a[i] != initial_value(i);
    a.atomic_add(i, 5);
  }
  ASSERT_TRUE(c.flush());
  const bam::cache_stats s = c.stats();
  EXPECT_EQ(s.reads, 64u);
  EXPECT_EQ(s.bytes_read[0], 32u * 4096);  // reads alternate between the replicas
  EXPECT_EQ(s.bytes_read[1], 32u * 4096);
  EXPECT_EQ(s.write_backs, 64u);
  EXPECT_EQ(s.writes, 2u * 64);
  EXPECT_EQ(s.bytes_written[0], 64u * 4096);
  EXPECT_EQ(s.bytes_written[1], 64u * 4096);
  for (std::uint32_t d = 0; d < 2; ++d) {
    for (std::uint64_t l = 0; l < 64; ++l) {
      const std::vector<std::uint64_t> v = media_line(rig, m, 4096, l, d);
      for (std::uint64_t k = 0; k < 512; ++k)
        wrong += v[k] != initial_value(l * 512 + k) + 5;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(Cache, ArrayOverTwoRangesMapsElementsToTheirLines) {
  host_rig rig(1, 1, 4096);
  host_cache c(config(512, 4, 64), rig.ssds(), rig.slot_memory());
  const bam::line_map m = map_of(c);
  fill_media(rig, m, 512, 64);
  // 100 elements from line 0 (lines 0..1), then 70 elements from line 40 (lines 40..41).
  u64_array a(c.ref(), range<std::uint64_t>{0, 100});
  ASSERT_TRUE(a.add_range(range<std::uint64_t>{40, 70}));
  ASSERT_FALSE(a.add_range(range<std::uint64_t>{63, 200}));  // runs past the dataset
  EXPECT_EQ(a.size(), 170u);
  EXPECT_EQ(a.locate(99).line, 1u);
  EXPECT_EQ(a.locate(100).line, 40u);
  EXPECT_EQ(a.locate(100).offset, 0u);
  EXPECT_EQ(a.locate(165).line, 41u);
  EXPECT_EQ(a.locate(165).line_end, 170u);
  EXPECT_EQ(a[100], initial_value(40 * 64));
  EXPECT_EQ(a[169], initial_value(41 * 64 + 5));
  for (std::uint64_t i = 0; i < a.size(); ++i)
    a.write(i, 1000 + i);
  ASSERT_TRUE(c.flush());
  EXPECT_EQ(media_line(rig, m, 512, 41, 0)[5], 1169u);
  EXPECT_EQ(media_line(rig, m, 512, 41, 0)[6], initial_value(41 * 64 + 6));  // past the range
  EXPECT_EQ(media_line(rig, m, 512, 1, 0)[35], 1099u);
}

TEST(Cache, ArrayRefKeepsItsLinePinnedUntilItMoves) {
  host_rig rig(1, 1, 4096);
  host_cache c(config(512, 4, 32), rig.ssds(), rig.slot_memory());
  const bam::line_map m = map_of(c);
  fill_media(rig, m, 512, 32);
  const u64_array a(c.ref(), range<std::uint64_t>{0, 32 * 64});
  const auto state = [&](std::uint64_t line) {
    return bam::device_atomic_ref<std::uint32_t>(c.ref().meta().lines[line].state).load();
  };
  {
    bam::array_ref<std::uint64_t, bam::test::host_cache::ref_type> h(a);
    EXPECT_EQ(h[3], initial_value(3));
    EXPECT_EQ(h[60], initial_value(60));  // same line: no cache operation
    EXPECT_EQ(c.stats().accesses, 1u);
    h.write(10, 77);
    // Stream the rest of the dataset through the other 3 slots: line 0 must stay.
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 64; i < a.size(); ++i)
      wrong += a[i] != initial_value(i);
    EXPECT_EQ(wrong, 0u);
    EXPECT_TRUE(bam::line_state::is_valid(state(0)));
    EXPECT_EQ(bam::line_state::count(state(0)), 1u);
    EXPECT_EQ(h[10], 77u);
    EXPECT_EQ(h[64], initial_value(64));  // moves to line 1: line 0 released, dirty
    EXPECT_EQ(bam::line_state::count(state(0)), 0u);
    EXPECT_TRUE(bam::line_state::is_dirty(state(0)));
    EXPECT_EQ(bam::line_state::count(state(1)), 1u);
  }
  EXPECT_EQ(bam::line_state::count(state(1)), 0u);  // released by the destructor
  ASSERT_TRUE(c.flush());
  EXPECT_EQ(media_line(rig, m, 512, 0, 0)[10], 77u);
}

TEST(Cache, RejectsImpossibleConfigurations) {
  host_rig rig(1, 1, 1024);
  // Line sizes are the schema's to refuse (cache.line_size); the cache asserts them.
  for (std::uint32_t bad : {256u, 768u, 3000u, 131072u}) {
    try {
      host_cache c(config(bad, 4, 16), rig.ssds(), rig.slot_memory());
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("precondition failed"), std::string::npos) << e.what();
    }
  }
  // 1024 blocks of 512 B hold 128 lines of 4 KiB.
  EXPECT_THROW(host_cache(config(4096, 4, 129), rig.ssds(), rig.slot_memory()),
               std::invalid_argument);
  host_cache all(config(4096, 4, 0), rig.ssds(), rig.slot_memory());
  EXPECT_EQ(all.lines(), 128u);
}

}  // namespace
