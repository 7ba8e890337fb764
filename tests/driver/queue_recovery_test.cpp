// bam::queue_recovery (the host driver's answer to commands that do not come back) against the
// host emulated controller with dropped completions: an Abort gives every dropped command's ID
// back, far more drops than the queue has IDs; an Abort that finds nothing ends in the queue
// being deleted, created again and reset, and the I/O after it verifies; an admin queue that
// does not answer leaves the queue failed in bounded time. Also the user count that a reset
// waits for (queue_pair::quiesce). Label unit: runs under ThreadSanitizer too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bam/dma.hpp"
#include "bam/driver/controller_driver.hpp"
#include "bam/driver/queue_recovery.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/held_commands.hpp"

namespace {
using namespace bam;
namespace sc = nvme::sc;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// Waits (bounded by `limit`) until `done()` holds; true if it did.
template <class Pred>
bool eventually(Pred done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = clock_type::now() + limit;
  while (!done()) {
    if (clock_type::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

/// The same memory as another allocator, but not the driver's: rings from it are "the owner's".
class other_allocator final : public dma_allocator {
 public:
  explicit other_allocator(dma_allocator& base) : base_(&base) {}
  dma_region allocate(std::size_t bytes) override { return base_->allocate(bytes); }
  void free(dma_region& region) noexcept override { base_->free(region); }
  std::uint32_t page_size_log2() const override { return base_->page_size_log2(); }

 private:
  dma_allocator* base_;
};

emu::controller_options options(double drop, bool abort_finds = true) {
  emu::controller_options o;
  o.lba_size = 512;
  o.namespace_lbas = 8192;
  o.max_io_queue_pairs = 8;
  o.worker_threads = 1;
  o.timeout_500ms = 2;  // CAP.TO 1 s: the admin timeout and the shutdown's bound
  o.faults.drop_fraction = drop;
  o.faults.seed = 29;
  o.abort_finds_commands = abort_finds;
  return o;
}

/// The 512 bytes LBA `lba` holds after the writes: its number in every 8-byte word, tagged.
void fill(std::uint8_t* p, std::uint64_t lba) {
  for (std::uint64_t w = 0; w < 64; ++w) {
    const std::uint64_t v = (lba << 16) ^ w ^ 0xb10c'0000'0000'0000ULL;
    std::memcpy(p + w * 8, &v, 8);
  }
}
bool holds(const std::uint8_t* p, std::uint64_t lba) {
  std::uint8_t want[512];
  fill(want, lba);
  return std::memcmp(p, want, 512) == 0;
}

struct io_tally {
  std::atomic<std::uint64_t> failed_tries{0}, verified{0}, mismatches{0}, given_up{0};
};

struct rig {
  emu::emulated_controller ctrl;
  controller_driver drv;
  io_queue_pair pair;
  queue_recovery rec;

  rig(double drop, bool abort_finds, std::uint64_t timeout_ns, std::uint32_t depth = 16)
      : ctrl(options(drop, abort_finds)),
        drv((ctrl.start(), ctrl.bar()), ctrl.allocator()),
        pair(drv.create_io_queue_pair(depth)),
        rec(recovery_options{timeout_ns, 500, 0.25}) {
    rec.watch(drv, pair);
  }

  /// `threads` threads over the queue pair: each writes its LBAs, then reads them back and checks
  /// them; a command that fails (dropped: timed out; or its queue failed during a recovery) is
  /// tried again, at most `tries` times. Submissions wait without a deadline (a stalled one
  /// would fail the queue: the tests count recoveries).
  void run(int threads, std::uint64_t lbas_each, std::uint64_t timeout_ns, io_tally& t) {
    constexpr int tries = 400;
    // What a broken recovery would make of this: every thread gives up by then.
    const auto give_up_at = clock_type::now() + std::chrono::seconds(60);
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k) {
      pool.emplace_back([&, k] {
        // Each thread its own buffer; a command that timed out may still be held by the
        // controller, so the buffer is reused only once the queue gave its ID back.
        dma_buffer buf(ctrl.allocator(), 4096);
        const auto q = pair.ref();
        auto io = [&](bool write, std::uint64_t lba) {
          for (int i = 0; i < tries && clock_type::now() < give_up_at; ++i) {
            if (write) fill(buf.as<std::uint8_t>(), lba);
            nvme::command cmd = write ? nvme::write(1, lba, 1, {buf.bus_address(), 0})
                                      : nvme::read(1, lba, 1, {buf.bus_address(), 0});
            const std::uint16_t cid = q.submit(cmd);
            const nvme::completion c = q.wait_for(cid, timeout_ns);
            if (c.status().ok()) return true;
            t.failed_tries.fetch_add(1);
            while (cid != q.no_cid && q.abandoned(cid) && clock_type::now() < give_up_at)
              std::this_thread::sleep_for(std::chrono::microseconds(200));
            if (q.failed()) std::this_thread::sleep_for(std::chrono::microseconds(500));
          }
          t.given_up.fetch_add(1);
          return false;
        };
        const std::uint64_t first = static_cast<std::uint64_t>(k) * lbas_each;
        for (std::uint64_t l = first; l < first + lbas_each; ++l)
          io(true, l);
        for (std::uint64_t l = first; l < first + lbas_each; ++l) {
          if (!io(false, l)) continue;
          t.verified.fetch_add(1);
          if (!holds(buf.as<std::uint8_t>(), l)) t.mismatches.fetch_add(1);
        }
      });
    }
    for (auto& th : pool)
      th.join();
  }

  /// Waits (bounded) until the queue holds no abandoned ID: the last Aborts were passed.
  void settle() {
    const auto deadline = clock_type::now() + std::chrono::seconds(20);
    while (pair.queue().stats().abandoned != 0 && clock_type::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
};

// Far more dropped commands than the queue has command IDs: each one's wait times out, the
// watchdog's Abort finds it, its Abort Requested completion gives the ID back. Without the
// Abort the queue fails at half its IDs abandoned and nothing after that succeeds.
TEST(QueueRecovery, AbortGivesBackTheIdOfEveryDroppedCommand) {
  constexpr std::uint64_t timeout = 20'000'000;  // 20 ms
  rig r(0.3, true, timeout);
  const std::uint32_t ids = r.pair.queue().pointers().cid_count;
  ASSERT_EQ(ids, 1024u);
  r.rec.start();
  io_tally t;
  const auto t0 = clock_type::now();
  r.run(16, 120, timeout, t);
  r.settle();
  r.rec.stop();
  const double s = seconds_since(t0);

  const emu::controller_stats cs = r.ctrl.stats();
  const recovery_counts rc = r.rec.counts();
  EXPECT_EQ(t.given_up.load(), 0u);
  EXPECT_EQ(t.verified.load(), 16u * 120);
  EXPECT_EQ(t.mismatches.load(), 0u);
  EXPECT_GT(cs.injected_drops, ids) << "not more drops than IDs: the test shows nothing";
  // Every dropped command ended by an Abort (or, should a command on this loaded machine have
  // been so late that the queue was recreated, by the SQ's deletion), and the Aborts alone gave
  // back more IDs than the queue has.
  // (A deletion also ends the commands still in the SQ: hence >= when there was one.)
  EXPECT_EQ(rc.aborts_found, cs.aborted);
  EXPECT_GE(cs.aborted + cs.aborted_by_sq_deletion + cs.discarded_completions, cs.injected_drops);
  EXPECT_GT(rc.aborts_found, ids);
  EXPECT_GE(rc.aborts_sent, rc.aborts_found);
  EXPECT_EQ(rc.recovery_failures, 0u);
  EXPECT_EQ(rc.recoveries, rc.queue_recreations);
  const queue_stats qs = r.pair.queue().stats();
  EXPECT_FALSE(qs.failed);
  EXPECT_EQ(qs.abandoned, 0u) << r.pair.queue().dump_state();
  EXPECT_GE(qs.timeouts, rc.aborts_found);
  if (rc.queue_recreations == 0) {
    EXPECT_EQ(rc.aborts_found, cs.injected_drops);
    EXPECT_EQ(cs.aborted_by_sq_deletion + cs.discarded_completions, 0u);
    EXPECT_EQ(qs.late_completions, qs.timeouts) << "every timed-out ID given back";
  }
  EXPECT_NE(r.pair.queue().dump_state().find("command IDs in use: 0"), std::string::npos)
      << r.pair.queue().dump_state();
  std::printf("  %llu drops over %u IDs, %llu Aborts sent, %llu found, %llu recreations, %.1f s\n",
              static_cast<unsigned long long>(cs.injected_drops), ids,
              static_cast<unsigned long long>(rc.aborts_sent),
              static_cast<unsigned long long>(rc.aborts_found),
              static_cast<unsigned long long>(rc.queue_recreations), s);
}

// A controller whose Aborts find nothing: each dropped command stays held, so the watchdog
// fails the queue (its waiters get Host Queue Failed), deletes it (the controller completes the
// held commands: Aborted due to SQ Deletion), creates it again and resets it. The threads'
// later commands go through the same queue and verify.
TEST(QueueRecovery, AbortThatFindsNothingRecreatesTheQueueAndLaterIoVerifies) {
  constexpr std::uint64_t timeout = 20'000'000;  // 20 ms
  rig r(0.05, false, timeout);
  const std::uint16_t qid = r.pair.qid();
  r.rec.start();
  io_tally t;
  r.run(4, 64, timeout, t);
  r.settle();
  r.rec.stop();

  const emu::controller_stats cs = r.ctrl.stats();
  const recovery_counts rc = r.rec.counts();
  EXPECT_EQ(t.given_up.load(), 0u);
  EXPECT_EQ(t.verified.load(), 4u * 64);
  EXPECT_EQ(t.mismatches.load(), 0u);
  EXPECT_GT(cs.injected_drops, 0u);
  EXPECT_EQ(rc.aborts_found, 0u);
  EXPECT_EQ(cs.aborted, 0u);
  EXPECT_GE(rc.queue_recreations, 1u);
  EXPECT_EQ(rc.recovery_failures, 0u) << r.rec.last_failure();
  EXPECT_EQ(rc.recoveries, rc.queue_recreations) << "every episode ended in a recreation";
  EXPECT_GE(cs.aborted_by_sq_deletion + cs.discarded_completions, cs.injected_drops)
      << "every held command ended by a deletion";
  const queue_stats qs = r.pair.queue().stats();
  EXPECT_EQ(qs.resets, rc.queue_recreations);
  EXPECT_FALSE(qs.failed);
  EXPECT_TRUE(r.pair.queues_live());
  EXPECT_EQ(r.pair.qid(), qid);
  // Still usable from a fresh handle after the last recovery.
  dma_buffer buf(r.ctrl.allocator(), 4096);
  bool read = false;
  for (int i = 0; i < 5 && !read; ++i) {  // a dropped one (5 %) just times out
    read = r.pair.ref()
               .submit_and_wait(nvme::read(1, 5, 1, {buf.bus_address(), 0}), 200'000'000)
               .status()
               .ok();
  }
  ASSERT_TRUE(read);
  EXPECT_TRUE(holds(buf.as<std::uint8_t>(), 5));
}

// A controller that answers nothing (stopped): the read times out, the Abort gets no
// completion within the admin timeout, the queue is failed and its deletion fails too. The
// queue stays failed, every later command is refused at once, all in bounded time.
TEST(QueueRecovery, AnAdminQueueThatDoesNotAnswerLeavesTheQueueFailedInBoundedTime) {
  emu::emulated_controller ctrl(options(0));
  ctrl.start();
  driver_options d;
  d.admin_timeout_ms = 50;
  controller_driver drv(ctrl.bar(), ctrl.allocator(), d);
  EXPECT_EQ(drv.admin_timeout_ns(), 50'000'000u);
  io_queue_pair pair = drv.create_io_queue_pair(16);
  queue_recovery rec(recovery_options{20'000'000, 500, 0.25});
  rec.watch(drv, pair);
  dma_buffer buf(ctrl.allocator(), 4096);
  ctrl.stop();

  const auto t0 = clock_type::now();
  const auto q = pair.ref();
  nvme::command cmd = nvme::read(1, 0, 1, {buf.bus_address(), 0});
  const std::uint16_t cid = q.submit(cmd, 20'000'000);
  EXPECT_EQ(q.wait_for(cid, 20'000'000).status(), sc::host_timeout);
  rec.pass();
  const recovery_counts rc = rec.counts();
  EXPECT_EQ(rc.aborts_sent, 1u);
  EXPECT_EQ(rc.aborts_found, 0u);
  EXPECT_EQ(rc.abort_failures, 1u);
  EXPECT_EQ(rc.recoveries, 1u);
  EXPECT_EQ(rc.queue_recreations, 0u);
  EXPECT_EQ(rc.recovery_failures, 1u);
  EXPECT_NE(rec.last_failure().find("got no completion within 50 ms"), std::string::npos)
      << rec.last_failure();
  EXPECT_TRUE(q.failed());
  nvme::command again = nvme::read(1, 1, 1, {buf.bus_address(), 0});
  EXPECT_EQ(q.submit(again, 20'000'000), q.no_cid);
  rec.pass();  // a dead queue is left alone
  EXPECT_EQ(rec.counts().recovery_failures, 1u);
  EXPECT_EQ(rec.counts().recoveries, 1u);
  EXPECT_LT(seconds_since(t0), 5.0);

  // The driver's own admin commands are bounded the same way, with a clear message.
  try {
    drv.abort(pair.qid(), 3);
    ADD_FAILURE() << "an Abort without an answer returned";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("Abort of command 3 on SQ 1 got no completion within 50 ms"),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(
      drv.admin(nvme::identify(nvme::identify_cns::controller, 0, buf.bus_address())).status(),
      sc::host_timeout);
  try {
    (void)drv.create_io_queue_pair(8);
    ADD_FAILURE() << "a queue created without an answer";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Create I/O Completion Queue got no completion"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(seconds_since(t0), 10.0);
  // The controller stays stopped: started again, it would serve the read above into `buf`
  // while the test frees it. The driver's shutdown then gives up after CAP.TO (1 s).
}

// The user count a reset waits for: a thread holding a command ID it has not waited for keeps
// quiesce from succeeding; its wait returns Host Queue Failed at once, and then quiesce does.
TEST(QueueRecovery, QuiesceWaitsForEveryHandedOutIdToBeWaitedFor) {
  emu::emulated_controller ctrl(options(1.0));  // every I/O dropped: nothing completes
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  io_queue_pair pair = drv.create_io_queue_pair(16);
  dma_buffer buf(ctrl.allocator(), 4096);
  const auto q = pair.ref();
  nvme::command a = nvme::read(1, 0, 1, {buf.bus_address(), 0});
  nvme::command b = nvme::read(1, 1, 1, {buf.bus_address(), 0});
  const std::uint16_t ca = q.submit(a), cb = q.submit(b);
  ASSERT_NE(ca, q.no_cid);
  ASSERT_NE(cb, q.no_cid);
  EXPECT_FALSE(pair.queue().quiesce(20'000'000)) << "two IDs are held";
  EXPECT_TRUE(q.failed());
  EXPECT_EQ(q.wait_for(ca, 0).status(), sc::host_queue_failed);
  EXPECT_FALSE(pair.queue().quiesce(20'000'000)) << "one ID is held";
  q.abandon(cb);
  EXPECT_TRUE(pair.queue().quiesce(20'000'000));
  // A thread that comes now finds the queue failed and is not counted.
  nvme::command c = nvme::read(1, 2, 1, {buf.bus_address(), 0});
  EXPECT_EQ(q.submit(c), q.no_cid);
  EXPECT_TRUE(pair.queue().quiesce(0));
  // The recovery proper: the two held commands end with the deletion, the queue works again.
  EXPECT_TRUE(pair.recover(20'000'000));
  EXPECT_FALSE(q.failed());
  EXPECT_FALSE(q.abandoned(ca));
  EXPECT_FALSE(q.abandoned(cb));
  EXPECT_EQ(ctrl.stats().aborted_by_sq_deletion, 2u);
  EXPECT_EQ(pair.queue().stats().resets, 1u);
  EXPECT_EQ(pair.queue().stats().submitted, 2u) << "statistics carried over the reset";
}

// A pair whose rings its owner allocated cannot be zeroed and recreated by the watchdog (and its
// users may be GPU threads, which the quiesce cannot count): watch() refuses it, naming why.
TEST(QueueRecovery, WatchRefusesAPairWhoseRingsItsOwnerAllocated) {
  emu::emulated_controller ctrl(options(0));
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  other_allocator rings(ctrl.allocator());
  io_queue_pair owned = drv.create_io_queue_pair(16, rings);
  io_queue_pair ours = drv.create_io_queue_pair(16);
  queue_recovery rec(recovery_options{20'000'000, 500, 0.25});
  try {
    rec.watch(drv, owned);
    ADD_FAILURE() << "a pair with the owner's rings was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("queue " + std::to_string(owned.qid())), std::string::npos) << m;
    EXPECT_NE(m.find("rings"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot recreate"), std::string::npos) << m;
  }
  io_queue_pair empty;
  EXPECT_THROW(rec.watch(drv, empty), std::invalid_argument);
  rec.watch(drv, ours);  // the driver's rings: accepted
  rec.pass();
  EXPECT_EQ(rec.counts().queue_recreations, 0u);
}

// One queue whose recovery waits for a thread that holds one of its IDs does not hold up the
// watchdog's work on another queue: the other queue's timed-out command is aborted (its ID
// given back) at once, and the stuck queue is recovered as soon as the thread lets go; the
// episode is counted once (one recreation, no failure), however many passes it took.
TEST(QueueRecovery, AQueueWaitingForItsThreadsDoesNotHoldUpAnother) {
  constexpr std::uint64_t timeout = 300'000'000;  // 300 ms
  emu::emulated_controller ctrl(options(1.0));    // every I/O dropped: only Aborts end them
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  io_queue_pair a = drv.create_io_queue_pair(16);
  io_queue_pair b = drv.create_io_queue_pair(16);
  queue_recovery rec(recovery_options{timeout, 500, 0.25});
  rec.watch(drv, a);  // first: an old watchdog looked at it first on every pass
  rec.watch(drv, b);
  dma_buffer buf(ctrl.allocator(), 8192);
  rec.start();

  // A thread holds an ID of queue a without waiting for it; a fails: its recovery waits.
  const auto qa = a.ref();
  nvme::command ca_cmd = nvme::read(1, 0, 1, {buf.bus_address(), 0});
  const std::uint16_t ca = qa.submit(ca_cmd);
  ASSERT_NE(ca, qa.no_cid);
  const auto failed_at = clock_type::now();
  qa.fail();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the watchdog is at it

  // Meanwhile queue b: a command times out; the watchdog's Abort gives its ID back.
  const auto qb = b.ref();
  nvme::command cb_cmd = nvme::read(1, 1, 1, {buf.bus_address() + 4096, 0});
  const std::uint16_t cb = qb.submit(cb_cmd);
  ASSERT_NE(cb, qb.no_cid);
  // Both commands held by the controller (fetched, dropped) before b's times out, so that the
  // Abort finds b's (on a loaded machine the worker may fetch it later than 10 ms).
  ASSERT_TRUE(eventually([&] { return ctrl.stats().injected_drops >= 2; }));
  EXPECT_EQ(qb.wait_for(cb, 10'000'000).status(), sc::host_timeout);
  const auto timed_out_at = clock_type::now();
  ASSERT_TRUE(eventually([&] { return !qb.abandoned(cb); }));
  const double abort_s = seconds_since(timed_out_at);
  EXPECT_LT(abort_s, 0.1) << "queue b's Abort waited for queue a's threads";
  EXPECT_EQ(rec.counts().aborts_found, 1u);
  EXPECT_TRUE(qa.failed()) << "a is recovered only once its thread lets go";

  // The thread holds on past a timeout, then waits: Host Queue Failed at once, and a recovers.
  std::this_thread::sleep_until(failed_at + std::chrono::nanoseconds(timeout * 3 / 2));
  EXPECT_TRUE(qa.failed());
  EXPECT_EQ(qa.wait_for(ca, 0).status(), sc::host_queue_failed);
  ASSERT_TRUE(eventually([&] { return !qa.failed(); }));
  rec.stop();
  const recovery_counts rc = rec.counts();
  EXPECT_EQ(rc.recoveries, 1u);
  EXPECT_EQ(rc.queue_recreations, 1u);
  EXPECT_EQ(rc.recovery_failures, 0u) << "one episode, which ended in a recreation";
  EXPECT_NE(rec.last_failure().find("queue " + std::to_string(a.qid()) +
                                    ": threads still used it 300 ms after it failed"),
            std::string::npos)
      << rec.last_failure();
  EXPECT_EQ(a.queue().stats().resets, 1u);
  EXPECT_EQ(b.queue().stats().resets, 0u);
  std::printf("  queue b's Abort %.1f ms after its timeout while queue a waited\n", abort_s * 1e3);
}

// The late completion of a command whose wait gave up frees its buffer (abandoned() turns
// false) but not its command ID: the ID stays reserved until the watchdog clears it. Otherwise a
// new command could take the ID between the watchdog's look and its Abort, and the Abort meant
// for the old command would abort the new one.
TEST(QueueRecovery, ALateCompletionsIdStaysReservedUntilTheWatchdogClearsIt) {
  emu::controller_options o = options(0);
  o.faults.delay_fraction = 1.0;
  o.faults.delay_ns = 60'000'000;  // 60 ms: after the 5 ms wait gave up
  emu::emulated_controller ctrl(o);
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  io_queue_pair pair = drv.create_io_queue_pair(16);
  queue_recovery rec(recovery_options{1'000'000'000, 500, 0.25});
  rec.watch(drv, pair);  // not started: the test makes its passes
  dma_buffer buf(ctrl.allocator(), 4096);
  const auto q = pair.ref();
  nvme::command cmd = nvme::read(1, 3, 1, {buf.bus_address(), 0});
  const std::uint16_t cid = q.submit(cmd);
  ASSERT_NE(cid, q.no_cid);
  EXPECT_EQ(q.wait_for(cid, 5'000'000).status(), sc::host_timeout);
  EXPECT_TRUE(q.abandoned(cid));
  // The late completion arrives and is passed (here by the queue's owner; any waiter would).
  ASSERT_TRUE(eventually([&] {
    (void)q.poll();
    return !q.abandoned(cid);
  }));
  EXPECT_EQ(pair.queue().stats().late_completions, 1u);
  const std::string held = pair.queue().dump_state();
  EXPECT_NE(held.find("command IDs in use: 1"), std::string::npos)
      << "the ID was free for a new command before the watchdog saw it:\n"
      << held;
  EXPECT_EQ(pair.queue().stats().abandoned, 1u);
  rec.pass();  // clears it, and sends no Abort: the command is gone
  const std::string after = pair.queue().dump_state();
  EXPECT_NE(after.find("command IDs in use: 0"), std::string::npos) << after;
  EXPECT_EQ(pair.queue().stats().abandoned, 0u);
  EXPECT_EQ(rec.counts().aborts_sent, 0u);
  EXPECT_EQ(ctrl.stats().aborted, 0u);
  // And the queue goes on: the next command completes (late) and frees its ID itself.
  nvme::command again = nvme::read(1, 4, 1, {buf.bus_address(), 0});
  EXPECT_TRUE(q.submit_and_wait(again, 2'000'000'000).status().ok());
  EXPECT_NE(pair.queue().dump_state().find("command IDs in use: 0"), std::string::npos);
}

// A thread that unwinds (an exception) between submit and wait. Its IDs count as users of the
// queue until waited for: without a guard they count for ever and the failed queue is never
// recreated. held_commands abandons them as the thread unwinds: the watchdog recreates the queue
// at its next pass (the deletion ends the held commands).
TEST(QueueRecovery, AThreadThatThrowsWithCommandsInFlightDoesNotKeepItsQueueFailed) {
  emu::emulated_controller ctrl(options(1.0, false));  // nothing completes, Aborts find nothing
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  io_queue_pair pair = drv.create_io_queue_pair(16);
  queue_recovery rec(recovery_options{100'000'000, 500, 0.25});
  rec.watch(drv, pair);  // not started: the test makes its passes
  dma_buffer buf(ctrl.allocator(), 3 * 4096);
  const auto q = pair.ref();
  auto read = [&](std::uint32_t k) {
    return nvme::read(1, k, 1, {buf.bus_address() + k * 4096, 0});
  };

  // Unguarded, as a thread did before: the IDs it never waited for keep the queue failed.
  std::vector<std::uint16_t> leaked;
  std::thread([&] {
    try {
      for (std::uint32_t k = 0; k < 3; ++k) {
        nvme::command c = read(k);
        leaked.push_back(q.submit(c));
      }
      throw std::runtime_error("the application failed");
    } catch (const std::runtime_error&) {
    }
  }).join();
  q.fail();
  rec.pass();
  rec.pass();
  EXPECT_EQ(rec.counts().recoveries, 1u);
  EXPECT_EQ(rec.counts().queue_recreations, 0u) << "recreated while IDs were handed out";
  EXPECT_TRUE(q.failed());
  for (const std::uint16_t cid : leaked)  // what the guard does, by hand
    q.abandon(cid);
  rec.pass();
  EXPECT_EQ(rec.counts().queue_recreations, 1u);
  EXPECT_FALSE(q.failed());
  EXPECT_EQ(ctrl.stats().aborted_by_sq_deletion, 3u);

  // Guarded: the same thread leaves nothing behind.
  std::vector<std::uint16_t> cids;
  std::thread([&] {
    try {
      held_commands<> held(4);
      for (std::uint32_t k = 0; k < 3; ++k) {
        nvme::command c = read(k);
        cids.push_back(held.submit(k, q, c));
        ASSERT_NE(cids.back(), q.no_cid);
      }
      EXPECT_TRUE(held.holds(2));
      EXPECT_FALSE(held.holds(3));
      throw std::runtime_error("the application failed");
    } catch (const std::runtime_error&) {
    }
  }).join();
  ASSERT_EQ(cids.size(), 3u);
  for (const std::uint16_t cid : cids)  // still with the controller: their memory is not free
    EXPECT_TRUE(q.abandoned(cid));
  EXPECT_EQ(pair.queue().stats().abandoned, 3u);
  q.fail();
  rec.pass();
  EXPECT_EQ(rec.counts().recoveries, 2u);
  EXPECT_EQ(rec.counts().queue_recreations, 2u);
  EXPECT_FALSE(q.failed());
  for (const std::uint16_t cid : cids)
    EXPECT_FALSE(q.abandoned(cid));
  EXPECT_EQ(ctrl.stats().aborted_by_sq_deletion, 6u);
  EXPECT_EQ(rec.counts().recovery_failures, 0u);

  // A slot is one command at a time; an empty slot's wait reports a failed queue at once.
  held_commands<> h(2);
  nvme::command c0 = read(0);
  ASSERT_NE(h.submit(0, q, c0), q.no_cid);
  nvme::command c1 = read(1);
  EXPECT_THROW(h.submit(0, q, c1), std::logic_error);
  EXPECT_EQ(h.wait_for(1, 0).status(), sc::host_queue_failed);
  EXPECT_EQ(h.wait_for(0, 1'000'000).status(), sc::host_timeout);  // dropped
  EXPECT_EQ(h.abandon_all(), 0u);
}

}  // namespace
