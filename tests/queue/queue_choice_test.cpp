// shorter_queue (bam/queue/queue_choice.hpp) and queue_pair_ref::held on the host: held counts
// the commands a queue holds until their completions are passed; the choice leaves a queue that
// holds more for the drawn one, never for one that holds as many or more, draws every other
// queue of the SSD and none of another SSD's; and host threads that choose per command over
// loopback controllers get every completion back once, each command counted on one queue.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "bam/detail/hash.hpp"
#include "bam/queue/queue_choice.hpp"
#include "bam/queue/queue_set_ref.hpp"
#include "loopback_controller.hpp"
#include "manual_controller.hpp"

namespace {
using namespace bam;

nvme::command read_of(std::uint32_t tag) {
  nvme::command c{};
  c.opcode = 0x02;
  c.cdw10 = tag;
  return c;
}

/// `ssds` x `per_ssd` queue pairs on manual controllers, as one queue set.
struct manual_set {
  std::deque<test::manual_controller> ctrls;
  std::deque<queue_pair> pairs;
  std::vector<queue_pointers> pointers;
  queue_set_ref<memory_doorbell> set;

  manual_set(std::uint32_t ssds, std::uint32_t per_ssd) {
    for (std::uint32_t i = 0; i < ssds * per_ssd; ++i) {
      ctrls.emplace_back(16);
      pairs.emplace_back(ctrls.back().desc());
      pointers.push_back(pairs.back().pointers());
    }
    set = queue_set_ref<memory_doorbell>({pointers.data(), ssds, per_ssd, 9, 1024});
  }
  /// Submits `n` reads to queue `q` of `ssd` (nothing completes them).
  void hold(std::uint32_t ssd, std::uint32_t q, std::uint32_t n) {
    for (std::uint32_t i = 0; i < n; ++i) {
      nvme::command c = read_of(i);
      ASSERT_NE(set.queue(ssd, q).submit(c), set.queue(ssd, q).no_cid);
    }
  }
};

TEST(QueueChoice, HeldCountsCommandsUntilTheirCompletionsArePassed) {
  manual_set s(1, 1);
  const auto q = s.set.queue(0, 0);
  EXPECT_EQ(q.held(), 0u);
  std::vector<std::uint16_t> cids;
  for (std::uint32_t i = 0; i < 3; ++i) {
    nvme::command c = read_of(i);
    cids.push_back(q.submit(c));
  }
  EXPECT_EQ(q.held(), 3u);
  test::manual_controller& ctrl = s.ctrls[0];
  EXPECT_EQ(ctrl.fetch().size(), 3u);
  EXPECT_EQ(q.held(), 3u) << "fetched, not completed: still held";
  ctrl.post(cids[1], 7);
  EXPECT_EQ(q.held(), 3u) << "posted, not yet passed";
  EXPECT_EQ(q.wait(cids[1]).dw0, 7u);
  EXPECT_EQ(q.held(), 2u);
  ctrl.post(cids[0], 1);
  ctrl.post(cids[2], 2);
  EXPECT_EQ(q.wait(cids[2]).dw0, 2u);
  EXPECT_EQ(q.wait(cids[0]).dw0, 1u);
  EXPECT_EQ(q.held(), 0u);
}

TEST(QueueChoice, LeavesAFullerQueueForTheDrawnOne) {
  manual_set s(2, 4);
  s.hold(0, 0, 3);
  // From queue 0 (3 held) every draw names another queue of SSD 0, each holding none.
  std::set<std::uint32_t> drawn;
  for (std::uint64_t draw = 0; draw < 6; ++draw) {
    const std::uint32_t q = shorter_queue(s.set, 0, 0, draw);
    EXPECT_NE(q, 0u) << "draw " << draw;
    EXPECT_LT(q, 4u);
    drawn.insert(q);
  }
  EXPECT_EQ(drawn, (std::set<std::uint32_t>{1, 2, 3}));
  // From queue 1 (none held): not to queue 0 (more), not to queue 2 or 3 (as many).
  for (std::uint64_t draw = 0; draw < 6; ++draw)
    EXPECT_EQ(shorter_queue(s.set, 0, 1, draw), 1u) << "draw " << draw;
  // Queue 2 holding 1 against queue 0's 3: from 0, a draw of queue 2 moves; from 2, it stays
  // unless the draw names queue 1 or 3.
  s.hold(0, 2, 1);
  EXPECT_EQ(shorter_queue(s.set, 0, 0, 1), 2u);  // (0 + 1 + 1) % 4
  EXPECT_EQ(shorter_queue(s.set, 0, 2, 1), 2u);  // (2 + 1 + 1) % 4 = 0, which holds more
  EXPECT_EQ(shorter_queue(s.set, 0, 2, 0), 3u);  // (2 + 1 + 0) % 4: holds none
  // SSD 1's queues are its own: SSD 0's commands do not count there.
  for (std::uint64_t draw = 0; draw < 6; ++draw)
    EXPECT_EQ(shorter_queue(s.set, 1, 0, draw), 0u) << "draw " << draw;
  s.hold(1, 3, 2);
  EXPECT_EQ(shorter_queue(s.set, 1, 3, 0), 0u);
}

TEST(QueueChoice, OneQueueAnSsdIsKept) {
  manual_set s(1, 1);
  s.hold(0, 0, 5);
  EXPECT_EQ(shorter_queue(s.set, 0, 0, 12345), 0u);
}

// Host threads, more than the queues, each choosing per command: every completion comes back
// to its submitter once, and the queues' tickets add up to the commands.
TEST(QueueChoice, ThreadsThatChoosePerCommandGetEveryCompletionOnce) {
  constexpr std::uint32_t queues = 4, threads = 12, per_thread = 3000;
  std::vector<std::unique_ptr<test::loopback_controller>> ctrls;
  std::deque<queue_pair> pairs;
  std::vector<queue_pointers> pointers;
  for (std::uint32_t i = 0; i < queues; ++i) {
    ctrls.push_back(std::make_unique<test::loopback_controller>(8, 8, 4, 100 + i));
    pairs.emplace_back(ctrls.back()->desc());
    pointers.push_back(pairs.back().pointers());
  }
  const queue_set_ref<memory_doorbell> set({pointers.data(), 1, queues, 9, 1024});
  std::atomic<std::uint64_t> wrong{0}, moves{0};
  std::vector<std::thread> pool;
  for (std::uint32_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::uint32_t q = 0;  // every thread starts on queue 0
      for (std::uint32_t i = 0; i < per_thread; ++i) {
        const std::uint32_t next = shorter_queue(set, 0, q, mix64(std::uint64_t{t} << 40 ^ i));
        moves.fetch_add(next != q ? 1 : 0, std::memory_order_relaxed);
        q = next;
        const nvme::command c = read_of(t * per_thread + i);
        const nvme::completion e = set.queue(0, q).submit_and_wait(c);
        if (e.dw0 != test::loopback_result(c) || !e.status().ok()) wrong.fetch_add(1);
      }
    });
  }
  for (auto& th : pool)
    th.join();
  EXPECT_EQ(wrong.load(), 0u);
  std::uint64_t tickets = 0, completed = 0;
  for (std::uint32_t i = 0; i < queues; ++i) {
    tickets += pointers[i].counters->sq_ticket;
    completed += ctrls[i]->completed();
    EXPECT_EQ(set.queue(0, i).held(), 0u) << "queue " << i;
  }
  EXPECT_EQ(tickets, std::uint64_t{threads} * per_thread);
  EXPECT_EQ(completed, std::uint64_t{threads} * per_thread);
  EXPECT_GT(moves.load(), 0u) << "12 threads on one of 4 queues never found a shorter one";
}

}  // namespace
