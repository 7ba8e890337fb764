// A thread's hold on a queue pair it alone uses (bam::queue_hold): its commands go out and come
// back with their own results; the queue's bookkeeping ends as the shared protocol would leave
// it (so shared submissions continue from it, ring wraps included) with the CQ head doorbell rung
// every half ring; a command that times out is left to the shared protocol until its late
// completion is passed; an entry that is not the holder's own fails the queue as the shared
// protocol does; a lagging SQ head never lets the ring wrap; the owner's polls wait.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_hold.hpp"
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
using hold = bam::queue_hold<>;

// One submission through `h` on a thread while the test's controller thread fetches what it
// rang and posts `post(fetched)`; returns the completion and what was fetched.
struct round_trip {
  nvme::completion e{};
  std::vector<nvme::command> fetched;
};
template <class Post>
round_trip through(manual_controller& ctrl, hold& h, std::uint32_t tag, std::uint64_t timeout_ns,
                   Post post) {
  round_trip r;
  within(5000ms, [&] {
    std::thread client([&] { r.e = h.submit_and_wait(tagged(tag), timeout_ns); });
    while ((r.fetched = ctrl.fetch()).empty())
      std::this_thread::yield();
    post(r.fetched);
    client.join();
  });
  return r;
}

// Three passes and a bit of an 8-entry ring under one hold, then holds of one command alternated
// with shared submissions: every result is the command's own; after the hold the counters, turn
// counters and IDs read as after as many shared commands (a shared submission waits for its
// slot's turn: a turn count left short would hang it), and the CQ head doorbell was rung every
// 4 entries and once more at release, at the head.
TEST(QueueHold, OneThreadsCommandsLeaveTheSharedBookkeeping) {
  constexpr std::uint32_t entries = 8, rounds = 3 * entries + 3;
  bam::test::loopback_controller ctrl(entries, entries, 4, 7);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  within(20'000ms, [&] {
    hold h(q);
    ASSERT_TRUE(h.held());
    for (std::uint32_t i = 0; i < rounds; ++i) {
      const nvme::command c = tagged(i);
      const nvme::completion e = h.submit_and_wait(c, 1'000'000'000);
      ASSERT_TRUE(e.status().ok()) << "command " << i;
      ASSERT_EQ(e.dw0, bam::test::loopback_result(c)) << "command " << i;
      ASSERT_EQ(e.cid, 0u);  // the hold's ID
      ASSERT_EQ(e.sqid, 1u);
    }
    EXPECT_TRUE(h.held());
    EXPECT_EQ(qp.stats().cq_doorbell_writes, rounds / (entries / 2));
    h.release();
    EXPECT_FALSE(h.held());
  });
  bam::queue_stats s = qp.stats();
  EXPECT_EQ(s.submitted, rounds);
  EXPECT_EQ(s.sq_tail, rounds);
  EXPECT_EQ(s.sq_head, rounds);
  EXPECT_EQ(s.cq_head, rounds);
  EXPECT_EQ(s.sq_doorbell_writes, rounds);  // one SQ doorbell a command
  EXPECT_EQ(s.cq_doorbell_writes, rounds / (entries / 2) + 1);
  EXPECT_EQ(bam::system_atomic_ref<std::uint32_t>(*ctrl.desc().cq_doorbell).load(bam::acquire),
            rounds % entries);
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
  EXPECT_EQ(qp.pointers().boxes[0].state, 0u);  // taken from the CQ, never through the box
  EXPECT_EQ(qp.pointers().boxes[0].dw0, 0u);
  for (std::uint32_t slot = 0; slot < entries; ++slot) {
    // Each pass of a slot: one increment as the tail passed it, one as the SQ head did.
    const std::uint32_t passes = rounds / entries + (slot < rounds % entries ? 1 : 0);
    EXPECT_EQ(qp.pointers().turn_counters[slot], 2 * passes) << "slot " << slot;
  }
  within(20'000ms, [&] {
    for (std::uint32_t i = 0; i < 2 * entries; ++i) {
      const nvme::command c = tagged(100 + i);
      const nvme::completion e = q.submit_and_wait(c, 1'000'000'000);
      ASSERT_TRUE(e.status().ok());
      ASSERT_EQ(e.dw0, bam::test::loopback_result(c));
      hold h(q);
      ASSERT_TRUE(h.held());
      const nvme::command x = tagged(200 + i);
      const nvme::completion f = h.submit_and_wait(x, 1'000'000'000);
      ASSERT_TRUE(f.status().ok());
      ASSERT_EQ(f.dw0, bam::test::loopback_result(x));
    }  // each hold released as it goes out of scope
  });
  s = qp.stats();
  EXPECT_FALSE(s.failed);
  EXPECT_EQ(s.cq_head, rounds + 4 * entries);
  EXPECT_EQ(s.sq_head, rounds + 4 * entries);
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
  EXPECT_FALSE(bam::position_locked(qp.pointers().counters->sq_tail) ||
               bam::position_locked(qp.pointers().counters->cq_head));
}

// No hold on a queue that is not idle (a shared command in flight) or whose lock another thread
// holds; the holder's submission then goes through the shared protocol.
TEST(QueueHold, NotTakenOnABusyQueue) {
  manual_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  {
    // A first command (ticket 0, ID 0) completed: the one in flight below has ID 1, so only the
    // positions can refuse the hold.
    nvme::command z = tagged(0);
    const std::uint16_t cz = q.submit(z);
    ASSERT_EQ(ctrl.fetch().size(), 1u);
    ctrl.post(cz, 0);
    within(2000ms, [&] { (void)q.wait_for(cz, 100'000'000); });
  }
  nvme::command a = tagged(1);
  const std::uint16_t ca = q.submit(a);
  ASSERT_NE(ca, 0u);
  {
    hold h(q);
    EXPECT_FALSE(h.held());
  }
  EXPECT_EQ(qp.pointers().counters->users, 1u);  // the shared command's, until its wait
  EXPECT_EQ(qp.stats().cq_head, 1u);
  EXPECT_FALSE(bam::position_locked(qp.pointers().counters->sq_tail) ||
               bam::position_locked(qp.pointers().counters->cq_head));
  ASSERT_EQ(ctrl.fetch().size(), 1u);
  ctrl.post(ca, 1);
  nvme::completion e{};
  within(2000ms, [&] { e = q.wait_for(ca, 100'000'000); });
  EXPECT_EQ(e.dw0, 1u);
  {
    hold first(q);
    ASSERT_TRUE(first.held());
    hold second(q);  // the locks are the first's
    EXPECT_FALSE(second.held());
  }
  {
    hold h(q);
    EXPECT_TRUE(h.held());                         // idle again, nobody holding
    EXPECT_EQ(cids_in_use(qp.pointers()), 1u);     // ID 0, the hold's
    EXPECT_EQ(qp.pointers().counters->users, 1u);  // the holder
  }
  EXPECT_EQ(qp.pointers().counters->users, 0u);
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
}

// A queue failed while held (the owner's quiesce, another thread's fail()): the next submission
// takes nothing more, as the shared protocol's: Host Queue Failed without an ID, nothing rung,
// the hold ended and the holder counted out.
TEST(QueueHold, AFailedQueueTakesNothingMore) {
  manual_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  hold h(q);
  ASSERT_TRUE(h.held());
  q.fail();
  const nvme::completion e = h.submit_and_wait(tagged(1), 100'000'000);
  EXPECT_EQ(e.status(), nvme::sc::host_queue_failed);
  EXPECT_EQ(e.cid, q.no_cid);
  EXPECT_TRUE(ctrl.fetch().empty());
  EXPECT_FALSE(h.held());
  EXPECT_EQ(qp.stats().sq_tail, 0u);
  EXPECT_EQ(qp.stats().submitted, 0u);
  EXPECT_EQ(qp.pointers().counters->users, 0u);
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
}

// An SQHD past the tail (the controller cannot have fetched what was not submitted): the holder
// gets its completion, the queue fails, the hold ends, as the shared protocol's holder does.
TEST(QueueHold, AnSqHeadPastTheTailFailsTheQueue) {
  manual_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  hold h(q);
  const round_trip r = through(ctrl, h, 4, 2'000'000'000, [&](const auto& f) {
    ctrl.post_with_sqhd(f[0].cid, 4, 5);  // one entry submitted, SQ head 5 reported
  });
  EXPECT_EQ(r.e.dw0, 4u);
  EXPECT_TRUE(q.failed());
  EXPECT_FALSE(h.held());
  EXPECT_EQ(qp.pointers().counters->invalid_completions, 1u);
  EXPECT_EQ(qp.stats().sq_head, 0u);  // not moved to an impossible position
  EXPECT_EQ(qp.pointers().counters->users, 0u);
}

// A CQ half the SQ's size: the CQ head doorbell every 2 entries keeps the controller, which
// refuses to post into a full CQ, going (a doorbell left unrung would hang it).
TEST(QueueHold, ACompletionQueueSmallerThanTheSubmissionQueue) {
  constexpr std::uint32_t commands = 40;
  bam::test::loopback_controller ctrl(8, 4, 4, 5);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  within(20'000ms, [&] {
    hold h(q);
    ASSERT_TRUE(h.held());
    for (std::uint32_t i = 0; i < commands; ++i) {
      const nvme::command c = tagged(i);
      const nvme::completion e = h.submit_and_wait(c, 1'000'000'000);
      ASSERT_EQ(e.dw0, bam::test::loopback_result(c)) << "command " << i;
    }
  });
  EXPECT_EQ(qp.stats().cq_doorbell_writes, commands / 2);
  EXPECT_EQ(qp.stats().cq_head, commands);
  EXPECT_FALSE(q.failed());
}

// A command that gets no completion in time: Host Timeout with ID 0 abandoned, as a shared
// waiter's, and the hold ends. The queue is then not idle (the CQ head lags the tail), so the
// next submission goes through the shared protocol (a ticket's ID, not 0) and, waiting, passes
// the late completion, which frees ID 0; the one after that holds the queue again (ID 0).
TEST(QueueHold, ATimedOutCommandIsLeftToTheSharedProtocol) {
  manual_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  hold h(q);
  ASSERT_TRUE(h.held());
  nvme::completion e{};
  within(5000ms, [&] { e = h.submit_and_wait(tagged(1), 50'000'000); });
  EXPECT_EQ(e.status(), nvme::sc::host_timeout);
  EXPECT_EQ(e.cid, 0u);
  EXPECT_FALSE(h.held());
  EXPECT_TRUE(q.abandoned(0));
  EXPECT_EQ(qp.stats().timeouts, 1u);
  EXPECT_EQ(qp.stats().cq_head, 0u);
  EXPECT_EQ(qp.stats().sq_tail, 1u);
  const std::vector<nvme::command> late = ctrl.fetch();
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].cid, 0u);
  EXPECT_EQ(late[0].cdw10, 1u);
  ctrl.post(0, 1);  // the late completion, before the next command's

  const round_trip shared = through(ctrl, h, 2, 1'000'000'000, [&](const auto& f) {
    for (const nvme::command& c : f)
      ctrl.post(c.cid, c.cdw10);
  });
  ASSERT_EQ(shared.fetched.size(), 1u);
  EXPECT_EQ(shared.fetched[0].cid, 1u);  // ticket 1's ID: the shared protocol
  EXPECT_TRUE(shared.e.status().ok());
  EXPECT_EQ(shared.e.dw0, 2u);
  EXPECT_FALSE(h.held());
  EXPECT_FALSE(q.abandoned(0));
  EXPECT_EQ(qp.stats().late_completions, 1u);
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);

  const round_trip again =
      through(ctrl, h, 3, 1'000'000'000, [&](const auto& f) { ctrl.post(f[0].cid, f[0].cdw10); });
  ASSERT_EQ(again.fetched.size(), 1u);
  EXPECT_EQ(again.fetched[0].cid, 0u);  // held again
  EXPECT_EQ(again.e.dw0, 3u);
  EXPECT_TRUE(h.held());
  h.release();
  EXPECT_FALSE(q.failed());
  EXPECT_EQ(qp.stats().cq_head, 3u);
  EXPECT_EQ(qp.stats().sq_head, 3u);
  EXPECT_EQ(ctrl.cq_doorbell(), 3u);
  EXPECT_EQ(qp.pointers().counters->users, 0u);
}

// The entry at the head names an ID that is not in flight (a held queue holds only the holder's
// command): the shared protocol passes it and fails the queue, and the holder gets Host Queue
// Failed.
TEST(QueueHold, AnotherCommandsEntryAtTheHeadFailsTheQueue) {
  manual_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  hold h(q);
  const round_trip r = through(ctrl, h, 1, 2'000'000'000, [&](const auto& f) {
    EXPECT_EQ(f.size(), 1u);
    ctrl.post(5, 9);  // ID 5: never submitted
  });
  EXPECT_EQ(r.e.status(), nvme::sc::host_queue_failed);
  EXPECT_TRUE(q.failed());
  EXPECT_FALSE(h.held());
  EXPECT_EQ(qp.pointers().counters->invalid_completions, 1u);
  nvme::command c = tagged(2);
  EXPECT_EQ(q.submit(c), q.no_cid);  // a failed queue takes nothing more
}

// The controller's completions report an SQ head that never moves (SQHD 0): the holder's seven
// commands complete (the ring holds N-1), then the eighth would move the tail onto the SQ head,
// which reads as an empty ring: the hold ends, the shared protocol waits for room and, with
// nothing left to complete, fails the queue at its deadline; the tail never moved onto the head.
TEST(QueueHold, ALaggingSqHeadKeepsTheRingFromWrapping) {
  constexpr std::uint32_t entries = 8;
  manual_controller ctrl(entries);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  hold h(q);
  for (std::uint32_t i = 0; i < entries - 1; ++i) {
    const round_trip r = through(ctrl, h, i, 1'000'000'000, [&](const auto& f) {
      ctrl.post_with_sqhd(f[0].cid, f[0].cdw10, 0);
    });
    ASSERT_EQ(r.e.dw0, i);
    ASSERT_EQ(r.fetched[0].cid, 0u);  // held throughout
  }
  EXPECT_EQ(qp.stats().sq_head, 0u);
  nvme::completion e{};
  within(5000ms, [&] { e = h.submit_and_wait(tagged(entries - 1), 200'000'000); });
  EXPECT_TRUE(ctrl.fetch().empty()) << "the tail moved onto the SQ head";
  EXPECT_FALSE(h.held());
  EXPECT_EQ(qp.stats().sq_tail, entries - 1);
  EXPECT_EQ(e.status(), nvme::sc::host_queue_failed);
  EXPECT_TRUE(q.failed());
}

// The owner polls the queue (poll(): the CQ lock) while its one user holds it, as a recovery
// watchdog does: the hold keeps the CQ lock, so the owner never passes the user's completions:
// every command completes with its own result, none is passed twice, nothing fails; once the
// hold is released the owner's poll takes the lock again. (ThreadSanitizer checks the accesses.)
TEST(QueueHold, TheOwnersPollsWaitForTheHold) {
  constexpr std::uint32_t entries = 16, commands = 3000;
  bam::test::loopback_controller ctrl(entries, entries, 4, 11);
  bam::queue_pair qp(ctrl.desc());
  const auto q = qp.ref();
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> taken{0};
  std::uint32_t wrong = 0;
  within(60'000ms, [&] {
    std::thread owner([&] {
      while (!done.load()) {
        if (q.poll()) taken.fetch_add(1);
        std::this_thread::yield();
      }
    });
    {
      hold h(q);
      EXPECT_TRUE(h.held());
      for (std::uint32_t i = 0; i < commands; ++i) {
        const nvme::command c = tagged(i);
        const nvme::completion e = h.submit_and_wait(c, 2'000'000'000);
        if (!e.status().ok() || e.dw0 != bam::test::loopback_result(c)) ++wrong;
      }
      EXPECT_TRUE(h.held());
    }
    done.store(true);
    owner.join();
  });
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(taken.load(), 0u);  // nothing was ever posted while the lock was free
  const bam::queue_stats s = qp.stats();
  EXPECT_FALSE(s.failed);
  EXPECT_EQ(s.cq_head, commands);
  EXPECT_EQ(s.sq_head, commands);
  EXPECT_EQ(s.timeouts, 0u);
  EXPECT_EQ(cids_in_use(qp.pointers()), 0u);
}

}  // namespace
