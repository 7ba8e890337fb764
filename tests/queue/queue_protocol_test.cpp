// The BaM queue protocol alone, against a loopback controller that completes out of order:
// every completion reaches the thread that submitted the command, exactly once, for any ring
// size (non-powers of two, the 2-entry minimum), with doorbells coalesced.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "bam/queue/queue_pair.hpp"
#include "loopback_controller.hpp"

namespace {
using bam::nvme::command;

struct protocol_case {
  std::uint32_t threads, sq_entries, cq_entries, per_thread, window;
};

class QueueProtocol : public ::testing::TestWithParam<protocol_case> {};

TEST_P(QueueProtocol, EveryCompletionReachesItsSubmitterOnce) {
  const protocol_case pc = GetParam();
  bam::test::loopback_controller ctrl(pc.sq_entries, pc.cq_entries, pc.window, 42);
  bam::queue_pair qp(ctrl.desc());
  const auto ref = qp.ref();

  std::atomic<std::uint64_t> wrong{0}, done{0};
  std::vector<std::thread> threads;
  for (std::uint32_t t = 0; t < pc.threads; ++t) {
    threads.emplace_back([&, t] {
      for (std::uint32_t i = 0; i < pc.per_thread; ++i) {
        command c{};
        c.opcode = 0x02;
        c.cdw10 = t * pc.per_thread + i;  // unique per command
        c.cdw11 = t;
        c.cdw13 = (i % 97 == 5) ? 0x80 : 0;  // some complete with LBA Out of Range
        const bam::nvme::completion e = ref.submit_and_wait(c);
        const bool ok = e.dw0 == bam::test::loopback_result(c) && e.dw1 == t &&
                        e.status().sc == c.cdw13 && e.status().sct == 0 && e.sqid == 1;
        if (!ok) wrong.fetch_add(1);
        done.fetch_add(1);
      }
    });
  }
  // Watchdog: a stall of 60 s is a failure with the queue's state dumped.
  const auto deadline_step = std::chrono::seconds(60);
  std::uint64_t last = 0;
  auto last_change = std::chrono::steady_clock::now();
  while (done.load() < std::uint64_t{pc.threads} * pc.per_thread) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t now_done = done.load();
    if (now_done != last) {
      last = now_done;
      last_change = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - last_change > deadline_step) {
      FAIL() << "queue stalled at " << now_done << " completions\n" << qp.dump_state();
    }
  }
  for (auto& th : threads)
    th.join();

  const std::uint64_t total = std::uint64_t{pc.threads} * pc.per_thread;
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(ctrl.completed(), total);  // nothing completed twice, nothing lost
  const bam::queue_stats s = qp.stats();
  EXPECT_EQ(s.submitted, total);
  EXPECT_EQ(s.sq_tail, total);
  EXPECT_EQ(s.cq_head, total);
  EXPECT_EQ(s.sq_head, total);
  // Every thread joined: both locks free, each word the position it guards times 2.
  const bam::queue_counters& c = *qp.pointers().counters;
  EXPECT_EQ(c.sq_tail, bam::position_word(total, false)) << qp.dump_state();
  EXPECT_EQ(c.cq_head, bam::position_word(total, false)) << qp.dump_state();
  EXPECT_LE(s.sq_doorbell_writes, total);
  EXPECT_GE(s.sq_doorbell_writes, 1u);
  // The controller never saw more entries than the ring can hold.
  EXPECT_LE(ctrl.max_in_flight(), pc.sq_entries - 1 + pc.sq_entries);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, QueueProtocol,
    ::testing::Values(protocol_case{1, 2, 2, 3000, 1}, protocol_case{8, 2, 2, 250, 4},
                      protocol_case{16, 3, 5, 150, 8}, protocol_case{16, 7, 3, 150, 8},
                      protocol_case{32, 64, 64, 1000, 32}, protocol_case{64, 738, 738, 400, 256},
                      protocol_case{64, 1024, 1024, 400, 1024},
                      protocol_case{64, 1000, 17, 400, 64}),
    [](const auto& param_info) {
      const protocol_case& p = param_info.param;
      return fmt::format("t{}_sq{}_cq{}", p.threads, p.sq_entries, p.cq_entries);
    });

TEST(QueuePair, RejectsImpossibleSizes) {
  bam::test::loopback_controller ctrl(4, 4, 1, 1);
  bam::queue_pair_desc d = ctrl.desc();
  d.sq_entries = 1;
  EXPECT_THROW(bam::queue_pair{d}, std::logic_error);
  d.sq_entries = 65537;
  EXPECT_THROW(bam::queue_pair{d}, std::logic_error);
  d = ctrl.desc();
  d.cq_entries = 0;
  try {
    bam::queue_pair{d};
    ADD_FAILURE() << "no precondition failure";
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("queue_pair.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("precondition failed: n >= min_queue_entries"), std::string::npos) << what;
    EXPECT_NE(what.find("cq_entries = 0 outside [2, 65536]"), std::string::npos) << what;
  }
  d = ctrl.desc();
  d.cq_doorbell = nullptr;
  EXPECT_THROW(bam::queue_pair{d}, std::logic_error);
}

TEST(QueuePair, SingleThreadRingsOneDoorbellPerCommand) {
  bam::test::loopback_controller ctrl(5, 5, 1, 7);
  bam::queue_pair qp(ctrl.desc());
  const auto ref = qp.ref();
  for (std::uint32_t i = 0; i < 23; ++i) {
    command c{};
    c.cdw10 = i;
    EXPECT_EQ(ref.submit_and_wait(c).dw0, bam::test::loopback_result(c));
  }
  const bam::queue_stats s = qp.stats();
  EXPECT_EQ(s.sq_doorbell_writes, 23u);
  EXPECT_EQ(s.cq_doorbell_writes, 23u);
  EXPECT_EQ(s.sq_head, 23u);
}
}  // namespace
