// Several commands in flight per thread, completed in any order: a waiter never waits for other
// commands' entries (the hang of issue 14 item 1), abandoned commands do not wedge the queue,
// every wait and submission ends by its deadline, and a queue that cannot make progress (or whose
// controller reports an impossible SQ head) is failed rather than hung.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <random>
#include <thread>
#include <vector>

#include "bam/detail/atomic.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_pair.hpp"
#include "loopback_controller.hpp"
#include "manual_controller.hpp"

namespace {

namespace nvme = bam::nvme;
using namespace std::chrono_literals;

using bam::test::cids_in_use;
using bam::test::manual_controller;
using bam::test::tagged;
using bam::test::within;

// Submits tagged(tag), abandons its wait and lets the controller fetch it; its command ID.
template <class Queue>
std::uint16_t submit_abandoned(manual_controller& ctrl, const Queue& q, std::uint32_t tag) {
  nvme::command c = tagged(tag);
  const std::uint16_t cid = q.submit(c);
  q.abandon(cid);
  EXPECT_TRUE(q.abandoned(cid));
  EXPECT_EQ(ctrl.fetch().size(), 1u);
  return cid;
}

// The case the issue reproduced: one thread submits A then B, the controller completes B first;
// waiting for A must return A's completion at once (it used to wait for B's entry to be taken).
TEST(QueueOutstanding, WaitForTheFirstWhenTheSecondCompletedFirst) {
  manual_controller ctrl(16);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  nvme::command a = tagged(1), b = tagged(2);
  const std::uint16_t ca = q.submit(a), cb = q.submit(b);
  const auto fetched = ctrl.fetch();
  ASSERT_EQ(fetched.size(), 2u);
  ctrl.post(cb, 2);
  ctrl.post(ca, 1);
  nvme::completion ea{}, eb{};
  within(2000ms, [&] { ea = q.wait_for(ca, 100'000'000); });
  EXPECT_TRUE(ea.status().ok());
  EXPECT_EQ(ea.dw0, 1u);
  // The head passed both entries; B's completion waits in its box for B's waiter.
  EXPECT_EQ(qp.stats().cq_head, 2u);
  EXPECT_EQ(qp.pointers().boxes[cb].state, bam::box_ready);
  within(2000ms, [&] { eb = q.wait_for(cb, 100'000'000); });
  EXPECT_EQ(eb.dw0, 2u);
  EXPECT_EQ(eb.cid, cb);
  EXPECT_EQ(ctrl.cq_doorbell(), 2u);
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
}

// Runs one submission of `c` with the wide batches (submit, then wait_for) or the narrow ones
// (submit_and_wait_outlined) while a controller thread fetches it and posts its completion once,
// with dw0 = `dw0`.
bam::nvme::completion submit_posted(manual_controller& ctrl, const bam::queue_pair_ref<>& q,
                                    nvme::command c, bool narrow, std::uint32_t dw0) {
  nvme::completion e{};
  within(2000ms, [&] {
    std::thread controller([&] {
      std::vector<nvme::command> f;
      while ((f = ctrl.fetch()).empty())
        std::this_thread::yield();
      ctrl.post(f[0].cid, dw0);
    });
    e = narrow ? q.submit_and_wait_outlined(c, 100'000'000) : q.wait_for(q.submit(c), 100'000'000);
    controller.join();
  });
  return e;
}

// A waiter that moves the head over its own completion takes it as it passes it (wide batches,
// whose callers have registers to spare): its box is never filled (no second look at it). The
// narrow ones go through the box. Either way its ID is free again, and the head and the CQ
// doorbell moved.
TEST(QueueOutstanding, AWaiterTakesItsOwnCompletionAsItPassesIt) {
  // Also with a second command in flight, the waiter's completion posted alone.
  {
    manual_controller ctrl(8);
    bam::queue_pair qp(ctrl.desc());
    const auto q = qp.ref();
    nvme::command a = tagged(3), b = tagged(4);
    const std::uint16_t ca = q.submit(a), cb = q.submit(b);
    ASSERT_EQ(ctrl.fetch().size(), 2u);
    ctrl.post(ca, 3);
    nvme::completion e{};
    within(2000ms, [&] { e = q.wait_for(ca, 100'000'000); });
    EXPECT_EQ(e.dw0, 3u);
    EXPECT_EQ(qp.pointers().boxes[ca].dw0, 0u);  // taken as it passed it, never in the box
    ctrl.post(cb, 4);
    within(2000ms, [&] { e = q.wait_for(cb, 100'000'000); });
    EXPECT_EQ(e.dw0, 4u);
    EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
    EXPECT_FALSE(q.failed());
  }
  for (const bool narrow : {false, true}) {
    SCOPED_TRACE(narrow ? "narrow batches" : "wide batches");
    manual_controller ctrl(8);
    bam::queue_pair qp(ctrl.desc());
    const auto q = qp.ref();
    const nvme::completion e = submit_posted(ctrl, q, tagged(5), narrow, 5);
    EXPECT_TRUE(e.status().ok());
    EXPECT_EQ(e.dw0, 5u);
    EXPECT_EQ(e.sqid, 1u);
    const bam::completion_box& box = qp.pointers().boxes[e.cid];
    EXPECT_EQ(box.state, 0u);
    EXPECT_EQ(box.dw0, narrow ? 5u : 0u);  // wide: never filled
    EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
    EXPECT_EQ(qp.stats().cq_head, 1u);
    EXPECT_EQ(qp.stats().sq_head, 1u);
    EXPECT_EQ(ctrl.cq_doorbell(), 1u);
    EXPECT_FALSE(q.failed());
  }
}

// One submitter fills the ring, one doorbell a command, and never moves the tail onto the SQ
// head: with N-1 entries unfetched the next submission waits for room, and the controller, which
// reads the doorbell, sees the N-1 entries and then the last, never an empty ring. Every command
// completes with its own result. (A submission path for idle queues must keep this too:
// scripts/gpu/probes/express-client-*.patch.)
TEST(QueueOutstanding, OneSubmitterFillsTheRingAndWaitsForRoom) {
  constexpr std::uint32_t entries = 8;
  manual_controller ctrl(entries);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  std::vector<std::uint16_t> cids;
  for (std::uint32_t i = 0; i < entries - 1; ++i) {
    nvme::command c = tagged(i);
    cids.push_back(q.submit(c));
    EXPECT_EQ(qp.stats().sq_tail, i + 1);  // each moved the tail, one doorbell each
    EXPECT_EQ(qp.stats().sq_doorbell_writes, i + 1);
  }
  within(5000ms, [&] {
    std::uint16_t last = q.no_cid;
    std::thread submitter([&] {
      nvme::command c = tagged(entries - 1);
      last = q.submit(c);
    });
    std::this_thread::sleep_for(50ms);  // the submitter waits for room
    EXPECT_EQ(qp.stats().sq_tail, entries - 1);
    const std::vector<nvme::command> first = ctrl.fetch();
    // EXPECT, not ASSERT: returning with the submitter running would end the process unreported
    // (a count short of N-1 leaves it waiting: `within` then reports the hang).
    EXPECT_EQ(first.size(), entries - 1);
    for (std::uint32_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(first[i].cdw10, i);
      ctrl.post(first[i].cid, i);
    }
    submitter.join();  // room came once the submitter passed the completions
    const std::vector<nvme::command> rest = ctrl.fetch();
    ASSERT_EQ(rest.size(), 1u);
    EXPECT_EQ(rest[0].cdw10, entries - 1);
    EXPECT_EQ(rest[0].cid, last);
    ctrl.post(last, entries - 1);
    cids.push_back(last);
  });
  for (std::uint32_t i = 0; i < entries; ++i) {
    nvme::completion e{};
    within(2000ms, [&] { e = q.wait_for(cids[i], 100'000'000); });
    EXPECT_EQ(e.dw0, i);
    EXPECT_TRUE(e.status().ok());
  }
  EXPECT_FALSE(q.failed());
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
  EXPECT_EQ(qp.stats().sq_head, entries);
  EXPECT_EQ(qp.stats().cq_head, entries);
}

// A submission never wraps the ring onto a lagging SQ head: the queue is idle (every command
// completed and taken) but the controller's completions said it fetched nothing (SQHD 0), so the
// SQ holds no room for the eighth entry as far as the queue knows. The submission waits and, with
// nothing left to complete, fails the queue when its deadline passes; no doorbell has moved the
// tail onto the head (which would read as an empty ring). (The room check of an idle queue's
// submission path, scripts/gpu/probes/express-client-*.patch, fails this when removed.)
TEST(QueueOutstanding, ALaggingSqHeadKeepsTheRingFromWrapping) {
  constexpr std::uint32_t entries = 8;
  manual_controller ctrl(entries);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  for (std::uint32_t i = 0; i < entries - 1; ++i) {
    nvme::command c = tagged(i);
    const std::uint16_t cid = q.submit(c);
    ASSERT_EQ(ctrl.fetch().size(), 1u);
    ctrl.post_with_sqhd(cid, i, 0);  // fetched, but the SQ head reported stays at 0
    nvme::completion e{};
    within(2000ms, [&] { e = q.wait_for(cid, 100'000'000); });
    ASSERT_EQ(e.dw0, i);
  }
  EXPECT_EQ(qp.stats().cq_head, entries - 1);
  EXPECT_EQ(qp.stats().sq_head, 0u);
  nvme::command last = tagged(entries - 1);
  std::uint16_t cid = 0;
  within(5000ms, [&] { cid = q.submit(last, 200'000'000); });
  EXPECT_TRUE(ctrl.fetch().empty()) << "the tail moved onto the SQ head";
  EXPECT_EQ(qp.stats().sq_tail, entries - 1);
  EXPECT_TRUE(q.failed());
  (void)cid;
}

// A waiter whose command was its queue's only one when it began, while another thread's command
// completes at the head first (posted with its own or apart): it passes that one to its box and
// still takes its own; both IDs come back, nothing fails.
TEST(QueueOutstanding, AWaiterAloneOnItsQueuePassesAnotherCommandsCompletionFirst) {
  for (const bool one_by_one : {false, true}) {
    SCOPED_TRACE(one_by_one ? "posted apart" : "posted together");
    manual_controller ctrl(8);
    bam::queue_pair qp(ctrl.desc());
    const auto q = qp.ref();
    nvme::command a = tagged(1);
    const std::uint16_t ca = q.submit(a);
    within(5000ms, [&] {
      nvme::completion ea{};
      std::thread waiter([&] { ea = q.wait_for(ca, 1'000'000'000); });
      std::this_thread::sleep_for(20ms);  // it polls, alone on the queue
      nvme::command b = tagged(2);
      const std::uint16_t cb = q.submit(b);
      EXPECT_EQ(ctrl.fetch().size(), 2u);  // not ASSERT: the waiter runs (see above)
      ctrl.post(cb, 2);
      if (one_by_one) std::this_thread::sleep_for(20ms);  // the waiter passes it alone
      ctrl.post(ca, 1);
      waiter.join();
      EXPECT_EQ(ea.dw0, 1u);
      EXPECT_EQ(ea.cid, ca);
      const nvme::completion eb = q.wait_for(cb, 1'000'000'000);
      EXPECT_EQ(eb.dw0, 2u);
      EXPECT_EQ(eb.cid, cb);
    });
    EXPECT_FALSE(q.failed());
    EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
    EXPECT_EQ(qp.stats().cq_head, 2u);
    EXPECT_EQ(ctrl.cq_doorbell(), 2u);
  }
}

// A second completion for a command its waiter took (wide batches: as it passed it, without the
// box) fails the queue when it is passed: the ID is free again, not in flight, and no ready box
// is left on it for its next user. Both holder batches. (The case where the first completion
// was already in the box when the waiter, holding the CQ lock, passes a second one as its own
// needs another thread between the waiter's look at its box and its lock: not reproduced here.)
TEST(QueueOutstanding, ASecondCompletionForAWaitersOwnCommandFailsTheQueue) {
  for (const bool narrow : {false, true}) {
    SCOPED_TRACE(narrow ? "narrow batches" : "wide batches");
    manual_controller ctrl(8);
    bam::queue_pair qp(ctrl.desc());
    const auto q = qp.ref();
    const nvme::completion e = submit_posted(ctrl, q, tagged(6), narrow, 6);
    EXPECT_TRUE(e.status().ok());
    EXPECT_EQ(e.dw0, 6u);
    EXPECT_FALSE(q.failed());
    ctrl.post(e.cid, 6);  // the controller's mistake
    EXPECT_TRUE(q.poll());
    EXPECT_TRUE(q.failed());
    EXPECT_EQ(qp.pointers().counters->invalid_completions, 1u);
    EXPECT_EQ(qp.pointers().boxes[e.cid].state & bam::box_ready, 0u);
    EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
    EXPECT_EQ(qp.stats().cq_head, 2u);
  }
}

// A command whose submitter gives up without waiting (an exception between submit and wait)
// does not wedge the queue: its completion is passed when it arrives and its ID comes back.
TEST(QueueOutstanding, AbandonedCommandDoesNotWedgeTheQueue) {
  manual_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  const std::uint16_t ca = submit_abandoned(ctrl, q, 7);
  ctrl.post(ca, 7);  // arrives after the abandon, at the head
  // Many more commands than the rings hold: each is completed and waited for normally.
  for (std::uint32_t i = 0; i < 50; ++i) {
    nvme::command c = tagged(100 + i);
    const std::uint16_t cid = q.submit(c);
    ASSERT_EQ(ctrl.fetch().size(), 1u);
    ctrl.post(cid, 100 + i);
    nvme::completion e{};
    within(2000ms, [&] { e = q.wait_for(cid, 100'000'000); });
    ASSERT_EQ(e.dw0, 100 + i);
  }
  EXPECT_FALSE(q.abandoned(ca));
  EXPECT_EQ(qp.stats().late_completions, 1u);
  EXPECT_EQ(qp.stats().timeouts, 0u);
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
}

// A second completion for an abandoned command, passed by the same CQ holder as its first, fails
// the queue: the first frees the ID on the waiter's behalf, and the second is still a completion
// for a command not in flight, not a ready box left on a free ID for its next user. Both holder
// batches: the wide one (wait_for) reads the two entries in one chunk, the narrow one
// (submit_and_wait_outlined) one entry per chunk.
TEST(QueueOutstanding, ASecondCompletionForAnAbandonedCommandFailsTheQueue) {
  for (const bool narrow : {false, true}) {
    SCOPED_TRACE(narrow ? "narrow batches" : "wide batches");
    manual_controller ctrl(8);
    bam::queue_pair qp(ctrl.desc());
    const auto q = qp.ref();
    const std::uint16_t ca = submit_abandoned(ctrl, q, 7);
    ctrl.post(ca, 7);
    ctrl.post(ca, 7);  // the controller's mistake
    nvme::command b = tagged(8);
    nvme::completion e{};
    within(2000ms, [&] {
      if (narrow) {
        e = q.submit_and_wait_outlined(b, 100'000'000);
      } else {
        const std::uint16_t cb = q.submit(b);
        e = q.wait_for(cb, 100'000'000);
      }
    });
    EXPECT_EQ(e.status(), nvme::sc::host_queue_failed);
    EXPECT_TRUE(q.failed());
    EXPECT_EQ(qp.pointers().counters->invalid_completions, 1u);
    EXPECT_EQ(qp.stats().late_completions, 1u);  // the first of the two
  }
}

// Many threads, each with `depth` commands in flight, waiting for them in a random order while
// the controller completes them in a random order.
TEST(QueueOutstanding, ManyOutstandingPerThreadInRandomOrder) {
  constexpr std::uint32_t entries = 64, threads = 8, depth = 6, rounds = 300;
  bam::test::loopback_controller ctrl(entries, entries, 48, 42);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  std::atomic<std::uint64_t> wrong{0}, done{0};
  std::vector<std::thread> ts;
  for (std::uint32_t t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (std::uint32_t r = 0; r < rounds; ++r) {
        std::uint16_t cids[depth];
        nvme::command cmds[depth];
        for (std::uint32_t k = 0; k < depth; ++k) {
          cmds[k] = tagged((t * rounds + r) * depth + k);
          cids[k] = q.submit(cmds[k], 2'000'000'000);
        }
        std::uint32_t order[depth];
        for (std::uint32_t k = 0; k < depth; ++k)
          order[k] = k;
        std::shuffle(order, order + depth, rng);
        for (std::uint32_t k : order) {
          const nvme::completion e = q.wait_for(cids[k], 2'000'000'000);
          if (!e.status().ok() || e.dw0 != bam::test::loopback_result(cmds[k]) || e.cid != cids[k])
            wrong.fetch_add(1);
          done.fetch_add(1);
        }
      }
    });
  }
  within(120'000ms, [&] {
    for (auto& th : ts)
      th.join();
  });
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(done.load(), std::uint64_t{threads} * rounds * depth);
  const bam::queue_stats s = qp.stats();
  EXPECT_FALSE(s.failed);
  EXPECT_EQ(s.timeouts, 0u);
  EXPECT_EQ(s.cq_head, std::uint64_t{threads} * rounds * depth);  // every entry passed
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
  EXPECT_GT(ctrl.max_in_flight(), 1u);
}

// A controller that fetches commands but never completes them: every wait ends by its
// deadline, the lost IDs pile up until the queue fails itself, and from then on every
// submission fails at once. Nothing hangs.
TEST(QueueOutstanding, ControllerThatNeverCompletesFailsTheQueueInBoundedTime) {
  manual_controller ctrl(8);  // never posts; the SQ head never moves
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  std::atomic<std::uint64_t> timeouts{0}, failed{0}, other{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        const nvme::completion e = q.submit_and_wait(tagged(1), 5'000'000);  // 5 ms
        if (e.status() == nvme::sc::host_timeout)
          timeouts.fetch_add(1);
        else if (e.status() == nvme::sc::host_queue_failed)
          failed.fetch_add(1);
        else
          other.fetch_add(1);
      }
    });
  }
  within(10'000ms, [&] {
    for (auto& th : ts)
      th.join();
  });
  EXPECT_EQ(other.load(), 0u);
  EXPECT_EQ(timeouts.load() + failed.load(), 40u);
  // The 8-entry SQ takes 7 commands, whose waits time out (or see the queue fail, when the 8th
  // submitter, finding no progress for 5 ms, fails it first); the rest fail at once.
  EXPECT_LE(timeouts.load(), 7u);
  EXPECT_GE(failed.load(), 33u);
  EXPECT_TRUE(q.failed());
  EXPECT_EQ(qp.stats().timeouts, timeouts.load());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(q.submit_and_wait(tagged(2), 0).status(), nvme::sc::host_queue_failed);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 100ms);

  // The owner's reset (after the controller side was recreated) makes the queue usable again.
  manual_controller fresh(8);
  bam::queue_pair qp2(fresh.desc());
  qp2.reset();
  EXPECT_FALSE(qp2.stats().failed);
}

// A waiter whose queue is failed while it waits returns at once, and its command ID stays
// abandoned (the controller may still complete it) until the queue is reset.
TEST(QueueOutstanding, FailWakesWaitersAndKeepsTheirIdsAbandoned) {
  manual_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  nvme::command a = tagged(3);
  const std::uint16_t ca = q.submit(a);
  nvme::completion e{};
  within(2000ms, [&] {
    std::thread failer([&] {
      std::this_thread::sleep_for(20ms);
      q.fail();
    });
    e = q.wait(ca);  // no timeout: only the failure ends it
    failer.join();
  });
  EXPECT_EQ(e.status(), nvme::sc::host_queue_failed);
  EXPECT_EQ(e.cid, ca);
  EXPECT_TRUE(q.abandoned(ca));
  qp.reset();
  EXPECT_FALSE(q.abandoned(ca));
  EXPECT_FALSE(q.failed());
}

// A completion whose SQHD says the controller fetched past the tail fails the queue instead of
// releasing SQ slots that were never submitted: one past the tail (2 after 1 entry, which the
// tail's word, 2 x the tail, would pass if read as a position) and further.
TEST(QueueOutstanding, SqHeadPastTheTailFailsTheQueue) {
  for (const std::uint16_t sqhd : {std::uint16_t{2}, std::uint16_t{5}}) {
    manual_controller ctrl(16);
    bam::queue_pair qp(ctrl.desc());
    const auto q = qp.ref();
    nvme::command a = tagged(9);
    const std::uint16_t ca = q.submit(a);
    ASSERT_EQ(ctrl.fetch().size(), 1u);
    ctrl.post_with_sqhd(ca, 9, sqhd);  // only 1 entry was submitted
    nvme::completion e{};
    within(2000ms, [&] { e = q.wait_for(ca, 100'000'000); });
    EXPECT_EQ(e.dw0, 9u) << "SQHD " << sqhd;  // the entry itself is delivered
    EXPECT_TRUE(q.failed()) << "SQHD " << sqhd;
    EXPECT_EQ(qp.pointers().counters->invalid_completions, 1u) << "SQHD " << sqhd;
    EXPECT_EQ(qp.stats().sq_head, 0u) << "SQHD " << sqhd;  // not advanced past the tail
  }
}

// The command-ID pool is twice the ring where the 16-bit ID space allows, and says so when not.
TEST(QueueOutstanding, CommandIdPoolSize) {
  EXPECT_EQ(bam::cid_count_for(2), 1024u);
  EXPECT_EQ(bam::cid_count_for(1024), 2048u);
  EXPECT_EQ(bam::cid_count_for(32752), 65504u);
  EXPECT_EQ(bam::cid_count_for(32768), 65504u);  // capped: fewer than 2N
  EXPECT_EQ(bam::cid_count_for(65536), 65504u);
}

}  // namespace
