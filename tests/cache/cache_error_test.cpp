// The cache's I/O error paths, over a host storage policy whose next reads or writes can be
// made to fail: a failed fetch returns T{} and leaves the line out of the cache (the next access
// fetches it again); a failed write-back on eviction keeps the victim resident and dirty (the
// clock moves on); a failed flush reports false and keeps the line dirty for the next one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"

namespace bam::test {

/// Fails the next `fail_reads` reads / `fail_writes` writes; the media is host memory.
struct failure_plan {
  std::uint32_t fail_reads = 0, fail_writes = 0;
};

class flaky_storage_ref {
 public:
  flaky_storage_ref() = default;
  flaky_storage_ref(std::uint64_t* media, std::byte* slots, std::uint32_t line_bytes,
                    failure_plan* plan)
      : media_(media), slots_(slots), line_bytes_(line_bytes), plan_(plan) {}
  std::uint32_t ssds() const { return 1; }
  std::byte* slot_data(std::uint32_t slot) const {
    return slots_ + std::size_t{slot} * line_bytes_;
  }
  bool read_line(std::uint64_t line, std::uint32_t slot, cache_counters& c) const {
    if (fail(plan_->fail_reads, c)) return false;
    std::memcpy(slot_data(slot), media_ + line * (line_bytes_ / 8), line_bytes_);
    c.add(c.reads, 1);
    return true;
  }
  bool write_line(std::uint64_t line, std::uint32_t slot, cache_counters& c) const {
    if (fail(plan_->fail_writes, c)) return false;
    std::memcpy(media_ + line * (line_bytes_ / 8), slot_data(slot), line_bytes_);
    c.add(c.writes, 1);
    return true;
  }
  bool flush_ssd(std::uint32_t, cache_counters&) const { return true; }

 private:
  static bool fail(std::uint32_t& left, cache_counters& c) {
    if (left == 0) return false;
    --left;
    c.add(c.io_errors, 1);
    return true;
  }
  std::uint64_t* media_ = nullptr;
  std::byte* slots_ = nullptr;
  std::uint32_t line_bytes_ = 0;
  failure_plan* plan_ = nullptr;
};

class flaky_storage {
 public:
  using ref_type = flaky_storage_ref;
  flaky_storage(const cache_config& cfg, std::uint64_t lines)
      : cfg_(cfg), media_(lines * cfg.line_bytes / 8), slots_(cfg.slots * cfg.line_bytes) {
    for (std::uint64_t i = 0; i < media_.size(); ++i)
      media_[i] = i * 3 + 1;
  }
  ref_type ref() const {
    return ref_type(const_cast<std::uint64_t*>(media_.data()),
                    const_cast<std::byte*>(slots_.data()), cfg_.line_bytes, &plan);
  }
  std::uint64_t line_capacity() const { return media_.size() * 8 / cfg_.line_bytes; }
  std::uint32_t ssds() const { return 1; }
  std::size_t slot_bytes() const { return slots_.size(); }
  std::size_t prp_bytes() const { return 0; }
  void* allocate_zeroed(std::size_t bytes) const {
    void* p = std::aligned_alloc(128, (bytes + 127) / 128 * 128);
    if (p == nullptr) throw std::bad_alloc();
    std::memset(p, 0, (bytes + 127) / 128 * 128);
    return p;
  }
  void deallocate(void* p) const noexcept { std::free(p); }
  void read_counters(cache_counters& out, const cache_counters* in) const { out = *in; }
  void zero_counters(cache_counters* c) const { *c = cache_counters{}; }
  template <class CacheRef>
  bool flush(const CacheRef& c, std::uint64_t first, std::uint64_t last) const {
    bool ok = true;
    for (std::uint64_t s = 0; s < c.slots(); ++s)
      ok = c.flush_slot(s, first, last) && ok;
    return c.flush_ssd(0) && ok;
  }
  template <class CacheRef>
  static void preload() {}

  std::uint64_t media(std::uint64_t i) const { return media_[i]; }
  mutable failure_plan plan;

 private:
  cache_config cfg_;
  std::vector<std::uint64_t> media_;
  std::vector<std::byte> slots_;
};

}  // namespace bam::test

namespace {

using bam::test::flaky_storage;
using flaky_cache = bam::cache<flaky_storage>;
using flaky_array = bam::array<std::uint64_t, flaky_cache::ref_type>;

bam::cache_config config(std::uint64_t slots, std::uint64_t lines) {
  bam::cache_config c;
  c.line_bytes = 512;
  c.slots = slots;
  c.lines = lines;
  return c;
}

std::uint32_t state(const flaky_cache& c, std::uint64_t line) {
  return c.ref().meta().lines[line].state;
}

TEST(CacheErrors, AFailedFetchReturnsZeroAndTheNextAccessFetchesAgain) {
  flaky_cache c(config(4, 16), 16);
  const flaky_array a(c.ref(), bam::range<std::uint64_t>{0, 16 * 64});
  c.storage().plan.fail_reads = 1;
  EXPECT_EQ(a[70], 0u);                        // line 1: the read failed
  EXPECT_EQ(state(c, 1), 0u);                  // not in the cache, no references left, not busy
  EXPECT_EQ(c.ref().meta().slots[0].tag, 0u);  // the slot went back cold
  bam::cache_stats s = c.stats();
  EXPECT_EQ(s.io_errors, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.reads, 0u);
  EXPECT_EQ(a[70], 70u * 3 + 1);
  EXPECT_EQ(a[71], 71u * 3 + 1);
  s = c.stats();
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.reads, 1u);
  EXPECT_EQ(s.evictions, 0u);
}

TEST(CacheErrors, AFailedWriteBackKeepsTheVictimDirtyAndEvictsAnother) {
  flaky_cache c(config(2, 16), 16);
  const flaky_array a(c.ref(), bam::range<std::uint64_t>{0, 16 * 64});
  a.write(0, 100);   // line 0 -> slot 0
  a.write(64, 101);  // line 1 -> slot 1
  c.storage().plan.fail_writes = 1;
  EXPECT_EQ(a[128], 128u * 3 + 1);  // line 2: slot 0's write-back fails, slot 1's succeeds
  bam::cache_stats s = c.stats();
  EXPECT_EQ(s.io_errors, 1u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.write_backs, 1u);
  EXPECT_TRUE(bam::line_state::is_valid(state(c, 0)));
  EXPECT_TRUE(bam::line_state::is_dirty(state(c, 0)));
  EXPECT_FALSE(bam::line_state::is_busy(state(c, 0)));
  EXPECT_EQ(state(c, 1), 0u);  // evicted
  EXPECT_EQ(c.storage().media(64), 101u);
  EXPECT_EQ(c.storage().media(0), 1u);  // not written yet
  EXPECT_EQ(a[0], 100u);                // still served from the cache
  ASSERT_TRUE(c.flush());
  EXPECT_EQ(c.storage().media(0), 100u);
}

TEST(CacheErrors, AFailedFlushReportsFalseAndTheNextFlushWrites) {
  flaky_cache c(config(4, 16), 16);
  const flaky_array a(c.ref(), bam::range<std::uint64_t>{0, 16 * 64});
  a.write(5, 55);
  c.storage().plan.fail_writes = 1;
  EXPECT_FALSE(c.flush());
  EXPECT_TRUE(bam::line_state::is_dirty(state(c, 0)));
  EXPECT_EQ(c.storage().media(5), 16u);
  EXPECT_TRUE(c.flush());
  EXPECT_FALSE(bam::line_state::is_dirty(state(c, 0)));
  EXPECT_EQ(c.storage().media(5), 55u);
  EXPECT_EQ(c.stats().write_backs, 1u);
  EXPECT_EQ(c.stats().io_errors, 1u);
}

}  // namespace
