// The driver's side of queue recovery against the host emulated controller with injected faults:
// Abort of a timed-out command, and an I/O queue pair deleted and created again on its rings,
// from many threads at once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"

namespace {
using namespace bam;
namespace sc = nvme::sc;
using clock_type = std::chrono::steady_clock;

emu::controller_options options(const emu::fault_config& f) {
  emu::controller_options o;
  o.lba_size = 512;
  o.namespace_lbas = 4096;
  o.max_io_queue_pairs = 16;
  o.worker_threads = 2;
  o.faults = f;
  return o;
}

emu::fault_config drop_all() {
  emu::fault_config f;
  f.drop_fraction = 1;
  return f;
}

struct Recovery : ::testing::Test {
  emu::emulated_controller ctrl{options(drop_all())};
  std::unique_ptr<controller_driver> drv;
  std::unique_ptr<dma_buffer> buf;
  void SetUp() override {
    ctrl.start();
    drv = std::make_unique<controller_driver>(ctrl.bar(), ctrl.allocator());
    buf = std::make_unique<dma_buffer>(ctrl.allocator(), 4096);
  }
  nvme::command read(std::uint64_t lba) const {
    return nvme::read(1, lba, 1, {buf->bus_address(), 0});
  }
  void wait_for_drops(std::uint64_t n) const {
    const auto deadline = clock_type::now() + std::chrono::seconds(10);
    while (ctrl.stats().injected_drops < n)
      ASSERT_LT(clock_type::now(), deadline) << "the controller did not fetch the commands";
  }
};

TEST_F(Recovery, AbortOfATimedOutCommandCompletesIt) {
  io_queue_pair p = drv->create_io_queue_pair(16);
  const auto q = p.ref();
  nvme::command cmd = read(1);
  const std::uint16_t cid = q.submit(cmd);
  const nvme::completion t = q.wait_for(cid, 20'000'000);
  EXPECT_EQ(t.status(), sc::host_timeout);
  wait_for_drops(1);
  EXPECT_TRUE(drv->abort(p.qid(), cid));
  EXPECT_FALSE(drv->abort(p.qid(), cid)) << "aborted twice";
  EXPECT_FALSE(drv->abort(p.qid(), static_cast<std::uint16_t>(cid + 1)));
  EXPECT_EQ(ctrl.stats().aborted, 1u);
  // The Abort Requested completion is in the CQ, at the head.
  const nvme::completion& e = p.queue().pointers().cq[0];
  EXPECT_EQ(e.cid, cid);
  EXPECT_EQ(e.status(), sc::abort_requested);
}

TEST_F(Recovery, RecreateDeletesHeldCommandsAndStartsTheQueueAfresh) {
  io_queue_pair p = drv->create_io_queue_pair(8);
  const std::uint16_t qid = p.qid();
  const auto q = p.ref();
  for (int i = 0; i < 3; ++i) {
    nvme::command cmd = read(i);
    EXPECT_EQ(q.wait_for(q.submit(cmd), 1'000'000).status(), sc::host_timeout);
  }
  wait_for_drops(3);
  p.delete_queues();
  EXPECT_FALSE(p.queues_live());
  EXPECT_EQ(ctrl.stats().aborted_by_sq_deletion, 3u);
  // The completions of the deletion are readable in the ring until it is created again.
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(p.queue().pointers().cq[i].status(), sc::aborted_sq_deletion);
  EXPECT_THROW(p.delete_queues(), std::logic_error);
  p.create_queues();
  EXPECT_TRUE(p.queues_live());
  EXPECT_EQ(p.qid(), qid);
  EXPECT_EQ(p.queue().pointers().cq[0].sf, 0u) << "the CQ ring was not zeroed";
  EXPECT_THROW(p.create_queues(), std::logic_error);

  // The controller serves the recreated queue from slot 0: fresh host bookkeeping over the same
  // rings (what the queue's owner resets) sees its commands through (dropped, then aborted).
  queue_pair fresh(queue_pair_desc{p.queue().pointers().sq, p.entries(), p.queue().pointers().cq,
                                   p.entries(), p.queue().pointers().sq_doorbell,
                                   p.queue().pointers().cq_doorbell, qid});
  const auto f = fresh.ref();
  nvme::command cmd = read(7);
  const std::uint16_t cid = f.submit(cmd);
  wait_for_drops(4);
  EXPECT_TRUE(drv->abort(qid, cid));
  EXPECT_EQ(f.wait_for(cid, 5'000'000'000).status(), sc::abort_requested);
  p.recreate();
  EXPECT_EQ(ctrl.stats().aborted_by_sq_deletion, 3u);
}

// Aborts, recreations and queue creations from several threads at once, each thread on its own
// queue pair: the driver's admin queue serialises them (run under ThreadSanitizer too).
TEST_F(Recovery, ConcurrentAbortsAndRecreations) {
  constexpr int threads = 4, rounds = 20;
  std::vector<io_queue_pair> pairs;
  for (int t = 0; t < threads; ++t)
    pairs.push_back(drv->create_io_queue_pair(8));
  std::atomic<int> aborted{0}, failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      dma_buffer mine(ctrl.allocator(), 4096);
      for (int r = 0; r < rounds; ++r) {
        io_queue_pair& p = pairs[t];
        queue_pair fresh(queue_pair_desc{
            p.queue().pointers().sq, p.entries(), p.queue().pointers().cq, p.entries(),
            p.queue().pointers().sq_doorbell, p.queue().pointers().cq_doorbell, p.qid()});
        const auto q = fresh.ref();
        nvme::command cmd = nvme::read(1, r, 1, {mine.bus_address(), 0});
        const std::uint16_t cid = q.submit(cmd);
        if (q.wait_for(cid, 1'000'000).status() != sc::host_timeout) ++failures;
        // The drop may not be fetched yet: Abort until it is found.
        const auto deadline = clock_type::now() + std::chrono::seconds(10);
        bool done = false;
        while (!(done = drv->abort(p.qid(), cid)) && clock_type::now() < deadline)
          std::this_thread::yield();
        if (done) ++aborted;
        p.recreate();
        io_queue_pair extra = drv->create_io_queue_pair(4);  // and other admin use meanwhile
      }
    });
  }
  for (auto& th : pool)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(aborted.load(), threads * rounds);
  EXPECT_EQ(ctrl.stats().aborted, std::uint64_t{threads} * rounds);
  EXPECT_EQ(ctrl.stats().aborted_by_sq_deletion, 0u);
}

}  // namespace
