// The cache's error paths, over a host storage policy whose next reads or writes can be made to
// fail: a failed fetch returns T{} with the failure counted (cache::io_failed()) and leaves the
// line out of the cache (the next access fetches it again); the try_ accesses say they failed
// and change nothing; cache_error_mode::trap stops the program; a failed write-back on eviction
// keeps the victim resident and dirty (the clock moves on) and makes the next flush report it; a
// failed flush reports false and keeps the line dirty for the next one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/array/array_ref.hpp"
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
  bool read_line(std::uint64_t line, std::uint32_t slot, cache_counters& c, std::uint64_t&) const {
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
  bool io_live(std::uint64_t) const { return false; }
  void reap(std::uint64_t, cache_counters&) const {}

 private:
  static bool fail(std::uint32_t& left, cache_counters& c) {
    if (left == 0) return false;
    --left;
    c.add_error(nvme::sc::unrecovered_read_error);
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
    ok = c.flush_ssd(0) && ok;
    return !c.take_write_back_failure() && ok;
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

TEST(CacheErrors, AFailedFetchReturnsZeroSetsTheFlagAndTheNextAccessFetchesAgain) {
  flaky_cache c(config(4, 16), 16);
  const flaky_array a(c.ref(), bam::range<std::uint64_t>{0, 16 * 64});
  EXPECT_FALSE(c.io_failed());
  c.storage().plan.fail_reads = 1;
  EXPECT_EQ(a[70], 0u);                        // line 1: the read failed
  EXPECT_TRUE(c.io_failed());                  // ... and the flag says so
  EXPECT_EQ(state(c, 1), 0u);                  // not in the cache, no references left, not busy
  EXPECT_EQ(c.ref().meta().slots[0].tag, 0u);  // the slot went back cold (no read in flight)
  bam::cache_stats s = c.stats();
  EXPECT_EQ(s.io_errors, 1u);
  EXPECT_EQ(s.failed_accesses, 1u);
  EXPECT_EQ(s.misses, 0u);  // a failed access is neither hit nor miss
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.accesses, 1u);
  EXPECT_EQ(s.reads, 0u);
  EXPECT_EQ(s.quarantines, 0u);
  EXPECT_EQ(s.errors_by_code.size(), 1u);
  EXPECT_EQ(s.errors_by_code.at(bam::nvme::sc::unrecovered_read_error.code()), 1u);
  EXPECT_EQ(a[70], 70u * 3 + 1);
  EXPECT_EQ(a[71], 71u * 3 + 1);
  s = c.stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.failed_accesses, 1u);
  EXPECT_EQ(s.accesses, 3u);
  EXPECT_EQ(s.reads, 1u);
  EXPECT_EQ(s.evictions, 0u);
  c.reset_stats();
  EXPECT_FALSE(c.io_failed());
}

TEST(CacheErrors, AFailedWriteBackKeepsTheVictimDirtyEvictsAnotherAndFailsTheNextFlush) {
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
  // The flush writes line 0, but reports the failed write-back (once).
  EXPECT_FALSE(c.flush());
  EXPECT_EQ(c.storage().media(0), 100u);
  EXPECT_FALSE(bam::line_state::is_dirty(state(c, 0)));
  EXPECT_TRUE(c.flush());
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

namespace {

TEST(CacheErrors, TryAccessesSayTheyFailedAndChangeNothing) {
  flaky_cache c(config(4, 16), 16);
  const flaky_array a(c.ref(), bam::range<std::uint64_t>{0, 16 * 64});
  auto& plan = c.storage().plan;
  std::uint64_t v = 7, old = 5;
  plan.fail_reads = 1;
  EXPECT_FALSE(a.try_read(3, v));
  EXPECT_EQ(v, 7u);
  plan.fail_reads = 1;
  EXPECT_FALSE(a.try_write(3, 99));
  plan.fail_reads = 1;
  EXPECT_FALSE(a.try_atomic_add(3, 1, old));
  EXPECT_EQ(old, 5u);
  EXPECT_TRUE(a.try_read(3, v));
  EXPECT_EQ(v, 3u * 3 + 1);  // nothing was written or added
  bam::cache_stats s = c.stats();
  EXPECT_EQ(s.failed_accesses, 3u);
  EXPECT_EQ(s.io_errors, 3u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.accesses, 4u);

  // The accesses without a status: counted, T{} returned, the value dropped.
  plan.fail_reads = 1;
  a.write(128, 1);
  plan.fail_reads = 1;
  EXPECT_EQ(a.atomic_add(128, 5), 0u);
  plan.fail_reads = 1;
  EXPECT_EQ(a.read(128), 0u);
  EXPECT_EQ(a[128], 128u * 3 + 1);
  s = c.stats();
  EXPECT_EQ(s.failed_accesses, 6u);
  EXPECT_EQ(s.io_errors, 6u);
  EXPECT_EQ(s.errors_by_code.at(bam::nvme::sc::unrecovered_read_error.code()), 6u);

  // array_ref: the same, one access per line change.
  {
    bam::array_ref<std::uint64_t, flaky_cache::ref_type> h(a);
    plan.fail_reads = 1;
    EXPECT_FALSE(h.try_read(200, v));
    EXPECT_FALSE(h.holds_line());
    plan.fail_reads = 1;
    EXPECT_EQ(h.read(200), 0u);
    plan.fail_reads = 1;
    EXPECT_FALSE(h.try_write(200, 1));
    plan.fail_reads = 1;
    h.write(200, 2);
    plan.fail_reads = 1;
    EXPECT_EQ(h.atomic_add(200, 3), 0u);
    EXPECT_EQ(h.read(200), 200u * 3 + 1);
    EXPECT_TRUE(h.holds_line());
  }
  s = c.stats();
  EXPECT_EQ(s.failed_accesses, 11u);
  EXPECT_EQ(s.io_errors, 11u);
  EXPECT_EQ(s.hits + s.misses + s.failed_accesses, s.accesses);
  EXPECT_TRUE(c.io_failed());
  EXPECT_EQ(s.errors_by_code.size(), 1u);
}

TEST(CacheErrorsDeathTest, TrapModeStopsAtAFailedAccessThatHadToSucceed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  bam::cache_config cc = config(4, 16);
  cc.on_error = bam::cache_error_mode::trap;
  flaky_cache c(cc, 16);
  const flaky_array a(c.ref(), bam::range<std::uint64_t>{0, 16 * 64});
  auto& plan = c.storage().plan;
  std::uint64_t v = 0;
  plan.fail_reads = 1;
  EXPECT_FALSE(a.try_read(3, v));  // the try_ accesses never trap
  plan.fail_reads = 1;
  EXPECT_DEATH(a.read(3), "an array access failed");
  EXPECT_DEATH(a.write(3, 1), "an array access failed");
  EXPECT_DEATH(a.atomic_add(3, 1), "an array access failed");
  plan.fail_reads = 0;
  EXPECT_EQ(a[3], 3u * 3 + 1);
}

}  // namespace
