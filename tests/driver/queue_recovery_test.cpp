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

#include "bam/driver/controller_driver.hpp"
#include "bam/driver/queue_recovery.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"

namespace {
using namespace bam;
namespace sc = nvme::sc;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

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
  EXPECT_EQ(rc.queue_recreations, 0u);
  EXPECT_EQ(rc.recovery_failures, 1u);
  EXPECT_NE(rec.last_failure().find("got no completion within 50 ms"), std::string::npos)
      << rec.last_failure();
  EXPECT_TRUE(q.failed());
  nvme::command again = nvme::read(1, 1, 1, {buf.bus_address(), 0});
  EXPECT_EQ(q.submit(again, 20'000'000), q.no_cid);
  rec.pass();  // a dead queue is left alone
  EXPECT_EQ(rec.counts().recovery_failures, 1u);
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

}  // namespace
