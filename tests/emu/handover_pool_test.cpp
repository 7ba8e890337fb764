// The pool through which the GPU engine's warps hand queues over (bam/emu/gpu/handover_pool.hpp),
// on the host: first in first out, an entry whose put is not done is not taken, one taker per
// entry; and under ThreadSanitizer, threads that give queues away and take them as the engine's
// warps do (the engine itself cannot run under compute-sanitizer, which serialises kernels).
#include "bam/emu/gpu/handover_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace {

using bam::emu::gpu::handover_pool_ref;

/// A zeroed pool of `slots` entries whose indices start at `start` (to cross the 2^32 wrap).
struct pool_rig {
  std::vector<unsigned long long> ring;
  std::uint32_t head, tail;
  handover_pool_ref ref;
  explicit pool_rig(std::uint32_t slots, std::uint32_t start = 0)
      : ring(slots, 0), head(start), tail(start), ref{ring.data(), slots, &head, &tail} {}
};

TEST(HandoverPool, FirstInFirstOutAndOneTakerPerEntry) {
  pool_rig p(4, 0xfffffffeu);  // the indices wrap past 2^32 on the third put
  std::uint32_t at = 0;
  EXPECT_EQ(p.ref.oldest(&at), ~0u);  // empty
  EXPECT_EQ(p.ref.size(), 0u);
  for (std::uint32_t q : {7u, 3u, 9u})
    p.ref.put(q);
  EXPECT_EQ(p.ref.size(), 3u);
  for (std::uint32_t q : {7u, 3u, 9u}) {
    ASSERT_EQ(p.ref.oldest(&at), q);
    EXPECT_FALSE(p.ref.take(at + 1));  // not the oldest's index
    EXPECT_TRUE(p.ref.take(at));
    EXPECT_FALSE(p.ref.take(at));  // taken once
  }
  EXPECT_EQ(p.ref.oldest(&at), ~0u);
  EXPECT_EQ(p.ref.size(), 0u);
  // Laps: every slot used again, four entries at once (a full ring).
  for (std::uint32_t lap = 0; lap < 3; ++lap) {
    for (std::uint32_t q = 0; q < 4; ++q)
      p.ref.put(q + 10 * lap);
    for (std::uint32_t q = 0; q < 4; ++q) {
      ASSERT_EQ(p.ref.oldest(&at), q + 10 * lap);
      ASSERT_TRUE(p.ref.take(at));
    }
  }
}

TEST(HandoverPool, AnEntryWhosePutIsNotDoneOrAnEarlierLapsIsNotTaken) {
  pool_rig p(2);
  std::uint32_t at = 0;
  p.tail = 1;  // a put that has its index and has not written its slot yet
  EXPECT_EQ(p.ref.oldest(&at), ~0u);
  p.ring[0] = (std::uint64_t{0} << 32) | (5 + 1);  // now written
  EXPECT_EQ(p.ref.oldest(&at), 5u);
  EXPECT_EQ(at, 0u);
  // Index 2 uses slot 0 again: while slot 0 holds index 0's entry (taken, its taker not done
  // clearing), index 2 is not there to take.
  p.head = 2;
  p.tail = 3;
  EXPECT_EQ(p.ref.oldest(&at), ~0u);
  p.ring[0] = (std::uint64_t{2} << 32) | (6 + 1);
  EXPECT_EQ(p.ref.oldest(&at), 6u);
  EXPECT_EQ(at, 2u);
}

// Threads own queues, give some away and take from the pool, as engine warps do: a taken queue
// was in the pool (never owned twice), its state is what its giver wrote before the put (the
// release/acquire pair; ThreadSanitizer checks the order), and at the end every queue is owned
// or in the pool exactly once. The ring has as many slots as queues, so it runs full and laps.
TEST(HandoverPool, ThreadsGiveAndTakeEveryQueueExactlyOnce) {
  constexpr std::uint32_t queues = 64, threads = 8, steps = 100000;
  pool_rig p(std::bit_ceil(queues), 0xffff0000u);
  std::vector<std::atomic<int>> owner(queues);  // -1: in the pool
  std::vector<std::uint64_t> state(queues, 0);  // plain: written before the put, read after take
  std::vector<std::atomic<std::uint64_t>> expect(queues);
  for (std::uint32_t q = 0; q < queues; ++q) {
    owner[q] = static_cast<int>(q % threads);
    expect[q] = 0;
  }
  // The test's own atomics are relaxed, so that only the pool orders a queue's state between its
  // giver and its taker (with seq_cst here ThreadSanitizer saw no race with the put made relaxed).
  constexpr auto relaxed = std::memory_order_relaxed;
  std::atomic<std::uint64_t> puts{0}, takes{0}, wrong{0};
  std::vector<std::thread> pool_threads;
  for (std::uint32_t t = 0; t < threads; ++t) {
    pool_threads.emplace_back([&, t] {
      std::mt19937 rng(t + 1);
      std::vector<std::uint32_t> mine;
      for (std::uint32_t q = t; q < queues; q += threads)
        mine.push_back(q);
      for (std::uint32_t i = 0; i < steps; ++i) {
        if (!mine.empty() && rng() % 2 == 0) {
          const std::size_t k = rng() % mine.size();
          const std::uint32_t q = mine[k];
          mine[k] = mine.back();
          mine.pop_back();
          const std::uint64_t v = (std::uint64_t{t} << 32) | i;
          state[q] = v;
          expect[q].store(v, relaxed);
          if (owner[q].exchange(-1, relaxed) != static_cast<int>(t)) wrong.fetch_add(1, relaxed);
          p.ref.put(q);
          puts.fetch_add(1, relaxed);
        } else {
          std::uint32_t at = 0;
          const std::uint32_t q = p.ref.oldest(&at);
          if (q == ~0u || !p.ref.take(at)) continue;
          takes.fetch_add(1, relaxed);
          if (q >= queues || owner[q].exchange(static_cast<int>(t), relaxed) != -1)
            wrong.fetch_add(1, relaxed);
          if (state[q] != expect[q].load(relaxed)) wrong.fetch_add(1, relaxed);
          mine.push_back(q);
        }
      }
    });
  }
  for (auto& th : pool_threads)
    th.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(takes.load(), queues);  // queues did travel
  // Drain: every queue is owned by a thread or in the pool, once.
  std::vector<int> seen(queues, 0);
  std::uint32_t in_pool = 0, at = 0;
  for (std::uint32_t q; (q = p.ref.oldest(&at)) != ~0u; ++in_pool) {
    ASSERT_TRUE(p.ref.take(at));
    ASSERT_LT(q, queues);
    EXPECT_EQ(owner[q].load(), -1) << q;
    ++seen[q];
  }
  EXPECT_EQ(puts.load() - takes.load(), in_pool);
  for (std::uint32_t q = 0; q < queues; ++q) {
    if (owner[q].load() != -1) ++seen[q];
    EXPECT_EQ(seen[q], 1) << "queue " << q;
  }
  EXPECT_EQ(p.ref.size(), 0u);
}

}  // namespace
