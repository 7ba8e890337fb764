// ordering_read_ref (the §4.4 coalesced extra read) on the host, against the host emulated
// controller: off does nothing, sequential calls read once each, queued calls share one read,
// and many threads finish with every position covered and every read accounted for; an
// application read submitted after positions were taken (its mark) covers them without an extra
// read, a mark at or below the head covers nothing, nor one past the caller's own position, and
// a thread alone still gets its own. The holder's read goes through either protocol of its
// queue: shared (BaM's) or held (queue_use::exclusive, submit_and_wait_held); the tests that
// issue reads run with both, and one checks that the exclusive queue's reads are held (command
// ID 0 each) and come back to the hold after a timeout left an ID in flight.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/queue/ordering_read.hpp"
#include "bam/queue/read_ordering.hpp"

namespace {
using namespace bam;

struct fixture {
  emu::emulated_controller ctrl{options()};
  controller_driver drv{(ctrl.start(), ctrl.bar()), ctrl.allocator()};
  io_queue_pair qp = drv.create_io_queue_pair(64);
  io_queue_pair app = drv.create_io_queue_pair(64);  ///< the application's reads (covers)
  dma_buffer scratch{ctrl.allocator(), 4096};
  dma_buffer data{ctrl.allocator(), 4096};
  ordering_state state{};
  /// The ordering reads' timeout (a run's is command_timeout_ns: 30 s without faults).
  static constexpr std::uint64_t timeout_ns = 30'000'000'000;

  static emu::controller_options options() {
    emu::controller_options o;
    o.lba_size = 512;
    o.namespace_lbas = 1024;
    o.worker_threads = 1;
    return o;
  }
  /// The ordering read on qp (nothing else submits to it), through the protocol `Use`.
  template <queue_use Use = queue_use::shared>
  ordering_read_ref<memory_doorbell, cuda::thread_scope_device, Use> policy(
      std::uint64_t lba = 7, std::uint64_t timeout = timeout_ns) {
    return {&state, qp.ref(), scratch.bus_address(), 1, lba, 1, timeout};
  }
  /// The command ID of the ordering queue's completion at position `pos` (entries from 0), once
  /// passed (the waiter's acquire of it ordered the controller's writes before this read).
  std::uint16_t ordering_cid(std::uint64_t pos) {
    const queue_pointers p = qp.ref().pointers();  // a copy: ref() is a temporary
    return p.cq[pos % p.cq_entries].cid;
  }
  std::uint64_t reads_served() const {
    return ctrl.stats().io_commands[static_cast<int>(nvme::nvm_opcode::read)];
  }
  std::uint64_t load(std::uint64_t& w) { return std::atomic_ref<std::uint64_t>(w).load(); }
  /// An application read of LBA `lba` on the same controller, as block_io submits one after
  /// taking its mark: true when it completed without error.
  bool app_read(std::uint64_t lba) {
    const nvme::completion c =
        app.ref().submit_and_wait(nvme::read(1, lba, 1, {data.bus_address(), 0}), timeout_ns);
    return c.status().ok();
  }
};

// Which queue sets issue their reads with the ordering (read_ordering.hpp), checked at compile
// time: the ordered set is, a plain one is not, and a set with an after_read but no
// ordering_mark is refused (read_mark / read_ordered do not compile with it).
struct after_read_only {
  bool after_read(std::uint32_t) const { return true; }
};
struct after_read_mark_only {
  bool after_read(std::uint32_t, std::uint64_t) const { return true; }
};
static_assert(ordered_reads<ordered_queue_set<memory_doorbell>>);
static_assert(!ordered_reads<queue_set_ref<memory_doorbell>>);
static_assert(!half_ordered_reads<ordered_queue_set<memory_doorbell>>);
static_assert(!half_ordered_reads<queue_set_ref<memory_doorbell>>);
static_assert(half_ordered_reads<after_read_only>);
static_assert(half_ordered_reads<after_read_mark_only>);

TEST(OrderingRead, ReadMarkAndReadOrderedOnASetWithoutOrderingDoNothing) {
  const queue_set_ref<memory_doorbell> plain;
  EXPECT_EQ(read_mark(plain, 0), 0u);
  EXPECT_TRUE(read_ordered(plain, 0, 7));
}

// The tests of the holder's read, with either protocol of its queue.
template <class Use>
class OrderingReadUse : public ::testing::Test {};
using uses = ::testing::Types<std::integral_constant<queue_use, queue_use::shared>,
                              std::integral_constant<queue_use, queue_use::exclusive>>;
struct use_names {
  template <class Use>
  static std::string GetName(int) {
    return Use::value == queue_use::shared ? "Shared" : "Exclusive";
  }
};
TYPED_TEST_SUITE(OrderingReadUse, uses, use_names);

TEST(OrderingRead, OffDoesNothing) {
  fixture f;
  const ordering_read_ref<memory_doorbell> off;
  EXPECT_FALSE(off.enabled());
  off.after_completion();
  EXPECT_EQ(f.reads_served(), 0u);
}

TYPED_TEST(OrderingReadUse, EachSequentialCallReadsOnce) {
  fixture f;
  const auto p = f.policy<TypeParam::value>();
  EXPECT_TRUE(p.enabled());
  for (int i = 0; i < 5; ++i)
    p.after_completion();
  EXPECT_EQ(f.reads_served(), 5u);
  EXPECT_EQ(f.load(f.state.reads), 5u);
  EXPECT_EQ(f.load(f.state.errors), 0u);
  EXPECT_EQ(f.load(f.state.tail), 5u);
  EXPECT_EQ(f.load(f.state.head), 5u);
}

TYPED_TEST(OrderingReadUse, ThreadsQueuedBehindTheLockShareOneRead) {
  fixture f;
  const auto p = f.policy<TypeParam::value>();
  std::atomic_ref<std::uint32_t>(f.state.lock).store(1);  // as if a read were in progress
  constexpr int n = 8;
  std::atomic<int> returned{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&] {
      p.after_completion();
      returned.fetch_add(1);
    });
  while (f.load(f.state.tail) != n)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(returned.load(), 0);  // nobody is covered before a read
  EXPECT_EQ(f.reads_served(), 0u);
  std::atomic_ref<std::uint32_t>(f.state.lock).store(0);
  for (auto& t : ts)
    t.join();
  EXPECT_EQ(returned.load(), n);
  EXPECT_EQ(f.reads_served(), 1u);  // the first lock holder covered all eight
  EXPECT_EQ(f.load(f.state.reads), 1u);
  EXPECT_EQ(f.load(f.state.head), std::uint64_t{n});
}

TYPED_TEST(OrderingReadUse, ManyThreadsAllCoveredEveryReadCounted) {
  fixture f;
  const auto p = f.policy<TypeParam::value>();
  constexpr int threads = 12, calls = 150;
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i)
    ts.emplace_back([&] {
      for (int k = 0; k < calls; ++k)
        p.after_completion();
    });
  for (auto& t : ts)
    t.join();
  const std::uint64_t reads = f.load(f.state.reads);
  EXPECT_EQ(f.load(f.state.tail), std::uint64_t{threads * calls});
  EXPECT_EQ(f.load(f.state.head), std::uint64_t{threads * calls});  // the last read covers all
  EXPECT_GE(reads, 1u);
  EXPECT_LE(reads, std::uint64_t{threads * calls});
  EXPECT_EQ(f.reads_served(), reads);
  EXPECT_EQ(f.load(f.state.errors), 0u);
}

// Four threads wait behind a held lock (as if an extra read were in flight). A read submitted
// after their positions were taken (its mark, 4) completes: its thread raises the head to 4 and
// the four return, with no extra read served. The covering thread's own position (4) is not
// covered by its read; it gets the extra read once the lock is free.
TYPED_TEST(OrderingReadUse, AnApplicationReadSubmittedAfterThePositionsCoversThem) {
  fixture f;
  const auto p = f.policy<TypeParam::value>();
  std::atomic_ref<std::uint32_t>(f.state.lock).store(1);
  constexpr int n = 4;
  std::atomic<int> returned{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&] {
      EXPECT_TRUE(p.after_completion());
      returned.fetch_add(1);
    });
  while (f.load(f.state.tail) != n)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(returned.load(), 0);
  const std::uint64_t mark = p.mark();
  EXPECT_EQ(mark, std::uint64_t{n});
  EXPECT_TRUE(f.app_read(3));  // (not ASSERT: the waiters must be let go and joined below)
  std::atomic<bool> coverer_done{false};
  std::thread coverer([&] {
    EXPECT_TRUE(p.after_completion(mark));
    coverer_done = true;
  });
  // Covered by the application's read while the lock is still held (5 s at most, then the
  // lock is let go so that nobody waits for ever).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (returned.load() != n && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(returned.load(), n) << "the application's read covered the positions before its mark";
  EXPECT_EQ(f.load(f.state.reads), 0u);
  EXPECT_EQ(f.reads_served(), 1u);  // the application's read only
  EXPECT_EQ(f.load(f.state.head), std::uint64_t{n});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(coverer_done.load()) << "a read covers the positions before its mark, not its own";
  std::atomic_ref<std::uint32_t>(f.state.lock).store(0);
  for (auto& t : ts)
    t.join();
  coverer.join();
  EXPECT_EQ(f.load(f.state.reads), 1u);
  EXPECT_EQ(f.reads_served(), 2u);
  EXPECT_EQ(f.load(f.state.head), std::uint64_t{n} + 1);
  EXPECT_EQ(f.load(f.state.tail), std::uint64_t{n} + 1);
}

// A thread alone on its controller (QD1): the mark before each of its reads is the head its
// last call left, so it covers nothing and every call still gets an extra read of its own.
TYPED_TEST(OrderingReadUse, AThreadAloneStillGetsAnExtraReadAfterEachRead) {
  fixture f;
  const auto p = f.policy<TypeParam::value>();
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t mark = p.mark();
    EXPECT_EQ(mark, static_cast<std::uint64_t>(i));
    ASSERT_TRUE(f.app_read(static_cast<std::uint64_t>(i)));
    EXPECT_TRUE(p.after_completion(mark));
    EXPECT_EQ(f.load(f.state.head), static_cast<std::uint64_t>(i) + 1);
  }
  EXPECT_EQ(f.load(f.state.reads), 5u);
  EXPECT_EQ(f.reads_served(), 10u);
}

// Threads that each take a mark, read on the application's queue and call after_completion with
// their mark: every call returns covered, the head never passes a position that was not taken
// (it ends at the tail), and every extra read is served and counted.
TYPED_TEST(OrderingReadUse, ManyThreadsCoveredByEachOthersReads) {
  fixture f;
  const auto p = f.policy<TypeParam::value>();
  constexpr int threads = 8, calls = 100;
  std::atomic<int> uncovered{0}, failed_reads{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i)
    ts.emplace_back([&, i] {
      for (int k = 0; k < calls; ++k) {
        const std::uint64_t mark = p.mark();
        if (!f.app_read(static_cast<std::uint64_t>((i * calls + k) % 1000))) ++failed_reads;
        if (!p.after_completion(mark)) ++uncovered;
        EXPECT_LE(f.load(f.state.head), f.load(f.state.tail));
      }
    });
  for (auto& t : ts)
    t.join();
  EXPECT_EQ(failed_reads.load(), 0);
  EXPECT_EQ(uncovered.load(), 0);
  const std::uint64_t reads = f.load(f.state.reads);
  EXPECT_EQ(f.load(f.state.tail), std::uint64_t{threads * calls});
  EXPECT_EQ(f.load(f.state.head), std::uint64_t{threads * calls});
  EXPECT_GE(reads, 1u);
  EXPECT_LE(reads, std::uint64_t{threads * calls});
  EXPECT_EQ(f.reads_served(), reads + threads * calls);
  EXPECT_EQ(f.load(f.state.errors), 0u);
}

// A mark above the caller's own position cannot be this drive's since its state was zeroed (one
// taken before a reset, or another drive's): it covers nothing, and the caller still gets its
// extra read.
TYPED_TEST(OrderingReadUse, AMarkPastTheCallersPositionCoversNothing) {
  fixture f;
  const auto p = f.policy<TypeParam::value>();
  EXPECT_TRUE(p.after_completion(5));  // position 0
  EXPECT_EQ(f.load(f.state.reads), 1u);
  EXPECT_EQ(f.load(f.state.head), 1u);
  EXPECT_EQ(f.load(f.state.tail), 1u);
}

TYPED_TEST(OrderingReadUse, AFailedReadStillCoversAndIsCounted) {
  fixture f;
  // LBA beyond the namespace: the controller fetches the command and fails it.
  const auto p = f.policy<TypeParam::value>(1u << 20);
  EXPECT_TRUE(p.after_completion()) << "a completion, even an error, proves the fetch";
  EXPECT_EQ(f.load(f.state.reads), 1u);
  EXPECT_EQ(f.load(f.state.errors), 1u);
  EXPECT_EQ(f.load(f.state.timeouts), 0u);
  EXPECT_EQ(f.load(f.state.head), 1u);
}

// A controller that does not answer: the ordering read times out, every thread it covered is
// told (false) in bounded time, nobody waits for ever; once the controller answers again the
// next calls are covered (true).
TYPED_TEST(OrderingReadUse, AReadWithoutCompletionEndsInBoundedTimeAndIsReported) {
  fixture f;
  const auto p = f.policy<TypeParam::value>(7, 20'000'000);
  f.ctrl.stop();
  const auto t0 = std::chrono::steady_clock::now();
  constexpr int n = 4;
  std::atomic<int> told{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&] { told.fetch_add(p.after_completion() ? 0 : 1); });
  for (auto& t : ts)
    t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);
  EXPECT_EQ(told.load(), n) << "every covered thread learns that its ordering failed";
  EXPECT_GE(f.load(f.state.timeouts), 1u);
  EXPECT_EQ(f.load(f.state.timeouts), f.load(f.state.reads));
  EXPECT_EQ(f.load(f.state.head), std::uint64_t{n});
  EXPECT_EQ(f.load(f.state.failed_upto), std::uint64_t{n});
  f.ctrl.start();
  // The reads after the restart with the run's timeout (the short one is for the stopped
  // controller only): on an exclusive queue the first passes the late completions too.
  EXPECT_TRUE(f.policy<TypeParam::value>().after_completion());
  EXPECT_EQ(f.load(f.state.head), std::uint64_t{n} + 1);
}

// On its own queue the holder holds it for each read: every read has command ID 0, where BaM's
// shared protocol takes the ticket's ID (0, 1, 2, ...). A read that timed out leaves ID 0 in
// flight: the next read finds the queue not idle and goes through the shared protocol (another
// ID), passing the late completion itself; once the queue is idle again the reads are held.
TEST(OrderingRead, AnExclusiveQueuesReadsAreHeldAndComeBackToTheHoldAfterATimeout) {
  {
    fixture f;
    const auto p = f.policy<queue_use::shared>();
    for (int i = 0; i < 4; ++i)
      ASSERT_TRUE(p.after_completion());
    for (std::uint64_t i = 0; i < 4; ++i)
      EXPECT_EQ(f.ordering_cid(i), i) << "shared: the ticket's ID";
  }
  fixture f;
  // One policy whose reads must complete (the run's long timeout), one for the read that must
  // time out while the controller is stopped: the same state and queue.
  const auto p = f.policy<queue_use::exclusive>();
  const auto short_wait = f.policy<queue_use::exclusive>(7, 50'000'000);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(p.after_completion());
  for (std::uint64_t i = 0; i < 4; ++i)
    EXPECT_EQ(f.ordering_cid(i), 0u) << "held: ID 0";

  f.ctrl.stop();
  EXPECT_FALSE(short_wait.after_completion());  // held, timed out: ID 0 abandoned in flight
  EXPECT_EQ(f.load(f.state.timeouts), 1u);
  f.ctrl.start();
  EXPECT_TRUE(p.after_completion());  // not idle: shared, its own and the late completion
  EXPECT_TRUE(p.after_completion());  // idle again: held
  EXPECT_EQ(f.load(f.state.reads), 7u);
  EXPECT_EQ(f.reads_served(), 7u);
  EXPECT_EQ(f.ordering_cid(4), 0u);  // the read that timed out, completed late
  EXPECT_NE(f.ordering_cid(5), 0u);  // the shared protocol's
  EXPECT_EQ(f.ordering_cid(6), 0u);  // held again
  const queue_counters& c = *f.qp.ref().pointers().counters;
  EXPECT_EQ(std::atomic_ref<const std::uint64_t>(c.late_completions).load(), 1u);
  EXPECT_EQ(std::atomic_ref<const std::uint32_t>(c.abandoned).load(), 0u);
  EXPECT_EQ(std::atomic_ref<const std::uint32_t>(c.failed).load(), 0u);
}

}  // namespace
