// Per-command timeouts of the queue protocol against a lossy controller: lost completions come
// back as sc::host_timeout, late completions are consumed on the waiter's behalf without
// blocking the queue or matching a newer command, and only lost commands keep their IDs.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "bam/detail/atomic.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/held_commands.hpp"
#include "bam/queue/queue_pair.hpp"

namespace {

using namespace std::chrono_literals;
constexpr std::uint32_t drop = 0xffffffffu;

/// Completes in order of due time: cdw14 = extra delay in ms, or `drop` (never completes).
class lossy_controller {
 public:
  explicit lossy_controller(std::uint32_t entries) : sq_(entries), cq_(entries) {
    desc_ = {sq_.data(), entries, cq_.data(), entries, &doorbells_[0], &doorbells_[32], 1};
    thread_ = std::thread([this] { run(); });
  }
  ~lossy_controller() {
    stop_.store(true);
    thread_.join();
  }
  const bam::queue_pair_desc& desc() const { return desc_; }
  std::uint64_t posted() const { return posted_.load(); }

 private:
  struct held {
    bam::nvme::command c;
    std::chrono::steady_clock::time_point due;
  };
  void run() {
    std::vector<held> pending;
    std::uint32_t sq_head = 0, cq_tail = 0;
    bool phase = true;
    const std::uint32_t n = desc_.sq_entries;
    while (!stop_.load(std::memory_order_relaxed)) {
      const std::uint32_t tail =
          bam::system_atomic_ref<std::uint32_t>(*desc_.sq_doorbell).load(bam::acquire);
      const auto now = std::chrono::steady_clock::now();
      while (sq_head != tail) {
        const bam::nvme::command c = sq_[sq_head];
        sq_head = (sq_head + 1) % n;
        if (c.cdw14 != drop) pending.push_back({c, now + std::chrono::milliseconds(c.cdw14)});
      }
      for (std::size_t i = 0; i < pending.size();) {
        const std::uint32_t cq_head =
            bam::system_atomic_ref<std::uint32_t>(*desc_.cq_doorbell).load(bam::acquire);
        if ((cq_tail + 1) % n == cq_head) break;
        if (pending[i].due > now) {
          ++i;
          continue;
        }
        const bam::nvme::command c = pending[i].c;
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
        bam::nvme::completion& e = cq_[cq_tail];
        e.dw0 = c.cdw10;
        e.sqhd = static_cast<std::uint16_t>(sq_head);
        e.sqid = 1;
        bam::system_atomic_ref<std::uint32_t>(reinterpret_cast<std::uint32_t*>(&e)[3])
            .store(bam::nvme::completion::make_dw3(c.cid, phase, bam::nvme::sc::success),
                   bam::release);
        if (++cq_tail == n) {
          cq_tail = 0;
          phase = !phase;
        }
        posted_.fetch_add(1);
      }
      std::this_thread::yield();
    }
  }
  std::vector<bam::nvme::command> sq_;
  std::vector<bam::nvme::completion> cq_;
  alignas(128) std::uint32_t doorbells_[64] = {};
  bam::queue_pair_desc desc_{};
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> posted_{0};
  std::thread thread_;
};

std::uint32_t cids_in_use(const bam::queue_pointers& p) {
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < p.cid_count / 32; ++i)
    n += static_cast<std::uint32_t>(
        std::popcount(bam::device_atomic_ref<std::uint32_t>(p.cid_bits[i]).load(bam::relaxed)));
  return n;
}

TEST(QueueTimeout, LostAndLateCompletionsAreReportedAndRecovered) {
  lossy_controller ctrl(64);
  bam::queue_pair qp(ctrl.desc());
  const auto ref = qp.ref();
  constexpr int threads = 8, per_thread = 300;
  // Long enough that an ordinary command never times out on a loaded machine (20 ms did, at a
  // load average of 70 on 2 cores).
  constexpr std::uint64_t timeout_ns = 250'000'000;  // 250 ms
  std::atomic<int> wrong{0}, timeouts{0}, dropped{0}, late{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        bam::nvme::command c{};
        c.opcode = 0x02;
        c.cdw10 = static_cast<std::uint32_t>(t * per_thread + i);
        const bool lose = i % 97 == 13, slow = i % 89 == 7;
        // slow: 3 s, twelve times the timeout. With 1 s, under ThreadSanitizer beside the other
        // tests on 2 cores, 7 waiters were not run for the 750 ms between their timeout and the
        // completion, found it posted and took it (seen once, 2026-11-29).
        c.cdw14 = lose ? drop : slow ? 3000u : 0u;
        dropped += lose ? 1 : 0;
        late += slow ? 1 : 0;
        const bam::nvme::completion e = ref.submit_and_wait(c, timeout_ns);
        if (lose || slow) {
          timeouts += e.status() == bam::nvme::sc::host_timeout ? 1 : 0;
          wrong += e.status() == bam::nvme::sc::host_timeout ? 0 : 1;
        } else {
          wrong += e.status().ok() && e.dw0 == c.cdw10 ? 0 : 1;
        }
      }
    });
  }
  for (auto& th : ts)
    th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(timeouts.load(), dropped.load() + late.load());
  EXPECT_EQ(qp.pointers().counters->timeouts, static_cast<std::uint64_t>(timeouts.load()));

  // Let every slow completion arrive, then push ordinary commands through: the CQ-lock holders
  // consume the late entries and free their IDs; only the lost commands keep theirs.
  std::this_thread::sleep_for(3100ms);
  const std::uint64_t expected_posted =
      static_cast<std::uint64_t>(threads * per_thread - dropped.load());
  while (ctrl.posted() < expected_posted)
    std::this_thread::sleep_for(1ms);
  for (int i = 0; i < 200; ++i) {
    bam::nvme::command c{};
    c.cdw10 = 1'000'000u + static_cast<std::uint32_t>(i);
    const bam::nvme::completion e = ref.submit_and_wait(c, timeout_ns);
    ASSERT_TRUE(e.status().ok());
    ASSERT_EQ(e.dw0, c.cdw10);
  }
  EXPECT_EQ(qp.pointers().counters->late_completions, static_cast<std::uint64_t>(late.load()));
  EXPECT_EQ(cids_in_use(qp.pointers()), static_cast<std::uint32_t>(dropped.load()));
}

// completed() and held_commands::done() tell, without waiting, whether a wait would return at
// once: not while the controller holds the command, yes once it posted it (the caller's poll
// moves the CQ head), yes for a failed queue, and for a slot that holds nothing.
TEST(QueueTimeout, DoneSaysWithoutWaitingWhetherAWaitWouldReturnAtOnce) {
  lossy_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  bam::held_commands<> held(2);
  EXPECT_TRUE(held.done(0));  // holds nothing
  bam::nvme::command slow{}, lost{};
  slow.cdw10 = 7;
  slow.cdw14 = 40;  // 40 ms
  lost.cdw14 = drop;
  const std::uint16_t cid = held.submit(0, qp.ref(), slow);
  (void)held.submit(1, qp.ref(), lost);
  EXPECT_FALSE(qp.ref().completed(cid));
  EXPECT_FALSE(held.done(0));
  const auto t0 = std::chrono::steady_clock::now();
  while (!held.done(0))
    std::this_thread::sleep_for(1ms);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 30ms);
  EXPECT_TRUE(qp.ref().completed(cid));
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(held.wait_for(0, 1'000'000'000).dw0, 7u);
  EXPECT_LT(std::chrono::steady_clock::now() - t1, 100ms);  // at once (generous: a loaded host)
  EXPECT_FALSE(held.done(1));                               // never posted
  qp.ref().fail();
  EXPECT_TRUE(held.done(1));  // the wait ends at once on a failed queue
  EXPECT_EQ(held.wait_for(1, 0).status(), bam::nvme::sc::host_queue_failed);
}

TEST(QueueTimeout, ZeroTimeoutWaitsForever) {
  lossy_controller ctrl(8);
  bam::queue_pair qp(ctrl.desc());
  bam::nvme::command c{};
  c.cdw10 = 5;
  c.cdw14 = 30;  // 30 ms: longer than nothing, shorter than forever
  EXPECT_EQ(qp.ref().submit_and_wait(c, 0).dw0, 5u);
}

}  // namespace
