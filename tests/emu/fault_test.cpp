// Host emulated controller under fault injection: each command's fate is the GPU engine's
// (fault_plan::decide on fault_key(queue, SQ position)), the counts meet the fractions, delayed
// commands hold up nobody, and Abort and Delete I/O SQ complete what the controller holds.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"
#include "raw_host.hpp"

namespace {
using namespace bam;
using test::delete_cmd;
using test::io_cmd;
using test::raw_host;
using test::raw_queue;
namespace sc = nvme::sc;
using nop = nvme::nvm_opcode;
using clock_type = std::chrono::steady_clock;

emu::controller_options options(const emu::fault_config& f, std::uint32_t fault_queue_base = 0) {
  emu::controller_options o;
  o.lba_size = 512;
  o.namespace_lbas = 4096;
  o.max_io_queue_pairs = 8;
  o.max_queue_entries = 1024;
  o.faults = f;
  o.fault_queue_base = fault_queue_base;
  return o;
}

struct EmuFaults : ::testing::Test {
  std::unique_ptr<emu::emulated_controller> ctrl;
  std::unique_ptr<raw_host> host;
  std::unique_ptr<dma_buffer> buf;

  void bring_up(const emu::fault_config& f, std::uint32_t fault_queue_base = 0) {
    ctrl = std::make_unique<emu::emulated_controller>(options(f, fault_queue_base));
    ctrl->start();
    host = std::make_unique<raw_host>(*ctrl);
    ASSERT_TRUE(host->enable().ready());
    buf = std::make_unique<dma_buffer>(ctrl->allocator(), 4096);
  }
  nvme::command read_cmd(std::uint64_t lba) const {
    nvme::command c = io_cmd(nop::read, lba % 4096, 1);
    c.prp1 = buf->bus_address();
    return c;
  }
  /// Waits until the controller has fetched `n` dropped (held) commands.
  void wait_for_drops(std::uint64_t n) const {
    const auto deadline = clock_type::now() + std::chrono::seconds(10);
    while (ctrl->stats().injected_drops < n) {
      ASSERT_LT(clock_type::now(), deadline) << "the controller did not fetch the commands";
      std::this_thread::yield();
    }
  }
  nvme::completion abort(std::uint16_t sqid, std::uint16_t cid) {
    return host->admin(nvme::abort(sqid, cid));
  }
};

/// What the plan says command `position` of I/O queue `qid` does.
emu::fault_action fate(const emu::fault_plan& p, std::uint16_t qid, std::uint64_t position,
                       std::uint32_t base = 0) {
  return p.decide(emu::fault_key(base + qid - 1u, position));
}

/// `f` with the first seed whose plan gives I/O queue 1's first commands the fates `prefix`.
emu::fault_config with_seed_for(emu::fault_config f, std::vector<emu::fault_action> prefix) {
  for (f.seed = 0;; ++f.seed) {
    const emu::fault_plan p = emu::make_fault_plan(f);
    bool match = true;
    for (std::size_t i = 0; i < prefix.size() && match; ++i)
      match = fate(p, 1, i) == prefix[i];
    if (match) return f;
  }
}

// The fates are exactly the plan's (so one seed means the same as on the GPU engine), their
// counts are within 5 sigma of the fractions, and another seed gives other fates.
TEST_F(EmuFaults, EveryCommandMeetsThePlansFateAndTheFractionsHold) {
  emu::fault_config f;
  f.error_fraction = 0.1;
  f.delay_fraction = 0.1;
  f.delay_ns = 100'000;
  f.drop_fraction = 0.05;
  f.seed = 42;
  f.error_status = sc::write_fault;
  constexpr std::uint32_t base = 6;  // e.g. SSD 3 of a run with 2 queues per SSD
  bring_up(f, base);
  const emu::fault_plan plan = emu::make_fault_plan(f);
  auto q = host->create_pair(1, 1024);

  constexpr std::uint64_t total = 20'000;
  constexpr std::uint64_t chunk = 250;
  std::map<std::uint16_t, emu::fault_action> expected;  // by CID (raw_queue: CID = position)
  std::uint64_t n[4] = {};
  std::uint64_t errors = 0, successes = 0, missing = 0;
  for (std::uint64_t first = 0; first < total; first += chunk) {
    std::uint64_t completions = 0;
    expected.clear();
    for (std::uint64_t i = first; i < first + chunk; ++i) {
      const emu::fault_action a = fate(plan, 1, i, base);
      ++n[static_cast<int>(a)];
      expected[static_cast<std::uint16_t>(i)] = a;
      completions += a == emu::fault_action::drop ? 0 : 1;
      q->push(read_cmd(i));
    }
    q->ring();
    for (std::uint64_t k = 0; k < completions; ++k) {
      const nvme::completion c = q->wait();
      const emu::fault_action a = expected.at(c.cid);
      expected.erase(c.cid);
      ASSERT_NE(a, emu::fault_action::drop) << "CID " << c.cid;
      if (a == emu::fault_action::error) {
        EXPECT_EQ(c.status(), sc::write_fault) << "CID " << c.cid;
        ++errors;
      } else {
        EXPECT_EQ(c.status(), sc::success) << "CID " << c.cid;
        ++successes;
      }
    }
    for (const auto& [cid, a] : expected) {
      EXPECT_EQ(a, emu::fault_action::drop) << "CID " << cid << " not completed";
      ++missing;
    }
  }
  EXPECT_FALSE(q->completion_ready()) << "a dropped command was completed";
  using fa = emu::fault_action;
  EXPECT_EQ(errors, n[static_cast<int>(fa::error)]);
  EXPECT_EQ(missing, n[static_cast<int>(fa::drop)]);
  EXPECT_EQ(successes, n[static_cast<int>(fa::none)] + n[static_cast<int>(fa::delay)]);
  const emu::controller_stats s = ctrl->stats();
  EXPECT_EQ(s.injected_errors, n[static_cast<int>(fa::error)]);
  EXPECT_EQ(s.injected_delays, n[static_cast<int>(fa::delay)]);
  EXPECT_EQ(s.injected_drops, n[static_cast<int>(fa::drop)]);
  EXPECT_EQ(s.io_commands[static_cast<std::size_t>(nop::read)], total);

  auto within_5_sigma = [](std::uint64_t count, double p) {
    const double mean = p * total;
    const double sigma = std::sqrt(total * p * (1 - p));
    return std::fabs(double(count) - mean) <= 5 * sigma;
  };
  EXPECT_TRUE(within_5_sigma(n[static_cast<int>(fa::error)], 0.1)) << n[1];
  EXPECT_TRUE(within_5_sigma(n[static_cast<int>(fa::delay)], 0.1)) << n[2];
  EXPECT_TRUE(within_5_sigma(n[static_cast<int>(fa::drop)], 0.05)) << n[3];

  // Another seed, other fates; the same seed on another queue, other fates too.
  emu::fault_config g = f;
  g.seed = 43;
  const emu::fault_plan other = emu::make_fault_plan(g);
  int differ_seed = 0, differ_queue = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    differ_seed += fate(plan, 1, i, base) != fate(other, 1, i, base) ? 1 : 0;
    differ_queue += fate(plan, 1, i, base) != fate(plan, 2, i, base) ? 1 : 0;
  }
  EXPECT_GT(differ_seed, 200);
  EXPECT_GT(differ_queue, 200);
}

// A delayed command completes delay_ns later; the commands behind it complete meanwhile.
TEST_F(EmuFaults, DelayedCommandsDoNotHoldUpLaterOnes) {
  using fa = emu::fault_action;
  emu::fault_config f;
  f.delay_fraction = 0.5;
  f.delay_ns = 300'000'000;  // 300 ms
  f = with_seed_for(f, {fa::delay, fa::none, fa::delay, fa::none, fa::none});
  bring_up(f);
  const emu::fault_plan plan = emu::make_fault_plan(f);
  constexpr std::uint64_t count = 16;
  std::vector<bool> delayed(count);
  std::uint64_t n_delayed = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    delayed[i] = fate(plan, 1, i) == fa::delay;
    n_delayed += delayed[i] ? 1 : 0;
  }

  auto q = host->create_pair(1, 64);
  const auto t0 = clock_type::now();
  for (std::uint64_t i = 0; i < count; ++i)
    q->push(read_cmd(i));
  q->ring();
  // First every command that is not delayed, in order, well before the delay is over.
  for (std::uint64_t i = 0; i < count; ++i) {
    if (delayed[i]) continue;
    const nvme::completion c = q->wait();
    EXPECT_EQ(c.cid, i);
    EXPECT_EQ(c.status(), sc::success);
  }
  EXPECT_LT(clock_type::now() - t0, std::chrono::milliseconds(250));
  // Then the delayed ones, not before their delay.
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!delayed[i]) continue;
    const nvme::completion c = q->wait();
    EXPECT_EQ(c.cid, i);
    EXPECT_EQ(c.status(), sc::success);
  }
  EXPECT_GE(clock_type::now() - t0, std::chrono::milliseconds(300));
  EXPECT_EQ(ctrl->stats().injected_delays, n_delayed);
}

// A delayed command moves its data when it completes, as a slow drive would, not at fetch: a
// read behind a delayed write of the same block still reads the old data.
TEST_F(EmuFaults, DelayedWriteMovesItsDataOnlyWhenItCompletes) {
  using fa = emu::fault_action;
  emu::fault_config f;
  f.delay_fraction = 0.5;
  f.delay_ns = 200'000'000;
  f = with_seed_for(f, {fa::delay, fa::none});
  bring_up(f);
  auto q = host->create_pair(1, 16);
  dma_buffer data(ctrl->allocator(), 4096);
  std::memset(data.as<std::uint8_t>(), 0x5a, 4096);
  nvme::command w = io_cmd(nop::write, 9, 1);
  w.prp1 = data.bus_address();
  q->submit(w);                   // CID 0: delayed
  nvme::command r = read_cmd(9);  // CID 1: not delayed, into buf
  std::memset(buf->as<std::uint8_t>(), 0xff, 4096);
  q->submit(r);
  nvme::completion c = q->wait();
  EXPECT_EQ(c.cid, 1u);
  ASSERT_EQ(c.status(), sc::success);
  EXPECT_EQ(buf->as<std::uint8_t>()[0], 0u) << "the delayed write was done at fetch";
  c = q->wait();
  EXPECT_EQ(c.cid, 0u);
  ASSERT_EQ(c.status(), sc::success);
  q->submit(read_cmd(9));  // CID 2: position 2, whatever its fate
  ASSERT_EQ(q->wait().status(), sc::success);
  EXPECT_EQ(buf->as<std::uint8_t>()[0], 0x5au);
}

// Abort of a dropped command: completed at once with Command Abort Requested, DW0 bit 0 = 0.
// Abort of a CID the controller does not hold: DW0 bit 0 = 1.
TEST_F(EmuFaults, AbortCompletesAHeldCommandAndReportsOthersAsNotAborted) {
  emu::fault_config f;
  f.drop_fraction = 1;
  bring_up(f);
  auto q = host->create_pair(1, 16);
  q->submit(read_cmd(1));  // CID 0
  q->submit(read_cmd(2));  // CID 1
  wait_for_drops(2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(q->completion_ready());

  const nvme::completion a = abort(1, 1);
  ASSERT_EQ(a.status(), sc::success);
  EXPECT_FALSE(nvme::decode::abort_not_aborted(a.dw0));
  ASSERT_TRUE(q->completion_ready()) << "posted before the Abort completed";
  const nvme::completion c = q->wait();
  EXPECT_EQ(c.cid, 1u);
  EXPECT_EQ(c.sqid, 1u);
  EXPECT_EQ(c.status(), sc::abort_requested);

  for (auto [sqid, cid] : {std::pair<std::uint16_t, std::uint16_t>{1, 1},  // done already
                           {1, 999},                                       // never submitted
                           {0, 0},                                         // the admin queue
                           {5, 0}}) {                                      // no such SQ
    const nvme::completion n = abort(sqid, cid);
    ASSERT_EQ(n.status(), sc::success);
    EXPECT_TRUE(nvme::decode::abort_not_aborted(n.dw0)) << sqid << "/" << cid;
  }
  EXPECT_FALSE(q->completion_ready());
  const emu::controller_stats s = ctrl->stats();
  EXPECT_EQ(s.aborted, 1u);
  EXPECT_EQ(s.admin_commands[static_cast<std::size_t>(nvme::admin_opcode::abort)], 5u);
}

// A delayed command can be aborted before it is due: it then moves no data.
TEST_F(EmuFaults, AbortOfADelayedCommandMovesNoData) {
  emu::fault_config f;
  f.delay_fraction = 1;
  f.delay_ns = 30'000'000'000ull;
  bring_up(f);
  auto q = host->create_pair(1, 16);
  std::memset(buf->as<std::uint8_t>(), 0xa5, 4096);
  q->submit(read_cmd(3));  // the media reads as zeroes
  const auto deadline = clock_type::now() + std::chrono::seconds(10);
  while (ctrl->stats().injected_delays < 1)
    ASSERT_LT(clock_type::now(), deadline);
  const nvme::completion a = abort(1, 0);
  ASSERT_EQ(a.status(), sc::success);
  EXPECT_FALSE(nvme::decode::abort_not_aborted(a.dw0));
  const nvme::completion c = q->wait();
  EXPECT_EQ(c.status(), sc::abort_requested);
  EXPECT_EQ(buf->as<std::uint8_t>()[0], 0xa5u);
}

// Delete I/O SQ completes every held command with Command Aborted due to SQ Deletion before
// the deletion itself completes; the CQ then deletes cleanly and nothing is posted any more.
TEST_F(EmuFaults, DeleteSqCompletesHeldCommandsFirst) {
  emu::fault_config f;
  f.drop_fraction = 0.5;
  f.delay_fraction = 0.5;
  f.delay_ns = 30'000'000'000ull;
  f.seed = 3;
  bring_up(f);
  auto q = host->create_pair(1, 16);
  for (std::uint64_t i = 0; i < 6; ++i)
    q->submit(read_cmd(i));
  const auto deadline = clock_type::now() + std::chrono::seconds(10);
  while (ctrl->stats().injected_drops + ctrl->stats().injected_delays < 6)
    ASSERT_LT(clock_type::now(), deadline);
  EXPECT_FALSE(q->completion_ready());

  ASSERT_EQ(host->admin(delete_cmd(nvme::admin_opcode::delete_io_sq, 1)).status(), sc::success);
  std::vector<bool> seen(6, false);
  for (int k = 0; k < 6; ++k) {
    ASSERT_TRUE(q->completion_ready()) << "completion " << k << " not posted before the delete";
    const nvme::completion c = q->wait();
    EXPECT_EQ(c.status(), sc::aborted_sq_deletion);
    ASSERT_LT(c.cid, 6u);
    EXPECT_FALSE(seen[c.cid]);
    seen[c.cid] = true;
  }
  EXPECT_FALSE(q->completion_ready());
  ASSERT_EQ(host->admin(delete_cmd(nvme::admin_opcode::delete_io_cq, 1)).status(), sc::success);
  const emu::controller_stats s = ctrl->stats();
  EXPECT_EQ(s.aborted_by_sq_deletion, 6u);
  EXPECT_EQ(s.discarded_completions, 0u);
  // The queue pair can be created again on the same rings and works from a clean start.
  ASSERT_EQ(host->admin(test::create_cq_cmd(1, 16, q->cq_bus())).status(), sc::success);
  ASSERT_EQ(host->admin(test::create_sq_cmd(1, 16, q->sq_bus(), 1)).status(), sc::success);
}

// Faults touch only I/O commands; the admin queue (Identify, queue creation) is never faulted.
TEST_F(EmuFaults, AdminCommandsAreNeverFaulted) {
  emu::fault_config f;
  f.error_fraction = 1;
  bring_up(f);
  auto q = host->create_pair(1, 16);
  EXPECT_EQ(q->run(read_cmd(0)).status(), sc::unrecovered_read_error);  // the default status
  EXPECT_EQ(ctrl->stats().injected_errors, 1u);
}

TEST(EmuFaultOptions, ImpossibleFaultsAreRefused) {
  emu::fault_config f;
  f.error_fraction = 0.7;
  f.drop_fraction = 0.4;
  EXPECT_THROW(emu::emulated_controller{options(f)}, std::invalid_argument);
  f.drop_fraction = -0.1;
  EXPECT_THROW(emu::emulated_controller{options(f)}, std::invalid_argument);
  f = {};
  f.error_fraction = 0.5;
  f.error_status = sc::success;
  EXPECT_THROW(emu::emulated_controller{options(f)}, std::invalid_argument);
}

}  // namespace
