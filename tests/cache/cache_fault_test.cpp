// The cache over NVMe queues whose controller (scripted_controller.hpp) fails chosen commands or
// holds them past the cache's I/O timeout: failed reads reach the application as failed
// accesses with their statuses counted; a slot whose read timed out stays in quarantine until
// the late completion is claimed, so the late data never lands in another line (shown against a
// storage that gives such slots back at once, as the cache did before); flush waits for a
// write-back that an eviction is running and reports an eviction's failed write-back.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/host_storage.hpp"
#include "bam/dma.hpp"
#include "scripted_controller.hpp"

namespace bam::test {

/// host_cache_storage whose reads never report a command still live: the cache gives a slot
/// whose read timed out back at once, as it did before the quarantine.
class no_quarantine_storage : public host_cache_storage {
 public:
  struct ref_type : host_cache_storage::ref_type {
    ref_type() = default;
    explicit ref_type(const host_cache_storage::ref_type& r) : host_cache_storage::ref_type(r) {}
    bool read_line(std::uint64_t line, std::uint32_t slot, cache_counters& c,
                   std::uint64_t& live) const {
      const bool ok = host_cache_storage::ref_type::read_line(line, slot, c, live);
      live = 0;
      return ok;
    }
  };
  using host_cache_storage::host_cache_storage;
  ref_type ref() const { return ref_type(host_cache_storage::ref()); }
};

/// Element i's value on the media.
inline std::uint64_t value(std::uint64_t i) {
  return (i + 1) * 0x9e3779b97f4a7c15ull;
}

/// One scripted SSD with 512 B lines (line l at LBA l), its media holding value(i), and a cache
/// over it.
template <class Storage>
struct fault_rig {
  static constexpr std::uint32_t per_line = 64;  // u64 per 512 B line
  using cache_type = cache<Storage>;
  using array_type = array<std::uint64_t, typename cache_type::ref_type>;

  fault_rig(std::uint64_t slots, std::chrono::milliseconds timeout, std::uint32_t queues = 1,
            cache_error_mode on_error = cache_error_mode::flag)
      : ctrl(queues, 64, lines), c(config(slots, timeout, on_error), ssds(ctrl), memory) {
    for (std::uint64_t i = 0; i < lines * per_line; ++i) {
      const std::uint64_t v = value(i);
      std::memcpy(ctrl.media(0) + i * 8, &v, 8);
    }
  }
  array_type elements() const {
    return array_type(c.ref(), range<std::uint64_t>{0, lines * per_line});
  }
  std::uint64_t media(std::uint64_t i) {
    std::uint64_t v = 0;
    std::memcpy(&v, ctrl.media(0) + i * 8, 8);
    return v;
  }
  /// Waits until no command is held and everything fetched was posted.
  void drain() {
    while (ctrl.holding() != 0 || ctrl.posted() != ctrl.fetched())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  static cache_config config(std::uint64_t slots, std::chrono::milliseconds timeout,
                             cache_error_mode on_error) {
    cache_config cc;
    cc.line_bytes = 512;
    cc.slots = slots;
    cc.lines = lines;
    cc.io_timeout_ns = static_cast<std::uint64_t>(timeout.count()) * 1'000'000;
    cc.on_error = on_error;
    return cc;
  }
  static std::vector<host_ssd> ssds(const scripted_controller& c) { return {c.ssd()}; }

  static constexpr std::uint64_t lines = 256;
  scripted_controller ctrl;
  host_identity_allocator memory;
  cache_type c;
};

}  // namespace bam::test

namespace {

using namespace std::chrono_literals;
using bam::test::fault_rig;
using bam::test::value;
using rule = bam::test::scripted_controller::rule;
constexpr std::uint64_t per_line = 64;

/// A read of line 0 held past the timeout, then lines 1 and 2 read into a cache of two slots;
/// returns what line 2 holds once the held read has landed.
template <class Storage>
std::uint64_t line_two_after_a_late_read(fault_rig<Storage>& r) {
  const auto a = r.elements();
  r.ctrl.add_rule(rule{.write = false, .lba = 0, .times = 1, .hold = 400ms});
  std::uint64_t v = 0;
  EXPECT_FALSE(a.try_read(5, v));  // line 0: times out after 100 ms
  EXPECT_EQ(a[per_line + 5], value(per_line + 5));
  EXPECT_EQ(a[2 * per_line + 5], value(2 * per_line + 5));
  r.drain();  // the held read ran: its data landed in the slot it named
  const bam::cache_stats s = r.c.stats();
  EXPECT_EQ(s.timeouts, 1u);
  EXPECT_EQ(s.io_errors, 1u);
  EXPECT_EQ(s.failed_accesses, 1u);
  EXPECT_EQ(s.errors_by_code.at(bam::nvme::sc::host_timeout.code()), 1u);
  return a[2 * per_line + 5];  // a hit: line 2 is resident
}

TEST(CacheQuarantine, WithoutItALateReadOverwritesTheLineLoadedIntoItsSlot) {
  fault_rig<bam::test::no_quarantine_storage> r(2, 100ms);
  // Line 0's slot went back cold, line 2 was loaded into it, and the late read overwrote it.
  EXPECT_EQ(line_two_after_a_late_read(r), value(5));
}

TEST(CacheQuarantine, ASlotWhoseReadTimedOutIsKeptOutOfUseUntilTheLateReadIsClaimed) {
  fault_rig<bam::host_cache_storage> r(2, 100ms);
  EXPECT_EQ(line_two_after_a_late_read(r), value(2 * per_line + 5));
  bam::cache_stats s = r.c.stats();
  EXPECT_EQ(s.quarantines, 1u);
  EXPECT_EQ(s.quarantine_returns, 0u);  // nothing claimed the late completion yet
  EXPECT_EQ(s.quarantined(), 1u);
  // Line 1 is read again (line 2 evicted from the only usable slot); its completion's consumer
  // claims the late one. Then line 0 gets the slot back from quarantine.
  const auto a = r.elements();
  EXPECT_EQ(a[per_line + 7], value(per_line + 7));
  EXPECT_EQ(a[7], value(7));
  for (std::uint64_t l = 0; l < 8; ++l) {
    for (std::uint64_t k = 0; k < per_line; k += 9)
      EXPECT_EQ(a[l * per_line + k], value(l * per_line + k)) << "line " << l;
  }
  s = r.c.stats();
  EXPECT_EQ(s.quarantines, 1u);
  EXPECT_EQ(s.quarantine_returns, 1u);
  EXPECT_EQ(s.failed_accesses, 1u);
  EXPECT_EQ(s.timeouts, 1u);
}

TEST(CacheQuarantine, AFetchFailsInsteadOfWaitingWhenEverySlotIsInQuarantine) {
  fault_rig<bam::host_cache_storage> r(1, 100ms);
  const auto a = r.elements();
  r.ctrl.add_rule(rule{.write = false, .lba = 0, .times = 1, .hold = 400ms});
  std::uint64_t v = 0;
  EXPECT_FALSE(a.try_read(0, v));
  EXPECT_FALSE(a.try_read(per_line, v));  // the only slot is in quarantine: no I/O, no wait
  bam::cache_stats s = r.c.stats();
  EXPECT_EQ(s.failed_accesses, 2u);
  EXPECT_EQ(s.io_errors, 1u);
  EXPECT_EQ(s.quarantines, 1u);
  r.drain();
  // The late completion stays unclaimed until the queue is used again. A flush of this cache,
  // which wrote nothing, sends no command; the next fetch finds every slot in quarantine and
  // makes the queue claim it (reap: an NVMe Flush through that queue).
  EXPECT_TRUE(r.c.flush());
  EXPECT_EQ(r.c.stats().quarantine_returns, 0u);
  EXPECT_EQ(a[per_line], value(per_line));
  EXPECT_EQ(a[3], value(3));
  s = r.c.stats();
  EXPECT_EQ(s.quarantine_returns, 1u);
}

TEST(CacheFaults, FailedReadsAreCountedByStatusAndReachTheApplication) {
  fault_rig<bam::host_cache_storage> r(4, 5000ms);
  const auto a = r.elements();
  r.ctrl.add_rule(rule{.lba = 5, .times = 1, .status = bam::nvme::sc::unrecovered_read_error});
  r.ctrl.add_rule(rule{.lba = 6, .times = 3, .status = bam::nvme::sc::lba_out_of_range});
  std::uint64_t v = 1;
  EXPECT_FALSE(a.try_read(5 * per_line, v));
  EXPECT_EQ(v, 1u);
  EXPECT_EQ(a[5 * per_line + 1], value(5 * per_line + 1));  // the rule is spent
  EXPECT_EQ(a.read(6 * per_line), 0u);                      // failure 1 of line 6
  a.write(6 * per_line, 42);                                // failure 2: dropped
  EXPECT_FALSE(a.try_write(6 * per_line, 43));              // failure 3
  EXPECT_EQ(a[6 * per_line], value(6 * per_line));          // nothing was written
  const bam::cache_stats s = r.c.stats();
  EXPECT_TRUE(s.io_failed());
  EXPECT_EQ(s.failed_accesses, 4u);
  EXPECT_EQ(s.io_errors, 4u);
  EXPECT_EQ(s.timeouts, 0u);
  EXPECT_EQ(s.quarantines, 0u);
  EXPECT_EQ(s.reads, 2u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.accesses, 6u);
  ASSERT_EQ(s.errors_by_code.size(), 2u);
  EXPECT_EQ(s.errors_by_code.at(bam::nvme::sc::unrecovered_read_error.code()), 1u);
  EXPECT_EQ(s.errors_by_code.at(bam::nvme::sc::lba_out_of_range.code()), 3u);
}

// ---- flush and eviction write-backs ----------------------------------------------------------

TEST(CacheFlush, WaitsForAWriteBackAnEvictionIsRunning) {
  fault_rig<bam::host_cache_storage> r(1, 5000ms);
  const auto a = r.elements();
  a.write(3, 1234);  // line 0, dirty in the only slot
  r.ctrl.add_rule(rule{.write = true, .lba = 0, .times = 1, .hold = 300ms});
  std::thread reader([&] { EXPECT_EQ(a[per_line], value(per_line)); });  // evicts line 0
  while (r.ctrl.writes_fetched() == 0)
    std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(r.c.flush());
  EXPECT_EQ(r.media(3), 1234u);  // on the media when flush returns
  reader.join();
  EXPECT_TRUE(r.c.flush());
}

TEST(CacheFlush, RewritesALineWhoseEvictionFailedWhileItWaitedAndReportsTheFailure) {
  fault_rig<bam::host_cache_storage> r(1, 5000ms);
  const auto a = r.elements();
  a.write(3, 1234);
  r.ctrl.add_rule(rule{
      .write = true, .lba = 0, .times = 1, .status = bam::nvme::sc::write_fault, .hold = 200ms});
  std::thread reader([&] { EXPECT_EQ(a[per_line], value(per_line)); });
  while (r.ctrl.writes_fetched() == 0)
    std::this_thread::sleep_for(1ms);
  EXPECT_FALSE(r.c.flush());     // the eviction's write-back failed ...
  EXPECT_EQ(r.media(3), 1234u);  // ... but the line is on the media when flush returns
  reader.join();
  EXPECT_TRUE(r.c.flush());
  EXPECT_EQ(r.c.stats().errors_by_code.at(bam::nvme::sc::write_fault.code()), 1u);
}

TEST(CacheFlush, TheNextFlushReportsAFailedEvictionWriteBack) {
  fault_rig<bam::host_cache_storage> r(2, 5000ms);
  const auto a = r.elements();
  a.write(3, 1234);                         // line 0 -> slot 0
  EXPECT_EQ(a[per_line], value(per_line));  // line 1 -> slot 1
  r.ctrl.add_rule(rule{.write = true, .lba = 0, .times = 1, .status = bam::nvme::sc::write_fault});
  EXPECT_EQ(a[2 * per_line], value(2 * per_line));  // line 0's write-back fails, line 1 goes
  EXPECT_EQ(r.media(3), value(3));
  EXPECT_FALSE(r.c.flush());  // writes line 0, reports the failure
  EXPECT_EQ(r.media(3), 1234u);
  EXPECT_TRUE(r.c.flush());
}

// ---- many threads, some reads held past the timeout or failing -------------------------------

TEST(CacheFaultsStress, EveryValueReadIsRightWhileReadsTimeOutAndFail) {
  constexpr std::uint32_t threads = 6, per_thread = 1500;
  fault_rig<bam::host_cache_storage> r(32, 50ms, 2);
  const auto a = r.elements();
  // Held (3x the timeout) and failing reads spread over the lines, several times each.
  for (std::uint64_t l = 0; l < fault_rig<bam::host_cache_storage>::lines; l += 13)
    r.ctrl.add_rule(rule{.lba = l, .times = 1, .hold = 150ms});
  for (std::uint64_t l = 3; l < fault_rig<bam::host_cache_storage>::lines; l += 11)
    r.ctrl.add_rule(rule{.lba = l, .times = 2, .status = bam::nvme::sc::unrecovered_read_error});
  std::atomic<std::uint64_t> wrong{0}, failed{0};
  std::vector<std::thread> pool;
  for (std::uint32_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937_64 g(t + 1);
      for (std::uint32_t k = 0; k < per_thread; ++k) {
        const std::uint64_t i = g() % (fault_rig<bam::host_cache_storage>::lines * per_line);
        std::uint64_t v = 0;
        if (!a.try_read(i, v)) {
          ++failed;
        } else if (v != value(i)) {
          ++wrong;
        }
      }
    });
  }
  for (auto& th : pool)
    th.join();
  EXPECT_EQ(wrong.load(), 0u);
  r.drain();
  // Every line read again, by threads on each queue in turn (host threads pick their queue by
  // index): their completions' consumers claim the late completions, and the slots leave
  // quarantine as the clock comes by.
  for (std::uint32_t pass = 0; pass < 3; ++pass) {
    std::thread([&] {
      for (std::uint64_t l = 0; l < fault_rig<bam::host_cache_storage>::lines; ++l) {
        std::uint64_t v = 0;
        for (int tries = 0; tries < 8 && !a.try_read(l * per_line + 1, v); ++tries)
          ++failed;
        EXPECT_EQ(v, value(l * per_line + 1)) << "line " << l;
      }
    }).join();
    r.drain();
  }
  r.drain();
  EXPECT_TRUE(r.c.flush());
  for (std::uint64_t l = 0; l < 16; ++l)
    EXPECT_EQ(a[l * per_line], value(l * per_line));
  const bam::cache_stats s = r.c.stats();
  EXPECT_EQ(s.failed_accesses, failed.load());
  EXPECT_EQ(s.io_errors,
            s.timeouts + s.errors_by_code.at(bam::nvme::sc::unrecovered_read_error.code()));
  EXPECT_GT(s.timeouts, 0u);
  EXPECT_EQ(s.quarantines, s.timeouts);
  EXPECT_EQ(s.quarantine_returns, s.quarantines);
  std::printf("  %llu failed accesses, %llu timeouts, %llu quarantines\n",
              static_cast<unsigned long long>(s.failed_accesses),
              static_cast<unsigned long long>(s.timeouts),
              static_cast<unsigned long long>(s.quarantines));
}

}  // namespace
