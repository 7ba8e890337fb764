// The whole host-mode stack under load: 64 threads drive BaM queue pairs created by the
// controller driver against the host emulated controller, mixing reads and writes of 1 to 24
// blocks (PRP lists included). Every block is stamped with its LBA, a generation number and the
// writer; every read must return exactly the last stamp written to each of its blocks. Counts
// prove nothing was lost or completed twice; a watchdog turns a hang into a failure with the
// queues' state dumped.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"
#include "bam/nvme/prp.hpp"

namespace {

constexpr std::uint32_t lba_size = 512;
constexpr std::uint32_t max_blocks = 24;  // 12 KiB: up to 4 pages, so PRP lists are exercised

/// The stamp at the start of every block (the rest of the block repeats a pattern of it).
struct stamp {
  std::uint64_t lba;
  std::uint64_t generation;
  std::uint64_t writer;
  std::uint64_t check;  // lba ^ generation ^ writer ^ magic
};
constexpr std::uint64_t magic = 0x6261'6d6b'6974'0001ull;

void fill_block(std::uint8_t* block, const stamp& s) {
  for (std::uint32_t off = 0; off < lba_size; off += sizeof(stamp))
    std::memcpy(block + off, &s, sizeof s);
}

struct stress_case {
  std::uint32_t threads, queue_pairs, commands_per_thread;
  std::vector<std::uint32_t> depths;  // cycled over the queue pairs
};

/// Queues thread t submits to: its share of the pairs when there are more pairs than threads,
/// else the one pair it shares with threads t ± queue_pairs.
std::vector<std::uint32_t> queues_of(const stress_case& c, std::uint32_t t) {
  std::vector<std::uint32_t> qs;
  if (c.queue_pairs >= c.threads) {
    for (std::uint32_t q = t; q < c.queue_pairs; q += c.threads)
      qs.push_back(q);
  } else {
    qs.push_back(t % c.queue_pairs);
  }
  return qs;
}

/// The queue of each command thread t issues, in order: `commands_per_thread` spread over its
/// queues, proportionally fewer on queues shallower than 64 entries (a 2-entry ring has one
/// command in flight: its round trips, not the protocol, would set the test's duration).
std::vector<std::uint32_t> schedule_of(const stress_case& c, std::uint32_t t) {
  const std::vector<std::uint32_t> qs = queues_of(c, t);
  std::vector<std::uint32_t> order;
  for (std::uint32_t q : qs) {
    const std::uint32_t depth = c.depths[q % c.depths.size()];
    const std::uint32_t share = c.commands_per_thread / static_cast<std::uint32_t>(qs.size());
    order.insert(order.end(), depth >= 64 ? share : share * depth / 64, q);
  }
  std::shuffle(order.begin(), order.end(), std::mt19937_64(t));
  return order;
}

std::string describe(const stress_case& c) {
  std::string d;
  for (auto x : c.depths)
    d += std::to_string(x) + "_";
  return fmt::format("t{}_qp{}_d{}", c.threads, c.queue_pairs, d);
}

class HostEngineStress : public ::testing::TestWithParam<stress_case> {};

TEST_P(HostEngineStress, ReadsReturnLastWriteAndNothingIsLost) {
  const stress_case sc = GetParam();
  bam::emu::controller_options opts;
  opts.lba_size = lba_size;
  opts.namespace_lbas = 1u << 15;  // 16 MiB
  opts.max_queue_entries = 1024;
  opts.max_io_queue_pairs = 128;
  opts.worker_threads = 2;
  bam::emu::emulated_controller ctrl(opts);
  ctrl.start();
  bam::controller_driver driver(ctrl.bar(), ctrl.allocator());
  ASSERT_GE(driver.info().io_queue_pairs, sc.queue_pairs);

  std::vector<bam::io_queue_pair> qps;
  for (std::uint32_t q = 0; q < sc.queue_pairs; ++q)
    qps.push_back(driver.create_io_queue_pair(sc.depths[q % sc.depths.size()]));

  // Thread t owns LBAs with (lba / max_blocks) % threads == t, in runs of max_blocks blocks, so
  // a command of up to max_blocks blocks starting at a run's first block stays inside its own
  // LBAs and "the last write" to a block is well defined.
  const std::uint64_t runs = opts.namespace_lbas / max_blocks;
  const std::uint64_t runs_per_thread = runs / sc.threads;
  ASSERT_GT(runs_per_thread, 0u);

  std::atomic<std::uint64_t> done{0}, mismatches{0}, errors{0}, blocks_verified{0};
  std::vector<std::string> first_error(sc.threads);
  std::vector<std::thread> threads;
  for (std::uint32_t t = 0; t < sc.threads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      bam::dma_buffer data(ctrl.allocator(), max_blocks * lba_size + 4096);
      bam::dma_buffer list(ctrl.allocator(), 4096);
      // Last generation written per owned block (0 = never written: reads must see zeroes).
      std::vector<std::uint64_t> gen(runs_per_thread * max_blocks, 0);
      const std::vector<std::uint32_t> schedule = schedule_of(sc, t);
      for (std::size_t i = 0; i < schedule.size(); ++i) {
        const std::uint64_t run = rng() % runs_per_thread;
        const std::uint64_t first = (run * sc.threads + t) * max_blocks;
        const auto nlb = static_cast<std::uint32_t>(1 + rng() % max_blocks);
        const bool is_write = rng() % 2 == 0;
        // A random dword-aligned start inside the first page: exercises unaligned PRP1.
        const std::size_t offset = (rng() % 1024) * 4;
        auto* buf = data.as<std::uint8_t>() + offset;
        bam::nvme::prp_pair prp;
        const auto st = bam::nvme::build_prps(
            std::uint64_t{nlb} * lba_size, 12,
            [&](std::uint64_t off) { return data.bus_address(offset + off); },
            [&](std::uint32_t) {
              return bam::nvme::prp_list_page{list.as<std::uint64_t>(), list.bus_address()};
            },
            prp);
        if (!st.ok()) {
          errors.fetch_add(1);
          continue;
        }
        const auto& qp = qps[schedule[i]];
        if (is_write) {
          for (std::uint32_t b = 0; b < nlb; ++b) {
            std::uint64_t& g = gen[run * max_blocks + b];
            ++g;
            const stamp s{first + b, g, t, (first + b) ^ g ^ t ^ magic};
            fill_block(buf + std::size_t{b} * lba_size, s);
          }
        } else {
          std::memset(buf, 0xee, std::size_t{nlb} * lba_size);
        }
        const bam::nvme::command cmd =
            is_write ? bam::nvme::write(1, first, nlb, prp) : bam::nvme::read(1, first, nlb, prp);
        const bam::nvme::completion c = qp.ref().submit_and_wait(cmd);
        if (!c.status().ok()) {
          if (errors.fetch_add(1) == 0) first_error[t] = bam::nvme::describe(c.status());
        } else if (!is_write) {
          for (std::uint32_t b = 0; b < nlb; ++b) {
            const std::uint64_t g = gen[run * max_blocks + b];
            std::vector<std::uint8_t> expect(lba_size, 0);
            if (g != 0)
              fill_block(expect.data(), stamp{first + b, g, t, (first + b) ^ g ^ t ^ magic});
            if (std::memcmp(expect.data(), buf + std::size_t{b} * lba_size, lba_size) != 0)
              mismatches.fetch_add(1);
            else
              blocks_verified.fetch_add(1);
          }
        }
        done.fetch_add(1);
      }
    });
  }

  std::uint64_t total = 0;
  for (std::uint32_t t = 0; t < sc.threads; ++t)
    total += schedule_of(sc, t).size();
  ASSERT_GE(total, 100000u);
  std::uint64_t last = 0;
  auto last_change = std::chrono::steady_clock::now();
  bool stalled = false;
  while (done.load() < total && !stalled) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (done.load() != last) {
      last = done.load();
      last_change = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - last_change > std::chrono::seconds(90)) {
      stalled = true;
    }
  }
  if (stalled) {
    std::string dump;
    for (const auto& qp : qps)
      dump += qp.queue().dump_state();
    // The threads are stuck in the queues: report and end the process rather than join.
    ADD_FAILURE() << "stalled at " << done.load() << "/" << total << " commands\n" << dump;
    std::fflush(nullptr);
    std::_Exit(1);
  }
  for (auto& th : threads)
    th.join();

  EXPECT_EQ(errors.load(), 0u) << first_error[0];
  EXPECT_EQ(mismatches.load(), 0u);
  EXPECT_GT(blocks_verified.load(), 0u);
  // Every command completed exactly once: the queues consumed as many completions as were
  // submitted, and the controller executed that many I/O commands.
  std::uint64_t submitted = 0, consumed = 0, sq_doorbells = 0;
  for (const auto& qp : qps) {
    const bam::queue_stats s = qp.queue().stats();
    EXPECT_EQ(s.submitted, s.cq_head) << "queue " << qp.qid();
    EXPECT_EQ(s.submitted, s.sq_tail) << "queue " << qp.qid();
    // Both locks free once every thread is done (each word is its position times 2).
    const bam::queue_counters& c = *qp.queue().pointers().counters;
    EXPECT_FALSE(bam::position_locked(c.sq_tail) || bam::position_locked(c.cq_head))
        << "queue " << qp.qid();
    submitted += s.submitted;
    consumed += s.cq_head;
    sq_doorbells += s.sq_doorbell_writes;
  }
  EXPECT_EQ(submitted, total);
  EXPECT_EQ(consumed, total);
  EXPECT_LE(sq_doorbells, total);
  const auto stats = ctrl.stats();
  const std::uint64_t io = stats.io_commands[0x01] + stats.io_commands[0x02];
  EXPECT_EQ(io, total);
  std::printf("  %llu commands, %llu blocks verified, %.3f SQ doorbells per command\n",
              static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(blocks_verified.load()),
              static_cast<double>(sq_doorbells) / static_cast<double>(total));
}

INSTANTIATE_TEST_SUITE_P(QueuePairs, HostEngineStress,
                         ::testing::Values(
                             // 64 threads on one queue pair: the deepest contention on one ring.
                             stress_case{64, 1, 1600, {1024}},
                             // 8 pairs of mixed depths, non-powers of two included.
                             stress_case{64, 8, 2600, {2, 3, 7, 64, 100, 738, 1000, 1024}},
                             // 128 pairs, depths 2 ... 1024 cycled.
                             stress_case{64,
                                         128,
                                         3400,
                                         {2, 3, 4, 5, 8, 13, 31, 32, 33, 64, 100, 127, 255, 256,
                                          511, 738, 1000, 1023, 1024}}),
                         [](const auto& param_info) { return describe(param_info.param); });

}  // namespace
