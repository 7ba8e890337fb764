// nvm-block-bench's host backend with injected faults, through the real binary: errors end the
// run with exit status 3 in bounded time and the reports count them by status; the counts are
// the fault plan's, exactly; bad fault configs exit 2 before anything is written.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/emu/fault_injection.hpp"
#include "bam/harness/exit_status.hpp"
#include "tool_runner.hpp"

namespace bam {
namespace {

using nlohmann::json;
using test::run_tool;
using test::temp_dir;

const std::string bench = BAM_BENCH_BIN;

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// A small host run: one SSD of 16 MiB, one queue pair.
std::vector<std::string> host_args(const temp_dir& dir) {
  return {"--backend", "host",         "--set", "storage.media.size_bytes=16777216",
          "--report",  dir / "r.json", "--csv", dir / "r.csv"};
}

struct timed_run {
  test::tool_output out;
  double seconds = 0;
};

timed_run run(const std::vector<std::string>& args, const temp_dir& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  timed_run r{run_tool(bench, args, dir), 0};
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

/// Error fates the plan gives the first `n` commands of queue 0.
std::uint64_t planned_errors(const emu::fault_config& f, std::uint64_t n) {
  const emu::fault_plan p = emu::make_fault_plan(f);
  std::uint64_t k = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    k += p.decide(emu::fault_key(0, i)) == emu::fault_action::error ? 1 : 0;
  return k;
}

TEST(NbbFaults, ErrorsExitThreeAndAreCountedByStatusExactlyAsPlanned) {
  temp_dir dir;
  const auto args =
      with(host_args(dir), {"--ios", "20000", "--set", "storage.faults.error_fraction=0.1", "--set",
                            "storage.faults.error_status=write_fault", "--set",
                            "storage.faults.seed=11", "--op", "mixed"});
  const timed_run r = run(args, dir);
  ASSERT_EQ(r.out.rc, exit_io_errors) << r.out.err << r.out.out;
  EXPECT_LT(r.seconds, 60.0);
  EXPECT_NE(r.out.err.find("I/O failed"), std::string::npos) << r.out.err;
  EXPECT_NE(r.out.err.find("Write Fault: "), std::string::npos) << r.out.err;
  EXPECT_NE(r.out.out.find("I/O FAILED"), std::string::npos) << r.out.out;

  emu::fault_config f;
  f.error_fraction = 0.1;
  f.seed = 11;
  const std::uint64_t expected = planned_errors(f, 20000);
  ASSERT_GT(expected, 1500u);
  ASSERT_LT(expected, 2500u);

  const json doc = json::parse(test::read_file(dir / "r.json"));
  const json& job = doc["jobs"][0];
  EXPECT_EQ(job["error"], EIO);
  const json& e = doc["bamkit"]["io_errors"];
  EXPECT_EQ(e["errors"], expected);
  EXPECT_EQ(e["timeouts"], 0u);
  EXPECT_EQ(e["verify_mismatches"], 0u);
  EXPECT_EQ(e["by_status"], json({{"Write Fault", expected}}));
  EXPECT_TRUE(e["io_failed"].get<bool>());
  EXPECT_EQ(job["read"]["total_ios"].get<std::uint64_t>() +
                job["write"]["total_ios"].get<std::uint64_t>() + expected,
            20000u);
  EXPECT_EQ(
      job["read"]["drop_ios"].get<std::uint64_t>() + job["write"]["drop_ios"].get<std::uint64_t>(),
      expected);
  const json& ctrl = doc["bamkit"]["stats"]["controllers"][0];
  EXPECT_EQ(ctrl["injected_errors"], expected);
  EXPECT_EQ(doc["bamkit"]["config"]["storage"]["faults"]["error_status"], "Write Fault");
  const std::string csv = test::read_file(dir / "r.csv");
  EXPECT_NE(csv.find(",0,0,Write Fault=" + std::to_string(expected)), std::string::npos) << csv;

  // The same seed, the same errors.
  std::filesystem::remove(dir / "r.json");
  const timed_run again = run(args, dir);
  ASSERT_EQ(again.out.rc, exit_io_errors) << again.out.err;
  EXPECT_EQ(json::parse(test::read_file(dir / "r.json"))["bamkit"]["io_errors"]["errors"],
            expected);
}

// Dropped commands are never completed: their waits time out, the run still ends soon after,
// and the report counts the timeouts as Host Timeout errors.
TEST(NbbFaults, DropsEndInBoundedTimeAsTimeouts) {
  temp_dir dir;
  const timed_run r = run(
      with(host_args(dir), {"--ios", "4000", "--threads", "4", "--outstanding", "1", "--set",
                            "storage.faults.drop_fraction=0.02", "--set", "queues.timeout_ms=100"}),
      dir);
  ASSERT_EQ(r.out.rc, exit_io_errors) << r.out.err << r.out.out;
  EXPECT_LT(r.seconds, 60.0);
  const json doc = json::parse(test::read_file(dir / "r.json"));
  const json& e = doc["bamkit"]["io_errors"];
  const std::uint64_t timeouts = e["timeouts"].get<std::uint64_t>();
  EXPECT_GT(timeouts, 0u);
  EXPECT_EQ(e["errors"], timeouts);
  EXPECT_EQ(e["by_status"], json({{"Host Timeout (bamkit)", timeouts}}));
  EXPECT_EQ(doc["jobs"][0]["error"], EIO);
  EXPECT_EQ(doc["bamkit"]["stats"]["timeout_ns"], 100'000'000u);
  const json& ctrl = doc["bamkit"]["stats"]["controllers"][0];
  EXPECT_GE(ctrl["injected_drops"].get<std::uint64_t>(), timeouts);
  // The recovery: every dropped command aborted through the admin queue (its ID given back, its
  // thread's slot issued again), so every one of the 4000 I/Os was issued and ended.
  const json& rec = e["recovery"];
  EXPECT_GE(rec["aborts_sent"].get<std::uint64_t>(), timeouts);
  EXPECT_EQ(rec["aborts_found"], ctrl["aborted"]);
  EXPECT_GT(rec["aborts_found"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(rec["recovery_failures"], 0u);
  const json& job = doc["jobs"][0];
  EXPECT_EQ(job["read"]["total_ios"].get<std::uint64_t>() +
                job["write"]["total_ios"].get<std::uint64_t>() + timeouts,
            4000u);
  EXPECT_NE(r.out.out.find("queue recovery: "), std::string::npos) << r.out.out;
}

// Drops with --verify: the fill's dropped writes are aborted and written again; the measured
// reads that were dropped fail (timeouts, exit 3), every other read checks out, and a read
// after an Abort on the same queue succeeds.
TEST(NbbFaults, DropsWithVerifyRecoverAndEveryReadChecksOut) {
  temp_dir dir;
  const timed_run r = run(with(host_args(dir), {"--ios", "4000", "--threads", "4", "--outstanding",
                                                "2", "--set", "storage.faults.drop_fraction=0.01",
                                                "--set", "queues.timeout_ms=100", "--verify"}),
                          dir);
  ASSERT_EQ(r.out.rc, exit_io_errors) << r.out.err << r.out.out;
  EXPECT_LT(r.seconds, 90.0);
  const json doc = json::parse(test::read_file(dir / "r.json"));
  const json& e = doc["bamkit"]["io_errors"];
  const std::uint64_t timeouts = e["timeouts"].get<std::uint64_t>();
  EXPECT_GT(timeouts, 0u);
  EXPECT_EQ(e["errors"], timeouts);
  EXPECT_EQ(e["verify_mismatches"], 0u);
  const json& st = doc["bamkit"]["stats"];
  EXPECT_EQ(st["verify_errors"], 0u);
  EXPECT_EQ(st["verified_ios"].get<std::uint64_t>(), 4000u - timeouts);
  EXPECT_GT(e["recovery"]["aborts_found"].get<std::uint64_t>(), 0u);
  EXPECT_LE(e["recovery"]["aborts_found"].get<std::uint64_t>(), timeouts);
  // The fill's drops too (its writes were issued again): every dropped command was ended by an
  // Abort or its queue's recreation.
  const json& ctrl = st["controllers"][0];
  EXPECT_GT(ctrl["injected_drops"].get<std::uint64_t>(), timeouts);
  EXPECT_EQ(
      ctrl["aborted"].get<std::uint64_t>() + ctrl["aborted_by_sq_deletion"].get<std::uint64_t>(),
      ctrl["injected_drops"].get<std::uint64_t>());
}

// Delayed commands complete: no errors, exit 0 (one command per thread in flight).
TEST(NbbFaults, DelaysAloneAreNotErrors) {
  temp_dir dir;
  const timed_run r = run(with(host_args(dir), {"--ios", "4000", "--threads", "4", "--outstanding",
                                                "1", "--set", "storage.faults.delay_fraction=0.2",
                                                "--set", "storage.faults.delay_us=500"}),
                          dir);
  ASSERT_EQ(r.out.rc, exit_ok) << r.out.err << r.out.out;
  const json doc = json::parse(test::read_file(dir / "r.json"));
  EXPECT_EQ(doc["bamkit"]["io_errors"]["errors"], 0u);
  EXPECT_FALSE(doc["bamkit"]["io_errors"]["io_failed"].get<bool>());
  EXPECT_EQ(doc["jobs"][0]["error"], 0);
  EXPECT_GT(doc["bamkit"]["stats"]["controllers"][0]["injected_delays"].get<std::uint64_t>(), 0u);
  // Automatic timeout: 1 s plus the delay.
  EXPECT_EQ(doc["bamkit"]["stats"]["timeout_ns"], 1'000'500'000u);
}

TEST(NbbFaults, BadFaultConfigsExitTwoWritingNothing) {
  struct bad {
    std::vector<std::string> set;
    std::string message;
  };
  const std::vector<bad> cases = {
      {{"storage.faults.error_fraction=0.7", "storage.faults.drop_fraction=0.7"},
       "storage.faults: error_fraction + delay_fraction + drop_fraction = 1.4"},
      {{"storage.faults.error_status=\"Not A Status\""},
       "storage.faults.error_status: \"Not A Status\" is not a status name"},
      {{"storage.faults_per_ssd=[{},{}]"},
       "storage.faults_per_ssd: 2 entries for "
       "storage.ssd_count = 1"},
      {{"storage.faults_per_ssd=[{\"drop_fraction\":-1}]"},
       "storage.faults_per_ssd[0].drop_fraction: -1"},
      {{"queues.timeout_ms=-5"}, "queues.timeout_ms: -5 is out of range"},
  };
  for (const bad& c : cases) {
    temp_dir dir;
    std::vector<std::string> args = host_args(dir);
    for (const std::string& s : c.set)
      args.insert(args.end(), {"--set", s});
    const timed_run r = run(args, dir);
    EXPECT_EQ(r.out.rc, exit_invalid_input) << c.message << ": " << r.out.err;
    EXPECT_NE(r.out.err.find(c.message), std::string::npos) << r.out.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  }
}

}  // namespace
}  // namespace bam
