// nvm-block-bench's queue runner (tools/nvm-block-bench/queue_runner.cpp, compiled in) over a
// host emulated controller whose Aborts find nothing, so that every dropped command ends in its
// queue's failure and recovery (bam::queue_recovery). Each thread keeps several commands in
// flight on the queue: when the queue fails, the thread must let go of it at once (its waits
// end, what it will try again waits for the queue's recovery holding nothing), so that the
// watchdog recreates the queue within about one timeout; a thread that backed off in place
// while holding its other command IDs made the watchdog wait for it, one timeout per command.
// Label unit: runs under ThreadSanitizer too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/harness/backend.hpp"
#include "bam/queue/doorbell.hpp"
#include "queue_runner.hpp"

namespace {
using namespace bam;

constexpr std::uint32_t timeout_ms = 100;

/// One 1 MiB namespace of 512 B blocks, one worker, CAP.TO 1 s.
emu::controller_options controller() {
  emu::controller_options o;
  o.lba_size = 512;
  o.namespace_lbas = 2048;  // 1 MiB
  o.max_io_queue_pairs = 4;
  o.worker_threads = 1;
  o.timeout_500ms = 2;
  return o;
}

/// Two threads with 8 commands in flight each on the SSD's one queue pair, 512 B reads.
run_config one_pair_config(std::uint64_t ios) {
  run_config c;
  c.storage.backend = backend_kind::host;
  c.storage.ssd_count = 1;
  c.storage.lba_size = 512;
  c.storage.media.size_bytes = 1u << 20;
  c.queues.pairs_per_ssd = 1;
  c.queues.depth = 32;
  c.queues.timeout_ms = timeout_ms;
  c.workload.threads = 2;
  c.workload.outstanding = 8;  // both threads' 16 commands on the one queue pair
  c.workload.io_size = 512;
  c.workload.op = io_op::read;
  c.workload.ios = ios;
  return c;
}

/// Milliseconds from a queue's failure to its recreation, on average (`rc.queue_recreations` > 0).
double ms_per_recreation(const recovery_counts& rc) {
  return static_cast<double>(rc.recovery_ns) / 1e6 / static_cast<double>(rc.queue_recreations);
}

TEST(QueueRunnerRecovery, AFailedQueueIsRecreatedWithinATimeoutWhileThreadsHaveManyInFlight) {
  emu::controller_options o = controller();
  o.faults.drop_fraction = 0.003;
  o.faults.seed = 5;
  o.abort_finds_commands = false;  // a dropped command ends only with its queue's deletion
  emu::emulated_controller ctrl(o);
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());

  const run_config c = one_pair_config(3000);
  run_hooks hooks;
  hooks.verify = true;  // the fill's dropped writes are tried again after each recovery

  const auto t0 = std::chrono::steady_clock::now();
  const run_result r =
      tools::run_queue_workload<memory_doorbell>(c, hooks, {{&drv, &ctrl.allocator()}});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  ASSERT_TRUE(r.error.empty()) << r.error;
  const emu::controller_stats cs = ctrl.stats();
  ASSERT_GT(cs.injected_drops, 2u) << "too few drops: the test shows nothing";
  const recovery_counts& rc = r.recovery;  // the measured phase's
  EXPECT_GE(rc.recoveries, 1u);
  // An episode that starts in the fill and ends in the measured phase is counted in one and its
  // recreation in the other: at most one apart.
  EXPECT_LE(rc.queue_recreations, rc.recoveries + 1);
  EXPECT_GE(rc.queue_recreations + 1, rc.recoveries);
  EXPECT_EQ(rc.recovery_failures, 0u);
  EXPECT_EQ(rc.aborts_found, 0u);
  // Each recreation came within a fraction of a timeout of the queue's failure: nothing held
  // the queue. (Holding it, a thread with 8 in flight made that up to 8 timeouts.)
  ASSERT_GT(rc.queue_recreations, 0u);
  const double per_recovery_ms = ms_per_recreation(rc);
  EXPECT_LT(per_recovery_ms, timeout_ms / 2.0);
  // Every I/O of the measured phase ended: read and checked, or failed: its command dropped
  // (a timeout), or in flight when its queue failed (at most both threads' 16 per recovery).
  // A request for a queue under recovery waits for it instead of failing at once.
  EXPECT_EQ(r.read.ios + r.errors, 3000u);
  EXPECT_GT(r.timeouts, 0u);
  EXPECT_LE(r.errors, r.timeouts + 16 * rc.recoveries);
  // The fill's dropped writes were written again after their queue's recovery: every block
  // holds the pattern.
  EXPECT_EQ(r.verify_mismatches, 0u);
  EXPECT_EQ(r.tool_stats["verified_ios"], r.read.ios);
  const auto& fill = r.tool_stats["verify_fill_recovery"];
  const auto fill_recreations = fill["queue_recreations"].get<std::uint64_t>();
  EXPECT_GE(fill_recreations, 1u);
  EXPECT_LE(fill["recoveries"].get<std::uint64_t>(), fill_recreations + 1);
  EXPECT_EQ(fill["recovery_failures"], 0u);
  const double fill_ms = fill["recovery_ms"].get<double>() / static_cast<double>(fill_recreations);
  EXPECT_LT(fill_ms, timeout_ms / 2.0);
  std::printf(
      "  %llu drops; recoveries: fill %llu, %.2f ms each; measured %llu, %.2f ms each; "
      "%llu errors, %llu timeouts; %.1f s\n",
      static_cast<unsigned long long>(cs.injected_drops),
      static_cast<unsigned long long>(fill_recreations), fill_ms,
      static_cast<unsigned long long>(rc.recoveries), per_recovery_ms,
      static_cast<unsigned long long>(r.errors), static_cast<unsigned long long>(r.timeouts), s);
}

// Two SSDs: SSD 0 answers a tenth of its commands 85 % of a timeout late, SSD 1 loses some
// commands and its Aborts find nothing, so its queue fails and is recreated. A thread waiting on
// one of SSD 0's late commands while SSD 1's queue fails must collect its SSD 1 commands at once
// (their waits end on the failed queue) instead of holding them until the late one is back:
// the watchdog recreates a queue only once no thread holds one of its IDs.
TEST(QueueRunnerRecovery, AThreadWaitingOnASlowQueueLetsGoOfAFailedOne) {
  emu::controller_options slow = controller();
  slow.faults.delay_fraction = 0.1;
  slow.faults.delay_ns = timeout_ms * 850'000ull;  // 85 % of the timeout
  slow.faults.seed = 3;
  emu::controller_options lossy = controller();
  lossy.faults.drop_fraction = 0.006;
  lossy.faults.seed = 5;
  lossy.abort_finds_commands = false;  // a dropped command ends only with its queue's deletion
  emu::emulated_controller c0(slow), c1(lossy);
  c0.start();
  c1.start();
  controller_driver d0(c0.bar(), c0.allocator()), d1(c1.bar(), c1.allocator());

  run_config c = one_pair_config(2000);
  c.storage.ssd_count = 2;
  c.storage.media.size_bytes = 1u << 20;  // per SSD
  run_hooks hooks;
  const run_result r = tools::run_queue_workload<memory_doorbell>(
      c, hooks, {{&d0, &c0.allocator()}, {&d1, &c1.allocator()}});
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_GT(c1.stats().injected_drops, 2u) << "too few drops: the test shows nothing";
  ASSERT_GT(c0.stats().injected_delays, 10u);
  const recovery_counts& rc = r.recovery;
  ASSERT_GT(rc.queue_recreations, 0u);
  EXPECT_EQ(rc.recovery_failures, 0u);
  // Each recreation within half a timeout: no thread held the failed queue while it waited (up
  // to 85 ms) on SSD 0. (Holding it, a recreation waited for that wait: 70-80 ms here.)
  const double per_recovery_ms = ms_per_recreation(rc);
  EXPECT_LT(per_recovery_ms, timeout_ms / 2.0);
  EXPECT_EQ(r.read.ios + r.errors, 2000u);
  std::printf("  %llu delays, %llu drops; %llu recreations, %.2f ms each\n",
              static_cast<unsigned long long>(c0.stats().injected_delays),
              static_cast<unsigned long long>(c1.stats().injected_drops),
              static_cast<unsigned long long>(rc.queue_recreations), per_recovery_ms);
}

// A controller that stops answering in the middle of the run (I/O and admin queue): the
// commands in flight time out, the Aborts get no answer, the queue's recovery fails and the
// queue stays failed. The run ends in bounded time, the failure counted as one episode that
// left the queue failed. (Every slot of both threads then holds a command the dead queue never
// gives back: the threads stop issuing, with fewer I/Os done than asked.)
TEST(QueueRunnerRecovery, AQueueThatCannotBeRecoveredEndsTheRunInBoundedTime) {
  emu::emulated_controller ctrl(controller());
  ctrl.start();
  driver_options d;
  d.admin_timeout_ms = 50;
  controller_driver drv(ctrl.bar(), ctrl.allocator(), d);

  const run_config c = one_pair_config(20000);
  std::atomic<std::uint64_t> done{0};
  run_hooks hooks;
  hooks.ios_done = &done;

  std::thread stopper([&] {
    while (done.load() < 500)
      std::this_thread::yield();
    ctrl.stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const run_result r =
      tools::run_queue_workload<memory_doorbell>(c, hooks, {{&drv, &ctrl.allocator()}});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();

  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_GE(r.read.ios, 500u - 16);
  EXPECT_LE(r.read.ios + r.errors, 20000u);
  EXPECT_GT(r.timeouts, 0u);
  const recovery_counts& rc = r.recovery;
  EXPECT_GE(rc.abort_failures, 1u);
  EXPECT_EQ(rc.recoveries, 1u);
  EXPECT_EQ(rc.recovery_failures, 1u);
  EXPECT_EQ(rc.queue_recreations, 0u);
  // About: a timeout for the commands in flight, the Abort's admin timeout, two timeouts of
  // waiting for the queue to let go of the slots.
  EXPECT_LT(s, 3.0);
  std::printf("  %llu read, %llu failed (%llu timeouts), %.2f s\n",
              static_cast<unsigned long long>(r.read.ios),
              static_cast<unsigned long long>(r.errors),
              static_cast<unsigned long long>(r.timeouts), s);
}

}  // namespace
