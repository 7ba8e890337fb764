// cache-bench's emulated backend through the real binary (label gpu; skipped without a GPU):
// GPU threads over GPU-emulated SSDs with --verify, and statistics exactly as the pattern
// implies: a cold sequential scan of whole lines through array_ref fetches every line once (in
// the thread and the warp layout), a hot pass after the warm-up never misses, random writes
// land on the SSDs.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache_bench_report.hpp"
#include "common/report_checks.hpp"
#include "tool_runner.hpp"

namespace bam::test {
namespace {

using nlohmann::json;

/// Runs the tool; null when this machine has no GPU for it.
json run_report(std::vector<std::string> args, temp_dir& dir) {
  args.insert(args.end(),
              {"--backend", "emulated", "--ssds", "2", "--set", "storage.media.size_bytes=67108864",
               "--set", "report.formats=[]", "--verify", "--report", dir / "r.json"});
  const auto r = run_tool(cache_bench_bin(), args, dir);
  if (r.err.find("needs a CUDA GPU") != std::string::npos) return json();
  EXPECT_EQ(r.rc, 0) << r.err << r.out;
  return json::parse(read_file(dir / "r.json"));
}

/// A cold sequential array_ref scan of 16384 lines of 4 KiB (8388608 elements) over 4096 slots
/// (one per thread: a cold array_ref run needs them, see check_pinning) by 4096 threads, in
/// `layout` with `coarsening` elements per thread and iteration; the iterations cover the lines
/// once. Every line is fetched exactly once; `lookups`: the cache accesses it must count.
void expect_scan_fetches_every_line_once(const std::string& layout, const std::string& coarsening,
                                         const std::string& iterations, std::uint64_t lookups) {
  temp_dir dir;
  const json doc = run_report({"--threads", "4096",
                               "--pattern", "sequential",
                               "--set",     "cache_bench.elements=8388608",
                               "--set",     "cache.line_size=4096",
                               "--set",     "cache.capacity=16777216",
                               "--set",     "cache_bench.mode=reuse",
                               "--set",     "cache_bench.temperature=cold",
                               "--set",     "cache_bench.layout=" + layout,
                               "--set",     "cache_bench.coarsening=" + coarsening,
                               "--set",     "cache_bench.iterations=" + iterations},
                              dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  const json& st = stats_of(doc);
  const json& c = st["cache"];
  EXPECT_EQ(st["accesses"], 16384u * 512u);
  EXPECT_EQ(c["misses"], 16384u);
  EXPECT_EQ(c["reads"], 16384u);
  EXPECT_EQ(c["accesses"], lookups);
  EXPECT_EQ(c["hits"], lookups - 16384u);
  EXPECT_EQ(c["evictions"], 16384u - 4096u);
  EXPECT_EQ(c["io_errors"], 0u);
  EXPECT_EQ(c["bytes_read"][0], 8192u * 4096u);
  EXPECT_EQ(c["bytes_read"][1], 8192u * 4096u);
  EXPECT_EQ(st["verify"]["read_errors"], 0u);
  EXPECT_EQ(st["verify"]["media_errors"], 0u);
}

TEST(CacheBenchGpu, ColdSequentialReuseScanFetchesEveryLineOnce) {
  // Thread layout: each thread reads four whole lines (512 elements each), one per iteration;
  // one lookup per line. (The dataset is set: by default it would be threads x coarsening
  // elements, 4096 lines, which the 4 iterations would read 4 times over.)
  expect_scan_fetches_every_line_once("thread", "512", "4", 16384u);
}

TEST(CacheBenchGpu, ColdSequentialWarpLayoutReuseScanFetchesEveryLineOnce) {
  // Warp layout: each of the 128 warps owns 32 x 16 consecutive elements = exactly one line per
  // iteration (lane l reads elements l, 32 + l, ...), so the warp's array_refs acquire the line
  // once as one group of 32 and hold it for the 16 steps (the leader counts 32 lookups); 128
  // iterations cover the 16384 lines once.
  expect_scan_fetches_every_line_once("warp", "16", "128", 16384u * 32u);
}

TEST(CacheBenchGpu, ColdCoalescedNeedsASlotPerResidentThread) {
  temp_dir dir;
  const auto r =
      run_tool(cache_bench_bin(),
               {"--backend", "emulated", "--set", "storage.media.size_bytes=67108864", "--threads",
                "1048576", "--set", "cache.line_size=512", "--set", "cache.capacity=65536", "--set",
                "cache_bench.temperature=cold", "--report", dir / "r.json"},
               dir);
  if (r.err.find("needs a CUDA GPU") != std::string::npos) GTEST_SKIP() << "no GPU";
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("cache.capacity"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("resident threads"), std::string::npos) << r.err;
}

TEST(CacheBenchGpu, HotCoalescedMillionThreadsNeverMiss) {
  temp_dir dir;
  const json doc = run_report({"--threads", "1048576", "--pattern", "random", "--set",
                               "cache.line_size=512", "--set", "cache.capacity=8388608", "--set",
                               "cache_bench.elements=1048576", "--set", "cache_bench.iterations=4"},
                              dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  const json& st = stats_of(doc);
  EXPECT_EQ(st["warm"]["misses"], 16384u);
  EXPECT_EQ(st["cache"]["misses"], 0u);
  EXPECT_EQ(st["cache"]["accesses"], 4u * 1048576u);
  EXPECT_EQ(st["cache"]["hits"], 4u * 1048576u);
  EXPECT_EQ(st["hot_check"]["ok"], true);
  EXPECT_EQ(st["verify"]["read_errors"], 0u);
  // The measured kernel's resources are reported, and its launch bound holds on this GPU.
  const json& k = st["kernel"];
  EXPECT_GT(k["registers_per_thread"].get<int>(), 0);
  EXPECT_LE(k["registers_per_thread"].get<int>(),
            65536 / (256 * k["min_blocks_per_sm"].get<int>()));
  EXPECT_EQ(k["block_threads"], 256);
  EXPECT_GE(k["resident_blocks_per_sm"].get<int>(), k["min_blocks_per_sm"].get<int>());
}

TEST(CacheBenchGpu, ColdRandomWritesLandOnTheSsds) {
  temp_dir dir;
  const json doc =
      run_report({"--threads", "65536", "--op", "write", "--set", "cache.line_size=4096", "--set",
                  "cache.capacity=1048576", "--set", "cache_bench.temperature=cold", "--set",
                  "cache_bench.elements=1048576", "--set", "cache_bench.coarsening=4", "--set",
                  "cache_bench.mode=plain"},
                 dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  const json& st = stats_of(doc);
  EXPECT_EQ(st["verify"]["media_errors"], 0u);
  EXPECT_GT(st["verify"]["expected_written"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(st["verify"]["media_written"], st["verify"]["expected_written"]);
  EXPECT_EQ(st["cache"]["accesses"], 65536u * 4u);
  EXPECT_EQ(st["cache"]["reads"], st["cache"]["misses"]);
  EXPECT_EQ(doc["jobs"][0]["write"]["total_ios"], 65536u * 4u);
}

TEST(CacheBenchGpu, BothProtocolsVerifyAndTheReportSaysWhichRan) {
  temp_dir dir;
  const json doc = run_report(
      {"--threads", "65536", "--set", "cache.line_size=4096", "--set", "cache.capacity=4194304",
       "--set", "cache_bench.temperature=cold", "--set", "cache_bench.elements=2097152", "--set",
       "cache_bench.mode=plain", "--sweep", "storage.protocol=hardware,emulator"},
      dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  ASSERT_EQ(doc["jobs"].size(), 2u);
  for (const std::string protocol : {"hardware", "emulator"}) {
    const json& job = doc["jobs"][protocol == "hardware" ? 0 : 1];
    EXPECT_EQ(job["bamkit"]["config"]["storage"]["protocol"], protocol);
    const json& st = job["bamkit"]["stats"];
    EXPECT_EQ(st["storage"]["protocol"], protocol);
    EXPECT_NE(
        st["storage"]["real_hardware"].get<std::string>().find("storage.protocol " + protocol),
        std::string::npos);
    EXPECT_GT(st["cache"]["reads"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(st["cache"]["io_errors"], 0u);
    EXPECT_EQ(st["verify"]["read_errors"], 0u);
    std::uint64_t ordering = 0;
    for (const auto& s : st["engine"]["ssds"])
      ordering += s["ordering_reads"].get<std::uint64_t>();
    if (protocol == "hardware")
      EXPECT_GT(ordering, 0u);  // every line read was followed by one (coalesced)
    else
      EXPECT_EQ(ordering, 0u);
    // The engine's shape and where its blocks ran, as nvm-block-bench reports them: a block per
    // SM of its own.
    const json& eng = st["engine"];
    const auto blocks = eng["engine_blocks"].get<std::uint32_t>();
    ASSERT_GT(blocks, 0u);
    EXPECT_EQ(eng["engine_warps"].get<std::uint32_t>() % blocks, 0u);
    const auto sms = eng["engine_sms"].get<std::vector<std::uint32_t>>();
    EXPECT_EQ(sms.size(), blocks);
    EXPECT_EQ(std::set<std::uint32_t>(sms.begin(), sms.end()).size(), sms.size());
    EXPECT_TRUE(eng["engine_app_warps"].is_number_unsigned());
    EXPECT_TRUE(eng["engine_handovers"].is_number_unsigned());
  }
}

TEST(CacheBenchGpu, CeilingsHaveTheKeysOfEveryReport) {
  temp_dir dir;
  const json doc = run_report({"--threads", "4096", "--set", "cache.line_size=4096", "--set",
                               "cache.capacity=16777216", "--measure-ceilings"},
                              dir);
  if (doc.is_null()) GTEST_SKIP() << "no GPU";
  // One cache line per read, over the run's footprint: its 4096 elements are 8 lines of 4 KiB,
  // 4 on each of the 2 SSDs' media.
  expect_gpu_ceilings(doc, 4096, 2u * 4 * 4096);
  const json& c = doc["bamkit"]["ceilings"];
  EXPECT_TRUE(c["memory"].is_string());
}

}  // namespace
}  // namespace bam::test
