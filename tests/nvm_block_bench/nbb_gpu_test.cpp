// nvm-block-bench's GPU backends end to end (label gpu; skipped without a GPU): small runs of the
// real binary whose reports must add up exactly (I/Os asked = I/Os done = histogram samples =
// per-SSD counts of the engine and of the threads), with --verify checking every read on the GPU.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include <cstdlib>
#include <string>
#include <vector>

#include "bam/config/config_io.hpp"
#include "bam/emu/fault_injection.hpp"
#include "bam/emu/gpu/drives_of_config.hpp"
#include "common/report_checks.hpp"
#include "tool_runner.hpp"

namespace bam {
namespace {

using nlohmann::json;
using test::run_tool;
using test::temp_dir;

/// The binary under test: $NBB_BIN when set (a staged copy on the GPU machine), else the build's.
const std::string bench =
    std::getenv("NBB_BIN") != nullptr ? std::getenv("NBB_BIN") : BAM_BENCH_BIN;

std::uint64_t sum(const json& a) {
  std::uint64_t s = 0;
  for (const auto& v : a)
    s += v.get<std::uint64_t>();
  return s;
}

/// Runs the tool; skips the test when this machine has no GPU for it.
json run_report(std::vector<std::string> args, temp_dir& dir, int expect_rc = 0) {
  args.insert(args.end(), {"--report", dir / "r.json"});
  const auto r = run_tool(bench, args, dir);
  if (r.err.find("needs a CUDA GPU") != std::string::npos) return json();
  EXPECT_EQ(r.rc, expect_rc) << r.err << r.out;
  return json::parse(test::read_file(dir / "r.json"));
}

/// run_report of a checked run of mixed 512 B I/O on the emulated backend, one command a thread,
/// over 16 MiB of media an SSD, in both protocols (two jobs), with `args` (SSDs, queues, threads,
/// I/Os, ...) before those.
json mixed_run_both_protocols(std::vector<std::string> args, temp_dir& dir) {
  args.insert(args.begin(), {"--backend", "emulated", "--outstanding", "1"});
  args.insert(args.end(),
              {"--op", "mixed", "--io-size", "512", "--set", "storage.media.size_bytes=16777216",
               "--verify", "--sweep", "storage.protocol=hardware,emulator"});
  return run_report(std::move(args), dir);
}

void expect_job_adds_up(const json& job, const json& bamkit, std::uint64_t ios,
                        std::uint32_t ssds) {
  const std::uint64_t reads = job["read"]["total_ios"], writes = job["write"]["total_ios"];
  EXPECT_EQ(reads + writes, ios);
  EXPECT_EQ(job["read"]["clat_ns"]["N"], reads);
  EXPECT_EQ(job["write"]["clat_ns"]["N"], writes);
  EXPECT_EQ(job["error"], 0);
  const json& st = bamkit["stats"];
  EXPECT_EQ(st["errors"], 0u);
  ASSERT_EQ(st["per_ssd_ios"].size(), ssds);
  EXPECT_EQ(sum(st["per_ssd_ios"]), ios);
  EXPECT_EQ(sum(st["per_ssd_ios_threads"]), ios);
  if (st.contains("verify_errors")) {
    EXPECT_EQ(st["verify_errors"], 0u);
    EXPECT_EQ(st["verified_ios"], reads);
  }
  EXPECT_GT(st["kernel_s"].get<double>(), 0.0);
}

TEST(NbbGpu, EmulatedMixedRunAddsUpAndVerifies) {
  temp_dir dir;
  const json doc = run_report({"--backend",     "emulated",
                               "--ssds",        "2",
                               "--pairs",       "4",
                               "--depth",       "256",
                               "--threads",     "4096",
                               "--outstanding", "1",
                               "--ios",         "100000",
                               "--op",          "mixed",
                               "--set",         "workload.read_ratio=0.7",
                               "--io-size",     "4096",
                               "--set",         "storage.media.size_bytes=67108864",
                               "--verify",      "--measure-ceilings"},
                              dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  const json& job = doc["jobs"][0];
  expect_job_adds_up(job, doc["bamkit"], 100000, 2);
  EXPECT_GT(job["read"]["total_ios"].get<std::uint64_t>(), 60000u);
  EXPECT_GT(job["write"]["total_ios"].get<std::uint64_t>(), 20000u);
  const json& st = doc["bamkit"]["stats"];
  std::uint64_t engine = 0;
  for (const auto& s : st["ssds"])
    engine += s["completed"].get<std::uint64_t>();
  EXPECT_EQ(engine, 100000u);
  EXPECT_GT(st["doorbell_writes_per_command"].get<double>(), 0.0);
  EXPECT_LE(st["doorbell_writes_per_command"].get<double>(), 2.0);
  EXPECT_EQ(st["timeouts"], 0u);
  // 16 blocks, all started before any ends (about 24 I/Os a thread).
  EXPECT_EQ(st["client_threads"]["peak_resident"], 4096u);
  EXPECT_GT(st["client_threads"]["in_flight_share"].get<double>(), 0.0);
  EXPECT_LE(st["client_threads"]["in_flight_share"].get<double>(), 1.01);
  // Over the run's footprint: the dataset of both SSDs' media.
  test::expect_gpu_ceilings(doc, 4096, 2u * 67108864);
  // fio's own check of the report, where fio is installed (the GPU machines have no fio; CI
  // runs the same check on host-backend reports).
  if (std::filesystem::exists("/usr/bin/fio_jsonplus_clat2csv")) {
    const std::string cmd =
        "/usr/bin/fio_jsonplus_clat2csv " + (dir / "r.json") + " " + (dir / "l.csv");
    ASSERT_EQ(std::system((cmd + " >/dev/null").c_str()), 0);
    EXPECT_EQ(std::system((cmd + " --validate >/dev/null").c_str()), 0);
  }
}

TEST(NbbGpu, EmulatedLargeSequentialIosUsePrpLists) {
  temp_dir dir;
  const json doc =
      run_report({"--backend",     "emulated", "--ssds",    "3",
                  "--pairs",       "2",        "--threads", "512",
                  "--outstanding", "1",        "--ios",     "6000",
                  "--io-size",     "65536",    "--pattern", "sequential",
                  "--op",          "mixed",    "--set",     "storage.media.size_bytes=16777216",
                  "--verify"},
                 dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  expect_job_adds_up(doc["jobs"][0], doc["bamkit"], 6000, 3);
  // Sequential I/O g goes to SSD g % 3: 6000 I/Os split evenly.
  for (const auto& n : doc["bamkit"]["stats"]["per_ssd_ios"])
    EXPECT_EQ(n, 2000u);
}

TEST(NbbGpu, BothProtocolsVerifyAndTheReportSaysWhichRan) {
  temp_dir dir;
  const json doc = mixed_run_both_protocols(
      {"--ssds", "2", "--pairs", "128", "--threads", "8192", "--ios", "100000"}, dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  ASSERT_EQ(doc["jobs"].size(), 2u);
  for (const std::string protocol : {"hardware", "emulator"}) {
    const json& job = doc["jobs"][protocol == "hardware" ? 0 : 1];
    expect_job_adds_up(job, job["bamkit"], 100000, 2);
    EXPECT_EQ(job["bamkit"]["config"]["storage"]["protocol"], protocol);
    const json& st = job["bamkit"]["stats"];
    EXPECT_EQ(st["protocol"], protocol);
    EXPECT_NE(st["real_hardware"].get<std::string>().find("storage.protocol " + protocol),
              std::string::npos);
    // ... and where the media were (pinned host memory: what --verify reads back).
    EXPECT_NE(st["real_hardware"].get<std::string>().find("media in pinned host memory"),
              std::string::npos);
    std::uint64_t ordering = 0, completed = 0;
    for (const auto& s : st["ssds"]) {
      ordering += s["ordering_reads"].get<std::uint64_t>();
      completed += s["completed"].get<std::uint64_t>();
    }
    EXPECT_EQ(completed, 100000u);  // the application's commands; ordering reads apart
    EXPECT_EQ(st["ordering_reads"], ordering);
    const std::uint64_t reads = job["read"]["total_ios"];
    if (protocol == "hardware") {
      EXPECT_GT(ordering, 0u);  // after reads, coalesced: at most one per read
      EXPECT_LE(ordering, reads);
    } else {
      EXPECT_EQ(ordering, 0u);
    }
    // The automatic engine: 16 blocks of 16 warps for the application's 256 queues, and in the
    // hardware protocol a block more for the 2 ordering warps beside them (drives_config_of).
    const bool hw = protocol == "hardware";
    EXPECT_EQ(st["engine_blocks"], hw ? 17u : 16u);
    EXPECT_EQ(st["engine_warps"], hw ? 272u : 256u);
    EXPECT_EQ(st["engine_app_warps"], hw ? 256u : 0u);
    EXPECT_EQ(st["engine_placement"], "scheduler");  // 2 x 32 MiB: under the uneven footprint
  }
}

// gpu.engine_placement auto over 2 GiB or more of pinned media: nvm-block-bench's threads only
// issue I/O, so the engine is the even one (blocks of 4 warps, block b on SM b, on 3/5 of the SMs);
// scheduler given keeps the automatic 16 x 16 (+ 1 block for the ordering warps).
TEST(NbbGpu, EvenEngineOverTwoGibOfPinnedMedia) {
  for (const bool scheduler : {false, true}) {
    SCOPED_TRACE(scheduler ? "scheduler" : "auto");
    temp_dir dir;
    std::vector<std::string> args = {"--backend",     "emulated",
                                     "--ssds",        "4",
                                     "--pairs",       "64",
                                     "--threads",     "65536",
                                     "--outstanding", "1",
                                     "--ios",         "200000",
                                     "--set",         "storage.media.size_bytes=536870912"};
    if (scheduler) args.insert(args.end(), {"--set", "gpu.engine_placement=scheduler"});
    const json doc = run_report(args, dir);
    if (doc.is_null()) GTEST_SKIP() << "no GPU";
    expect_job_adds_up(doc["jobs"][0], doc["bamkit"], 200000, 4);
    const json& st = doc["bamkit"]["stats"];
    const auto sms = st["engine_sms"].get<std::vector<std::uint32_t>>();
    if (scheduler) {
      EXPECT_EQ(st["engine_placement"], "scheduler");
      EXPECT_EQ(st["engine_blocks"], 17u);  // hardware protocol: a block for the ordering warps
      EXPECT_EQ(st["engine_warps"], 17u * 16u);
      continue;
    }
    const auto gpu_sms = doc["bamkit"]["machine"]["gpu_sms"].get<std::uint32_t>();
    ASSERT_GT(gpu_sms, 0u);
    const std::uint32_t blocks = emu::gpu::even_engine_blocks(gpu_sms);
    EXPECT_EQ(st["engine_placement"], "first-sms");
    EXPECT_EQ(st["engine_blocks"], blocks);
    EXPECT_EQ(st["engine_warps"], blocks * 4);
    EXPECT_EQ(st["engine_app_warps"], 0u);  // the ordering warps dealt as the shape given would
    ASSERT_EQ(sms.size(), blocks);
    for (std::uint32_t b = 0; b < blocks; ++b)
      EXPECT_EQ(sms[b], b) << "block " << b;
  }
}

TEST(NbbGpu, ZerocopyRunAddsUpAndVerifies) {
  temp_dir dir;
  const json doc = run_report({"--backend", "zerocopy", "--ssds", "2", "--threads", "3000",
                               "--outstanding", "1", "--ios", "50000", "--op", "mixed", "--io-size",
                               "8192", "--set", "storage.media.size_bytes=33554432", "--verify"},
                              dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  expect_job_adds_up(doc["jobs"][0], doc["bamkit"], 50000, 2);
  // 12 blocks, the last of them partial: the run's threads, not 12 x 256.
  EXPECT_EQ(doc["bamkit"]["stats"]["client_threads"]["peak_resident"], 3000u);
}

// More blocks than fit the GPU at once: the most resident is fewer than the run's threads,
// whole blocks, at most what the SMs the engine leaves hold (nvm-block-bench's kernel takes
// about 200 registers a thread: one block an SM), and each resident thread's one command in
// flight at most.
TEST(NbbGpu, ClientBlocksThatDoNotFitAreCountedAsTheyRun) {
  temp_dir dir;
  const json doc =
      run_report({"--backend", "emulated", "--pairs", "16", "--threads", "262144", "--outstanding",
                  "1", "--ios", "2000000", "--set", "storage.media.size_bytes=16777216"},
                 dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  expect_job_adds_up(doc["jobs"][0], doc["bamkit"], 2000000, 1);
  const json& st = doc["bamkit"]["stats"];
  const json& ct = st["client_threads"];
  const std::uint64_t resident = ct["peak_resident"];
  const std::uint64_t sms = ct["gpu_sms"], engine = st["engine_blocks"];
  ASSERT_GT(sms, engine);
  EXPECT_GE(resident, 256u);
  EXPECT_LT(resident, 262144u);  // a block that never stopped counting would reach every block
  EXPECT_EQ(resident % 256, 0u);
  EXPECT_LE(resident, (sms - engine) * 256)
      << "assumes one 256-thread block an SM (the kernel's about 200 registers a thread)";
  EXPECT_GT(ct["in_flight_share"].get<double>(), 0.0);
  EXPECT_LE(ct["in_flight_share"].get<double>(), 1.01);
}

TEST(NbbGpu, SweepReusesTheDrivesAndEveryJobAddsUp) {
  temp_dir dir;
  const json doc = run_report(
      {"--backend", "emulated", "--pairs", "8", "--outstanding", "1", "--ios", "20000", "--set",
       "storage.media.size_bytes=16777216", "--sweep", "workload.threads=256,2048", "--sweep",
       "workload.io_size=512,16384", "--repeat", "2"},
      dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  ASSERT_EQ(doc["jobs"].size(), 4u);
  for (const auto& job : doc["jobs"]) {
    expect_job_adds_up(job, job["bamkit"], 20000, 1);
    EXPECT_EQ(job["bamkit"]["repeat"]["runs"], 2u);
  }
}

TEST(NbbGpu, ASweepOfTheEngineSizeOpensAnEngineOfEachSize) {
  temp_dir dir;
  const json doc =
      run_report({"--backend", "emulated", "--pairs", "8", "--outstanding", "1", "--ios", "5000",
                  "--set", "storage.media.size_bytes=16777216", "--set",
                  "gpu.engine_warps_per_block=4", "--sweep", "gpu.engine_blocks=2,4"},
                 dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  ASSERT_EQ(doc["jobs"].size(), 2u);
  EXPECT_EQ(doc["jobs"][0]["bamkit"]["stats"]["engine_warps"], 8u);
  EXPECT_EQ(doc["jobs"][1]["bamkit"]["stats"]["engine_warps"], 16u);
  for (const auto& job : doc["jobs"])
    expect_job_adds_up(job, job["bamkit"], 5000, 1);
}

TEST(NbbGpu, DurationRunStopsAndCountsWhatItDid) {
  temp_dir dir;
  const json doc = run_report({"--backend", "emulated", "--model", "optane-p5800x", "--pairs", "16",
                               "--threads", "8192", "--outstanding", "1", "--ios", "0",
                               "--duration", "0.3", "--set", "storage.media.size_bytes=16777216"},
                              dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  const json& job = doc["jobs"][0];
  const std::uint64_t n = job["read"]["total_ios"];
  EXPECT_GT(n, 0u);
  expect_job_adds_up(job, doc["bamkit"], n, 1);
  // The model's 512 B read cap (5.1 M IOPS) bounds a 0.3 s run.
  EXPECT_LT(n, 5'100'000u * 4 / 10);
  EXPECT_LT(doc["bamkit"]["runtime_ns"].get<std::uint64_t>(), 2'000'000'000u);
  // All 32 blocks of 256 threads fit the GPU and none ends before the time is up: all resident
  // at once. Each thread then has its one command in flight but between two of them: Little's
  // law over the run's time gives almost all of them, and never more.
  const json& ct = doc["bamkit"]["stats"]["client_threads"];
  // (A GPU of fewer than 32 SMs beside the engine's blocks could not hold all 32.)
  if (ct["gpu_sms"].get<std::uint64_t>() <
      doc["bamkit"]["stats"]["engine_blocks"].get<std::uint64_t>() + 32) {
    GTEST_SKIP() << "fewer SMs than the 32 client blocks and the engine's need";
  }
  EXPECT_EQ(ct["peak_resident"], 8192u);
  const double in_flight = doc["bamkit"]["in_flight_mean"];
  EXPECT_NEAR(ct["in_flight_share"].get<double>(), in_flight / ct["peak_resident"].get<double>(),
              1e-9);
  EXPECT_GT(in_flight, 0.5 * 8192);
  EXPECT_LE(in_flight, 1.01 * 8192);  // the latency clock (%globaltimer) against CUDA events
}

// The CPU-orchestrated baseline with its copy to the GPU: a duration run must end (every thread
// used to block in io_uring_wait_cqe once its last copy finished after the deadline), and an
// I/O-count run must copy exactly what it read, every read checked.
TEST(NbbGpu, UringWithGpuCopyEndsAndVerifies) {
  temp_dir dir;
  const std::string media = dir / "media.dat";
  const std::vector<std::string> base = {"--backend",     "uring",
                                         "--set",         "storage.media.kind=file",
                                         "--media-path",  media,
                                         "--set",         "storage.media.size_bytes=67108864",
                                         "--set",         "uring.gpu_copy=on",
                                         "--threads",     "4",
                                         "--outstanding", "8"};
  auto args = base;
  args.insert(args.end(), {"--ios", "0", "--duration", "0.3", "--sweep",
                           "workload.io_size=4096,65536", "--report", dir / "d.json"});
  auto r = run_tool(bench, args, dir);
  if (r.err.find("no GPU is usable") != std::string::npos) GTEST_SKIP() << "no GPU";
  ASSERT_EQ(r.rc, 0) << r.err;
  const json d = json::parse(test::read_file(dir / "d.json"));
  ASSERT_EQ(d["jobs"].size(), 2u);
  for (const auto& job : d["jobs"]) {
    EXPECT_GT(job["read"]["total_ios"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(job["bamkit"]["stats"]["uring"]["gpu_copy"], true);
  }
  args = base;
  args.insert(args.end(),
              {"--ios", "20000", "--io-size", "16384", "--verify", "--report", dir / "n.json"});
  r = run_tool(bench, args, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json n = json::parse(test::read_file(dir / "n.json"));
  EXPECT_EQ(n["jobs"][0]["read"]["total_ios"], 20000u);
  EXPECT_EQ(n["bamkit"]["stats"]["verified_ios"], 20000u);
  EXPECT_EQ(n["bamkit"]["stats"]["verify_errors"], 0u);
}

// Several commands in flight per GPU thread (waited for in changing orders), mixed reads and
// writes, every read checked against the pattern.
TEST(NbbGpu, SeveralCommandsInFlightPerThreadVerify) {
  temp_dir dir;
  const auto r = run_tool(
      bench,
      {"--backend", "emulated", "--outstanding", "4", "--threads", "512", "--pairs", "4", "--depth",
       "256", "--op", "mixed", "--verify", "--ios", "40000", "--report", dir / "d.json"},
      dir);
  if (r.err.find("needs a CUDA GPU") != std::string::npos) GTEST_SKIP() << "no GPU";
  ASSERT_EQ(r.rc, 0) << r.err;
  const json d = json::parse(test::read_file(dir / "d.json"));
  const auto& job = d["jobs"][0];
  EXPECT_EQ(job["read"]["total_ios"].get<std::uint64_t>() +
                job["write"]["total_ios"].get<std::uint64_t>(),
            40000u);
  EXPECT_EQ(d["bamkit"]["stats"]["verified_ios"], job["read"]["total_ios"]);
  // The share counts 4 commands a resident thread.
  EXPECT_EQ(d["bamkit"]["stats"]["client_threads"]["peak_resident"], 512u);
  EXPECT_GT(d["bamkit"]["stats"]["client_threads"]["in_flight_share"].get<double>(), 0.0);
  EXPECT_LE(d["bamkit"]["stats"]["client_threads"]["in_flight_share"].get<double>(), 1.01);
  EXPECT_EQ(d["bamkit"]["stats"]["verify_errors"], 0u);
}

TEST(NbbGpu, ConfigErrorsOfTheGpuPath) {
  temp_dir dir;
  auto r = run_tool(bench, {"--backend", "emulated", "--outstanding", "9"}, dir);
  if (r.err.find("needs a CUDA GPU") != std::string::npos) GTEST_SKIP() << "no GPU";
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("workload.outstanding: 9 is not supported"), std::string::npos) << r.err;
  // 1024 threads x 4 in flight on one queue of 256 entries: more than its 1024 command IDs.
  r = run_tool(bench,
               {"--backend", "emulated", "--outstanding", "4", "--threads", "1024", "--pairs", "1",
                "--depth", "256"},
               dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("command IDs"), std::string::npos) << r.err;
  r = run_tool(bench, {"--backend", "zerocopy", "--outstanding", "2"}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("workload.outstanding: 2 is not supported"), std::string::npos) << r.err;
  r = run_tool(bench,
               {"--backend", "emulated", "--outstanding", "1", "--model", "null", "--verify"}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("storage.model: --verify"), std::string::npos) << r.err;
  r = run_tool(bench,
               {"--backend", "emulated", "--outstanding", "1", "--io-size", "4194304", "--set",
                "storage.media.size_bytes=16777216"},
               dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("workload.io_size:"), std::string::npos) << r.err;
}

// Injected faults on the GPU engine (issue 14): errors end the run with exit status 3 and the
// report counts them by status, exactly as the fault plan decides for the one queue's commands
// (the host emulated controllers' key); drops end in bounded time, counted as timeouts, and the
// recovery watchdog aborts each lost command.
TEST(NbbGpu, EmulatedFaultsExitThreeCountedByStatus) {
  temp_dir dir;
  const std::vector<std::string> base = {
      "--backend", "emulated", "--pairs",       "1",
      "--threads", "256",      "--outstanding", "1",
      "--ios",     "20000",    "--set",         "storage.media.size_bytes=16777216"};
  auto args = base;
  args.insert(args.end(),
              {"--set", "storage.faults.error_fraction=0.1", "--set",
               "storage.faults.error_status=lba_out_of_range", "--set", "storage.faults.seed=3"});
  const json doc = run_report(args, dir, 3);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  emu::fault_config f;
  f.error_fraction = 0.1;
  f.seed = 3;
  const emu::fault_plan plan = emu::make_fault_plan(f);
  std::uint64_t planned = 0;
  for (std::uint64_t i = 0; i < 20000; ++i)
    planned += plan.decide(emu::fault_key(0, i)) == emu::fault_action::error ? 1 : 0;
  const json& job = doc["jobs"][0];
  EXPECT_EQ(job["error"], 5);  // EIO
  const json& e = doc["bamkit"]["io_errors"];
  EXPECT_EQ(e["errors"], planned);
  EXPECT_EQ(e["timeouts"], 0u);
  EXPECT_EQ(e["by_status"], json({{"LBA Out of Range", planned}}));
  EXPECT_EQ(job["read"]["total_ios"].get<std::uint64_t>() + planned, 20000u);
  EXPECT_EQ(doc["bamkit"]["stats"]["ssds"][0]["errors"], planned);

  args = base;
  args.insert(args.end(),
              {"--set", "storage.faults.drop_fraction=0.01", "--set", "queues.timeout_ms=200"});
  const auto t0 = std::chrono::steady_clock::now();
  const json drops = run_report(args, dir, 3);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  const json& d = drops["bamkit"]["io_errors"];
  EXPECT_GT(d["timeouts"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(d["errors"], d["timeouts"]);
  EXPECT_EQ(d["by_status"]["Host Timeout (bamkit)"], d["timeouts"]);
  // The host driver's watchdog aborted every lost command through the admin queue (its IDs came
  // back, so the queue never ran dry and never failed).
  const json& ssd = drops["bamkit"]["stats"]["ssds"][0];
  const json& rec = d["recovery"];
  EXPECT_GT(ssd["dropped"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(ssd["aborted"], ssd["dropped"]);
  EXPECT_EQ(rec["aborts_found"], ssd["dropped"]);
  EXPECT_EQ(d["timeouts"], ssd["dropped"]);
  EXPECT_EQ(rec["recoveries"], 0u);
  EXPECT_EQ(rec["abort_failures"], 0u);
}

// Threads alone on their queue pairs (thread mapping, no more threads than queues) hold them
// as their only user (gpu.queue_access auto, bam::queue_hold): every read verifies in both
// protocols, one SQ doorbell per command, and the report says which access ran; `shared` runs
// the same through BaM's protocol. Commands dropped by the drive time out, the watchdog's Aborts
// bring their late completions, which the shared protocol passes (the exclusive path's fallback),
// and nothing fails.
TEST(NbbGpu, ThreadsAloneOnTheirQueuesSubmitAsTheirOnlyUser) {
  temp_dir dir;
  for (const std::string access : {"auto", "shared"}) {
    SCOPED_TRACE(access);
    const json doc = mixed_run_both_protocols(
        {"--ssds", "2", "--pairs", "64", "--depth", "256", "--threads", "128", "--ios", "20000",
         "--set", "gpu.queue_mapping=thread", "--set", "gpu.queue_access=" + access},
        dir);
    if (doc.is_null()) GTEST_SKIP() << "no GPU";
    ASSERT_EQ(doc["jobs"].size(), 2u);
    for (const json& job : doc["jobs"]) {
      expect_job_adds_up(job, job["bamkit"], 20000, 2);
      const json& st = job["bamkit"]["stats"];
      EXPECT_EQ(job["bamkit"]["config"]["gpu"]["queue_access"], access);
      EXPECT_EQ(st["queue_access"].get<std::string>().rfind(
                    access == "auto" ? "exclusive:" : "shared:", 0),
                0u)
          << st["queue_access"];
      EXPECT_EQ(st["sq_doorbell_writes"], 20000u);
      // Shared: one CQ head doorbell a command (each alone on its queue); held: one per half
      // ring of a queue (depth 256) and one at the release, 156 or 157 commands a thread.
      EXPECT_EQ(st["cq_doorbell_writes"], access == "auto" ? 128u * 2 : 20000u);
      EXPECT_EQ(st["timeouts"], 0u);
    }
  }
  // One thread of sequential I/O over two SSDs uses a queue of each (the SSD of each I/O's
  // offset), so it holds neither: every read checks, and each SSD got half.
  {
    const json seq =
        run_report({"--backend", "emulated", "--ssds", "2", "--pairs", "1", "--threads", "1",
                    "--outstanding", "1", "--ios", "2000", "--pattern", "sequential", "--op",
                    "mixed", "--set", "storage.media.size_bytes=16777216", "--verify"},
                   dir);
    expect_job_adds_up(seq["jobs"][0], seq["bamkit"], 2000, 2);
    EXPECT_EQ(seq["bamkit"]["stats"]["per_ssd_ios"], (json{1000, 1000}));
    EXPECT_EQ(seq["bamkit"]["stats"]["queue_access"].get<std::string>().rfind("shared:", 0), 0u);
  }
  // One more thread than queues: a queue pair holds two threads, so all go through the shared
  // protocol; so do a warp's lanes, which share one queue.
  for (const auto& [threads, mapping] :
       {std::pair<std::string, std::string>{"129", "thread"}, {"2", "warp"}}) {
    const json doc =
        run_report({"--backend", "emulated", "--ssds", "2", "--pairs", "64", "--threads", threads,
                    "--outstanding", "1", "--ios", "4000", "--set",
                    "storage.media.size_bytes=16777216", "--set", "gpu.queue_mapping=" + mapping},
                   dir);
    expect_job_adds_up(doc["jobs"][0], doc["bamkit"], 4000, 2);
    EXPECT_EQ(doc["bamkit"]["stats"]["queue_access"].get<std::string>().rfind("shared:", 0), 0u)
        << threads << " threads, " << mapping;
  }
  // Dropped commands on queues of one thread each.
  const json drops = run_report(
      {"--backend", "emulated", "--pairs", "8", "--threads", "8", "--outstanding", "1", "--ios",
       "4000", "--set", "storage.media.size_bytes=16777216", "--set", "gpu.queue_mapping=thread",
       "--set", "storage.faults.drop_fraction=0.01", "--set", "queues.timeout_ms=200"},
      dir, 3);
  const json& d = drops["bamkit"]["io_errors"];
  const json& ssd = drops["bamkit"]["stats"]["ssds"][0];
  EXPECT_EQ(drops["bamkit"]["stats"]["queue_access"].get<std::string>().rfind("exclusive:", 0), 0u);
  EXPECT_GT(ssd["dropped"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(d["timeouts"], ssd["dropped"]);
  EXPECT_EQ(d["errors"], d["timeouts"]);
  EXPECT_EQ(ssd["aborted"], ssd["dropped"]);
  EXPECT_EQ(d["recovery"]["recoveries"], 0u);
  EXPECT_EQ(drops["jobs"][0]["read"]["total_ios"].get<std::uint64_t>() +
                d["timeouts"].get<std::uint64_t>(),
            4000u);
}

/// Per-SSD I/Os of a random run of 300 threads x 10 I/Os over 3 SSDs with `mapping`.
json mapped_run(const std::string& mapping, temp_dir& dir) {
  return run_report({"--backend",     "emulated",
                     "--ssds",        "3",
                     "--pairs",       "4",
                     "--threads",     "300",
                     "--outstanding", "1",
                     "--ios",         "3000",
                     "--set",         "storage.media.size_bytes=16777216",
                     "--set",         "gpu.queue_mapping=" + mapping,
                     "--set",         "gpu.engine_blocks=2",
                     "--set",         "gpu.engine_warps_per_block=4"},
                    dir);
}

TEST(NbbGpu, QueueMappingByThreadOrByWarp) {
  temp_dir dir;
  // thread: thread t on SSD t % 3, 100 threads x 10 I/Os each.
  const json by_thread = mapped_run("thread", dir);
  if (by_thread.is_null()) GTEST_SKIP() << "no GPU";
  expect_job_adds_up(by_thread["jobs"][0], by_thread["bamkit"], 3000, 3);
  EXPECT_EQ(by_thread["bamkit"]["stats"]["per_ssd_ios"], (json{1000, 1000, 1000}));
  EXPECT_EQ(by_thread["bamkit"]["stats"]["engine_warps"], 8u);  // 2 blocks x 4 warps
  EXPECT_EQ(by_thread["bamkit"]["config"]["gpu"]["queue_mapping"], "thread");
  // warp: warp w on SSD w % 3; warps 0, 3, 6 (32 threads) and 9 (the last 12) on SSD 0.
  const json by_warp = mapped_run("warp", dir);
  expect_job_adds_up(by_warp["jobs"][0], by_warp["bamkit"], 3000, 3);
  EXPECT_EQ(by_warp["bamkit"]["stats"]["per_ssd_ios"], (json{1080, 960, 960}));
  // An engine too small for the queues is a config error naming the key.
  const auto r =
      run_tool(bench,
               {"--backend", "emulated", "--ssds", "4", "--pairs", "128", "--outstanding", "1",
                "--set", "gpu.engine_blocks=1", "--set", "gpu.engine_warps_per_block=8"},
               dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpu.engine_blocks: 1 blocks of 8 warps"), std::string::npos) << r.err;
}

// The report counts each SSD's commands on its queues: 1,280 threads (40 warps) over 3 SSDs x 8
// queues, 50 I/Os a thread. By warp, warp w on SSD w % 3 and queue (w / 3) % 8: SSD 0 has 14
// warps (queues 0-5 two, 6-7 one), SSDs 1 and 2 have 13 (queues 0-4 two, 5-7 one). By thread,
// thread t on SSD t % 3 and queue (t / 3) % 8: SSDs 0 and 1 have 427 threads (queues 0-2 54,
// the others 53), SSD 2 426 (queues 0-1 54).
TEST(NbbGpu, ReportCountsEachQueuesCommands) {
  temp_dir dir;
  struct expected {
    std::string mapping;
    json totals;
    std::uint64_t fewest, most;
  };
  for (const expected& e : {expected{"warp", {22400, 20800, 20800}, 32u * 50, 2u * 32 * 50},
                            expected{"thread", {21350, 21350, 21300}, 53u * 50, 54u * 50}}) {
    const json doc = mixed_run_both_protocols(
        {"--ssds", "3", "--pairs", "8", "--depth", "64", "--threads", "1280", "--ios", "64000",
         "--set", "gpu.queue_mapping=" + e.mapping},
        dir);
    if (doc.is_null()) GTEST_SKIP() << "no GPU";
    ASSERT_EQ(doc["jobs"].size(), 2u);
    for (const json& job : doc["jobs"]) {
      expect_job_adds_up(job, job["bamkit"], 64000, 3);
      const json& ssds = job["bamkit"]["stats"]["ssds"];
      ASSERT_EQ(ssds.size(), 3u);
      EXPECT_EQ(job["bamkit"]["stats"]["per_ssd_ios"], e.totals) << e.mapping;
      for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(ssds[i]["queue_commands"], e.totals[i]) << e.mapping << " SSD " << i;
        EXPECT_EQ(ssds[i]["queue_commands_min"], e.fewest) << e.mapping << " SSD " << i;
        EXPECT_EQ(ssds[i]["queue_commands_max"], e.most) << e.mapping << " SSD " << i;
      }
    }
  }
}

}  // namespace
}  // namespace bam
