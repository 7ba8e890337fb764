// ordering_read_ref (the §4.4 coalesced extra read) on the host, against the host emulated
// controller: off does nothing, sequential calls read once each, queued calls share one read,
// and many threads finish with every position covered and every read accounted for.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/queue/ordering_read.hpp"

namespace {
using namespace bam;

struct fixture {
  emu::emulated_controller ctrl{options()};
  controller_driver drv{(ctrl.start(), ctrl.bar()), ctrl.allocator()};
  io_queue_pair qp = drv.create_io_queue_pair(64);
  dma_buffer scratch{ctrl.allocator(), 4096};
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
  ordering_read_ref<memory_doorbell> policy() {
    return ordering_read_ref<memory_doorbell>(&state, qp.ref(), scratch.bus_address(), 1, 7, 1,
                                              timeout_ns);
  }
  std::uint64_t reads_served() const {
    return ctrl.stats().io_commands[static_cast<int>(nvme::nvm_opcode::read)];
  }
  std::uint64_t load(std::uint64_t& w) { return std::atomic_ref<std::uint64_t>(w).load(); }
};

TEST(OrderingRead, OffDoesNothing) {
  fixture f;
  const ordering_read_ref<memory_doorbell> off;
  EXPECT_FALSE(off.enabled());
  off.after_completion();
  EXPECT_EQ(f.reads_served(), 0u);
}

TEST(OrderingRead, EachSequentialCallReadsOnce) {
  fixture f;
  const auto p = f.policy();
  EXPECT_TRUE(p.enabled());
  for (int i = 0; i < 5; ++i)
    p.after_completion();
  EXPECT_EQ(f.reads_served(), 5u);
  EXPECT_EQ(f.load(f.state.reads), 5u);
  EXPECT_EQ(f.load(f.state.errors), 0u);
  EXPECT_EQ(f.load(f.state.tail), 5u);
  EXPECT_EQ(f.load(f.state.head), 5u);
}

TEST(OrderingRead, ThreadsQueuedBehindTheLockShareOneRead) {
  fixture f;
  const auto p = f.policy();
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

TEST(OrderingRead, ManyThreadsAllCoveredEveryReadCounted) {
  fixture f;
  const auto p = f.policy();
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

TEST(OrderingRead, AFailedReadStillCoversAndIsCounted) {
  fixture f;
  // LBA beyond the namespace: the controller fetches the command and fails it.
  const ordering_read_ref<memory_doorbell> p(&f.state, f.qp.ref(), f.scratch.bus_address(), 1,
                                             1u << 20, 1, fixture::timeout_ns);
  EXPECT_TRUE(p.after_completion()) << "a completion, even an error, proves the fetch";
  EXPECT_EQ(f.load(f.state.reads), 1u);
  EXPECT_EQ(f.load(f.state.errors), 1u);
  EXPECT_EQ(f.load(f.state.timeouts), 0u);
  EXPECT_EQ(f.load(f.state.head), 1u);
}

// A controller that does not answer: the ordering read times out, every thread it covered is
// told (false) in bounded time, nobody waits for ever; once the controller answers again the
// next calls are covered (true).
TEST(OrderingRead, AReadWithoutCompletionEndsInBoundedTimeAndIsReported) {
  fixture f;
  const ordering_read_ref<memory_doorbell> p(&f.state, f.qp.ref(), f.scratch.bus_address(), 1, 7, 1,
                                             20'000'000);
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
  EXPECT_TRUE(p.after_completion());
  EXPECT_EQ(f.load(f.state.head), std::uint64_t{n} + 1);
}

}  // namespace
