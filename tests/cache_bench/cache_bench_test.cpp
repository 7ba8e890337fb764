// cache-bench on the host backend through the real binary: rejected configurations (exit 2, a
// message naming the key, nothing written), runs whose cache statistics are exactly what the
// access pattern implies (cold sequential scans, a hot second pass without misses, verified
// writes), sweeps, and the reports (fio json+ validated by fio's own script, CSV columns).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache_bench_report.hpp"
#include "tool_runner.hpp"

namespace {

using bam::test::run_tool;
using bam::test::stats_of;
using bam::test::temp_dir;
using nlohmann::json;

const std::string bench = bam::test::cache_bench_bin();

/// Small host runs: 512 B lines, 2 SSDs of 1 MiB.
std::vector<std::string> base_args() {
  return {"--backend", "host",
          "--ssds",    "2",
          "--set",     "storage.media.size_bytes=1048576",
          "--set",     "cache.line_size=512",
          "--set",     "report.formats=[]"};
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

json run_report(const std::vector<std::string>& args, temp_dir& dir, int expect_rc = 0) {
  const auto r = run_tool(bench, with(args, {"--report", dir / "r.json"}), dir);
  EXPECT_EQ(r.rc, expect_rc) << r.err << r.out;
  if (!std::filesystem::exists(dir / "r.json")) return json();
  return json::parse(bam::test::read_file(dir / "r.json"));
}

struct bad_input {
  std::vector<std::string> args;
  std::string key;
  std::string text;
};

TEST(CacheBenchCli, RejectsBadConfigurationsBeforeRunning) {
  const std::vector<bad_input> cases = {
      {{"--set", "cache_bench.bogus=1"}, "cache_bench.bogus", "unknown key"},
      {{"--set", "cache_bench.mode=fancy"}, "cache_bench.mode", "plain|coalesced|reuse"},
      {{"--set", "cache_bench.coarsening=0"}, "cache_bench.coarsening", "[1, 1024]"},
      {{"--set", "cache_bench.temperature=warm"}, "cache_bench.temperature", "hot|cold"},
      {{"--set", "storage.lba_size=4096"},
       "cache.line_size",
       "not a multiple of storage.lba_size (4096)"},
      {{"--set", "cache.line_size=131072"}, "cache.line_size", "powers of two in [512, 65536]"},
      {{"--threads", "4", "--set", "cache_bench.elements=8192", "--set",
        "cache_bench.temperature=cold", "--set", "cache.capacity=1048576"},
       "cache.capacity",
       "larger than the dataset"},
      {{"--threads", "4", "--set", "cache_bench.elements=65536", "--set", "cache.capacity=8192"},
       "cache.capacity",
       "smaller than the dataset"},
      {{"--set", "cache_bench.coarsening=3", "--set", "cache_bench.elements=100"},
       "cache_bench.elements",
       "multiple of cache_bench.coarsening"},
      {{"--set", "cache_bench.elements=1000000"}, "cache_bench.elements", "do not fit"},
      {{"--set", "storage.backend=zerocopy"}, "storage.backend", "not supported by cache-bench"},
      // nvme is accepted: what is rejected is the missing device file (before anything opens)
      // and more threads than host mode runs (GPU threads over real controllers: not built).
      {{"--set", "storage.backend=nvme", "--set",
        R"(storage.device_paths=["/nonexistent/bamkit-nvme8","/nonexistent/bamkit-nvme9"])"},
       "storage.device_paths",
       "\"/nonexistent/bamkit-nvme8\" does not exist"},
      {{"--set", "storage.backend=nvme", "--set", R"(storage.device_paths=["/dev/null"])"},
       "storage.device_paths",
       "1 device file(s) for storage.ssd_count = 2"},
      {{"--set", "storage.backend=nvme", "--set",
        R"(storage.device_paths=["/dev/null","/dev/zero"])", "--threads", "2048"},
       "workload.threads",
       "host mode only"},
      {{"--threads", "5000"}, "workload.threads", "[1, 1024]"},
      {{"--sweep", "cache_bench.mode=plain,bogus"}, "cache_bench.mode", "plain|coalesced|reuse"},
      {{"--sweep", "report.csv=a,b"}, "--sweep", "report keys cannot be swept"},
      {{"--set", "cache_bench.layout=diagonal"}, "cache_bench.layout", "thread|warp"},
      {{"--threads", "48", "--set", "cache_bench.layout=warp"},
       "workload.threads",
       "not a multiple of 32: cache_bench.layout = warp"},
      {{"--threads", "32", "--set", "cache_bench.layout=warp", "--set", "cache_bench.coarsening=2",
        "--set", "cache_bench.elements=96"},
       "cache_bench.elements",
       "multiple of 32 x cache_bench.coarsening (2)"},
  };
  for (const bad_input& c : cases) {
    temp_dir dir;
    const auto args =
        with(with(base_args(), c.args), {"--report", dir / "r.json", "--csv", dir / "r.csv"});
    const auto r = run_tool(bench, args, dir);
    EXPECT_EQ(r.rc, 2) << c.key << ": " << r.err;
    EXPECT_NE(r.err.find(c.key), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.text), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json")) << c.key;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.csv")) << c.key;
  }
}

/// A character device that is not a controller bound to bamkit.ko: the nvme backend fails to
/// open it with a message naming the file, exit 1, and writes no report.
TEST(CacheBenchCli, NvmeBackendOnANonBamkitDeviceFailsCleanly) {
  temp_dir dir;
  const auto r = run_tool(
      bench,
      with(base_args(), {"--set", "storage.backend=nvme", "--set", "storage.ssd_count=1", "--set",
                         R"(storage.device_paths=["/dev/null"])", "--report", dir / "r.json"}),
      dir);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("cannot open backend"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/dev/null"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

TEST(CacheBenchCli, HelpShowsDefaultsAndPrintConfigTheSection) {
  temp_dir dir;
  const auto h = run_tool(bench, {"--help"}, dir);
  EXPECT_EQ(h.rc, 0);
  EXPECT_NE(h.out.find("cache_bench.mode = \"coalesced\""), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("cache_bench.coarsening = 1"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("cache_bench.layout = \"thread\""), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("--verify"), std::string::npos);
  const auto p = run_tool(bench, {"--set", "cache_bench.mode=reuse", "--print-config"}, dir);
  ASSERT_EQ(p.rc, 0) << p.err;
  const json c = json::parse(p.out);
  EXPECT_EQ(c["cache_bench"]["mode"], "reuse");
  EXPECT_EQ(c["cache_bench"]["temperature"], "hot");
  EXPECT_EQ(c["cache_bench"]["iterations"], 1);
  EXPECT_EQ(c["cache_bench"]["layout"], "thread");
  const auto w = run_tool(bench, {"--set", "cache_bench.layout=warp", "--print-config"}, dir);
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_EQ(json::parse(w.out)["cache_bench"]["layout"], "warp");
}

/// Cold sequential scan of 64 lines, each thread reading whole lines through an array_ref: one
/// fetch per line, whatever the threads' interleaving.
TEST(CacheBenchHost, ColdSequentialReuseScanMissesEveryLineOnce) {
  temp_dir dir;
  const json doc = run_report(
      with(base_args(), {"--threads", "4", "--pattern", "sequential", "--set",
                         "cache_bench.mode=reuse", "--set", "cache_bench.temperature=cold", "--set",
                         "cache_bench.coarsening=64", "--set", "cache_bench.elements=4096", "--set",
                         "cache_bench.iterations=16", "--set", "cache.capacity=8192", "--verify"}),
      dir);
  ASSERT_FALSE(doc.is_null());
  const json& st = stats_of(doc);
  const json& c = st["cache"];
  EXPECT_EQ(st["accesses"], 4096u);
  EXPECT_EQ(c["misses"], 64u);
  EXPECT_EQ(c["reads"], 64u);
  EXPECT_EQ(c["accesses"], 64u);  // array_ref: one lookup per line
  EXPECT_EQ(c["hits"], 0u);
  EXPECT_EQ(c["evictions"], 64u - 16u);
  EXPECT_EQ(c["writes"], 0u);
  EXPECT_EQ(c["bytes_read"][0].get<std::uint64_t>() + c["bytes_read"][1].get<std::uint64_t>(),
            64u * 512u);
  // 32 KiB of data: all of it in the first 64 KiB stripe unit, on SSD 0.
  EXPECT_EQ(c["bytes_read"][0], 64u * 512u);
  EXPECT_EQ(st["verify"]["read_errors"], 0u);
  EXPECT_EQ(st["verify"]["media_errors"], 0u);
  EXPECT_EQ(st["verify"]["media_written"], 0u);
  EXPECT_EQ(doc["jobs"][0]["read"]["total_ios"], 4096u);
  EXPECT_GT(st["miss_iops"].get<double>(), 0.0);
}

/// One thread, element by element (bam::array): every line missed exactly once, every other
/// access of the line hits.
TEST(CacheBenchHost, ColdSequentialCoalescedSingleThreadExactCounts) {
  temp_dir dir;
  const json doc = run_report(
      with(base_args(),
           {"--threads", "1", "--pattern", "sequential", "--set", "cache_bench.temperature=cold",
            "--set", "cache_bench.elements=2048", "--set", "cache_bench.coarsening=8", "--set",
            "cache_bench.iterations=256", "--set", "cache.capacity=4096"}),
      dir);
  ASSERT_FALSE(doc.is_null());
  const json& c = stats_of(doc)["cache"];
  EXPECT_EQ(c["accesses"], 2048u);
  EXPECT_EQ(c["misses"], 32u);
  EXPECT_EQ(c["reads"], 32u);
  EXPECT_EQ(c["hits"], 2048u - 32u);
  EXPECT_EQ(c["evictions"], 32u - 8u);
}

/// The job of a sweep report with this layout and mode.
const json& job_of(const json& doc, const std::string& layout, const std::string& mode) {
  for (const json& j : doc["jobs"]) {
    const json& b = j["bamkit"]["config"]["cache_bench"];
    if (b["layout"] == layout && b["mode"] == mode) return j;
  }
  ADD_FAILURE() << "no job " << layout << "/" << mode;
  return doc;
}

/// Cold sequential pass over 64 lines (32 threads x 8 elements x 16 iterations = the 4096
/// elements once) with as many slots as lines, so nothing is evicted: in both layouts and every
/// mode each line is read exactly once and every other access hits. array_ref lookups differ as
/// the layouts imply: thread layout, a thread's 8 elements lie in one line (1 lookup per
/// iteration); warp layout (host: 32 threads, one group), they are 32 apart and span the
/// group's 4 lines (4 lookups).
TEST(CacheBenchHost, ColdSequentialScanReadsEachLineOnceInBothLayouts) {
  temp_dir dir;
  const json doc = run_report(
      with(base_args(),
           {"--threads", "32", "--pattern", "sequential", "--set", "cache_bench.temperature=cold",
            "--set", "cache_bench.elements=4096", "--set", "cache_bench.coarsening=8", "--set",
            "cache_bench.iterations=16", "--set", "cache.capacity=32768", "--verify", "--sweep",
            "cache_bench.layout=thread,warp", "--sweep", "cache_bench.mode=plain,coalesced,reuse"}),
      dir);
  ASSERT_FALSE(doc.is_null());
  ASSERT_EQ(doc["jobs"].size(), 6u);
  for (const std::string layout : {"thread", "warp"}) {
    for (const std::string mode : {"plain", "coalesced", "reuse"}) {
      SCOPED_TRACE(layout + "/" + mode);
      const json& st = job_of(doc, layout, mode)["bamkit"]["stats"];
      const json& c = st["cache"];
      EXPECT_EQ(st["accesses"], 4096u);
      EXPECT_EQ(c["misses"], 64u);
      EXPECT_EQ(c["reads"], 64u);
      EXPECT_EQ(c["evictions"], 0u);
      EXPECT_EQ(c["writes"], 0u);
      EXPECT_EQ(c["bytes_read"][0], 64u * 512u);  // 32 KiB: the first 64 KiB stripe unit
      EXPECT_EQ(c["bytes_read"][1], 0u);
      const std::uint64_t lookups =
          mode != "reuse" ? 4096u : (layout == "thread" ? 32u * 16u : 32u * 16u * 4u);
      EXPECT_EQ(c["accesses"], lookups);
      EXPECT_EQ(c["hits"], lookups - 64u);
      EXPECT_EQ(st["verify"]["read_errors"], 0u);
      EXPECT_EQ(st["verify"]["media_errors"], 0u);
      EXPECT_EQ(st["verify"]["media_written"], 0u);
    }
  }
}

/// Both layouts, every mode, reads, writes and mixed over a dataset 8x the cache (random
/// chunks; warp layout: one chunk and one read/write decision per group of 32 threads): every
/// read is an initial or written value and the SSDs hold exactly the written elements.
/// A dataset of four 64 KiB stripe units (256 KiB, 512 lines of 512 B) read once by a cold
/// sequential pass with a slot per line: every line is read once, and the reads split evenly
/// over the two SSDs (units 0 and 2 on SSD 0, units 1 and 3 on SSD 1).
TEST(CacheBenchHost, ColdScanOfFourStripeUnitsSplitsTheReadsOverBothSsds) {
  temp_dir dir;
  const json doc = run_report(
      with(base_args(),
           {"--threads", "32", "--pattern", "sequential", "--set", "cache_bench.temperature=cold",
            "--set", "cache_bench.elements=32768", "--set", "cache_bench.coarsening=8", "--set",
            "cache_bench.iterations=128", "--set", "cache.capacity=262144", "--verify"}),
      dir);
  ASSERT_FALSE(doc.is_null());
  const json& st = stats_of(doc);
  const json& c = st["cache"];
  EXPECT_EQ(st["accesses"], 32768u);
  EXPECT_EQ(c["reads"], 512u);
  EXPECT_EQ(c["misses"], 512u);
  EXPECT_EQ(c["evictions"], 0u);
  EXPECT_EQ(c["bytes_read"][0], 2u * 65536u);
  EXPECT_EQ(c["bytes_read"][1], 2u * 65536u);
  EXPECT_EQ(st["dataset"]["elements"], 32768u);  // the tool's own dataset figures, kept
  EXPECT_EQ(st["dataset"]["lines"], 512u);
  EXPECT_EQ(st["storage"]["backend"], "host");  // and what the storage context says
  EXPECT_EQ(st["storage"]["dataset"]["regions"][0]["name"], "cache_bench.data");
  EXPECT_EQ(st["verify"]["read_errors"], 0u);
  EXPECT_EQ(st["verify"]["media_errors"], 0u);
}

TEST(CacheBenchHost, BothLayoutsVerifyReadsWritesAndMixed) {
  temp_dir dir;
  const json doc = run_report(with(base_args(), {"--threads",
                                                 "64",
                                                 "--set",
                                                 "workload.read_ratio=0.5",
                                                 "--set",
                                                 "cache_bench.temperature=cold",
                                                 "--set",
                                                 "cache_bench.elements=16384",
                                                 "--set",
                                                 "cache_bench.coarsening=2",
                                                 "--set",
                                                 "cache_bench.iterations=32",
                                                 "--set",
                                                 "cache.capacity=16384",
                                                 "--verify",
                                                 "--sweep",
                                                 "cache_bench.layout=thread,warp",
                                                 "--sweep",
                                                 "cache_bench.mode=plain,coalesced,reuse",
                                                 "--sweep",
                                                 "workload.op=read,write,mixed"}),
                              dir);
  ASSERT_FALSE(doc.is_null());
  ASSERT_EQ(doc["jobs"].size(), 18u);
  for (const json& j : doc["jobs"]) {
    const json& cfg = j["bamkit"]["config"];
    const std::string op = cfg["workload"]["op"];
    SCOPED_TRACE(cfg["cache_bench"]["layout"].get<std::string>() + "/" +
                 cfg["cache_bench"]["mode"].get<std::string>() + "/" + op);
    const json& st = j["bamkit"]["stats"];
    EXPECT_EQ(j["error"], 0);
    EXPECT_EQ(st["verify"]["read_errors"], 0u);
    EXPECT_EQ(st["verify"]["media_errors"], 0u);
    EXPECT_EQ(st["verify"]["media_written"], st["verify"]["expected_written"]);
    const std::uint64_t writes = j["write"]["total_ios"];
    EXPECT_EQ(j["read"]["total_ios"].get<std::uint64_t>() + writes, 64u * 32u * 2u);
    if (op == "read") {
      EXPECT_EQ(writes, 0u);
      EXPECT_EQ(st["verify"]["expected_written"], 0u);
    } else {
      EXPECT_GT(st["verify"]["expected_written"].get<std::uint64_t>(), 0u);
      if (op == "write") {
        EXPECT_EQ(writes, 64u * 32u * 2u);
      } else {
        EXPECT_LT(writes, 64u * 32u * 2u);
      }
      EXPECT_EQ(writes % 2u, 0u);  // whole chunks
    }
    EXPECT_EQ(st["cache"]["reads"], st["cache"]["misses"]);
  }
}

TEST(CacheBenchHost, HotPassHasNoMissesAndPlainModeCountsEveryAccess) {
  temp_dir dir;
  const json doc = run_report(
      with(base_args(),
           {"--threads", "8", "--pattern", "random", "--set", "cache_bench.mode=plain", "--set",
            "cache_bench.elements=4096", "--set", "cache_bench.coarsening=4", "--set",
            "cache_bench.iterations=32", "--set", "cache.capacity=32768", "--verify"}),
      dir);
  ASSERT_FALSE(doc.is_null());
  const json& st = stats_of(doc);
  EXPECT_EQ(st["warm"]["misses"], 64u);  // the warm pass loaded the 64 lines
  EXPECT_EQ(st["cache"]["misses"], 0u);
  EXPECT_EQ(st["cache"]["reads"], 0u);
  EXPECT_EQ(st["cache"]["hits"], 8u * 32u * 4u);
  EXPECT_EQ(st["hot_check"]["ok"], true);
  EXPECT_EQ(st["verify"]["read_errors"], 0u);
  EXPECT_EQ(st["accesses"], 1024u);
}

/// Random mixed reads and writes over a dataset 8x the cache: every read is the initial or the
/// written value, after the flush the SSDs hold exactly the written elements' new values.
TEST(CacheBenchHost, ColdRandomWritesAreVerifiedOnTheSsds) {
  temp_dir dir;
  const json doc = run_report(
      with(base_args(), {"--threads", "8", "--op", "mixed", "--set", "workload.read_ratio=0.5",
                         "--set", "cache_bench.temperature=cold", "--set",
                         "cache_bench.elements=8192", "--set", "cache_bench.coarsening=2", "--set",
                         "cache_bench.iterations=64", "--set", "cache.capacity=8192", "--verify"}),
      dir);
  ASSERT_FALSE(doc.is_null());
  const json& st = stats_of(doc);
  EXPECT_EQ(st["verify"]["read_errors"], 0u);
  EXPECT_EQ(st["verify"]["media_errors"], 0u);
  EXPECT_GT(st["verify"]["expected_written"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(st["verify"]["media_written"], st["verify"]["expected_written"]);
  const json& job = doc["jobs"][0];
  EXPECT_EQ(job["read"]["total_ios"].get<std::uint64_t>() +
                job["write"]["total_ios"].get<std::uint64_t>(),
            8u * 64u * 2u);
  EXPECT_GT(job["write"]["total_ios"].get<std::uint64_t>(), 0u);
  const json& c = st["cache"];
  EXPECT_EQ(c["reads"], c["misses"]);
  EXPECT_GT(
      c["dirty_evictions"].get<std::uint64_t>() + st["flush"]["write_backs"].get<std::uint64_t>(),
      0u);
}

int run(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CacheBenchReport, SweepJobsCsvRowsAndFioValidates) {
  temp_dir dir;
  const json doc =
      run_report(with(base_args(), {"--threads", "4", "--set", "cache_bench.elements=1024", "--set",
                                    "cache.capacity=8192", "--csv", dir / "r.csv", "--sweep",
                                    "cache_bench.mode=plain,coalesced,reuse", "--sweep",
                                    "workload.op=read,write"}),
                 dir);
  ASSERT_FALSE(doc.is_null());
  ASSERT_EQ(doc["jobs"].size(), 6u);
  EXPECT_EQ(doc["jobs"][0]["jobname"].get<std::string>().rfind("cache-bench", 0), 0u);
  EXPECT_EQ(doc["jobs"][0]["bamkit"]["config"]["cache_bench"]["mode"], "plain");
  EXPECT_EQ(doc["jobs"][5]["bamkit"]["config"]["cache_bench"]["mode"], "reuse");
  EXPECT_EQ(doc["jobs"][5]["bamkit"]["config"]["workload"]["op"], "write");
  EXPECT_TRUE(doc["bamkit"]["machine"].is_object());
  EXPECT_NE(doc["bamkit"]["command"].get<std::string>().find("--sweep"), std::string::npos);
  for (const json& j : doc["jobs"]) {
    EXPECT_EQ(j["bamkit"]["stats"]["cache"]["misses"], 0u);
    EXPECT_GT(j["bamkit"]["stats"]["effective_GBps"].get<double>(), 0.0);
  }
  std::istringstream csv(bam::test::read_file(dir / "r.csv"));
  std::string header, line;
  std::getline(csv, header);
  EXPECT_NE(header.find("tool,backend"), std::string::npos);
  EXPECT_NE(header.find(",mode,temperature,line_size,coarsening,layout,iterations"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("effective_GBps"), std::string::npos);
  int rows = 0;
  while (std::getline(csv, line)) {
    EXPECT_EQ(line.rfind("cache-bench,host,", 0), 0u) << line;
    EXPECT_NE(line.find(",thread,"), std::string::npos) << line;  // the default layout
    ++rows;
  }
  EXPECT_EQ(rows, 6);

  const std::string script = "/usr/bin/fio_jsonplus_clat2csv";
  ASSERT_TRUE(std::filesystem::exists(script)) << "install Debian's fio (scripts/setup)";
  const std::string stub = dir / "lat.csv";
  ASSERT_EQ(run(script + " " + (dir / "r.json") + " " + stub + " > /dev/null"), 0);
  EXPECT_EQ(
      run(script + " " + (dir / "r.json") + " " + stub + " --validate > " + (dir / "validate.txt")),
      0)
      << bam::test::read_file(dir / "validate.txt");
}

// --repeat: cache-bench times no single I/O, so its runs have no latency to spread: the report
// names the runs' rates and no latency percentiles (no zeros standing in for them).
TEST(CacheBenchHost, RepeatedRunsReportTheirRatesAndNoLatencies) {
  temp_dir dir;
  const auto r = run_tool(
      bench,
      with(base_args(), {"--threads", "4", "--repeat", "2", "--set", "cache_bench.elements=4096",
                         "--set", "cache_bench.iterations=4", "--set", "cache.capacity=8192",
                         "--set", "cache_bench.temperature=cold", "--set",
                         "report.formats=[\"summary\"]", "--report", dir / "r.json"}),
      dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json doc = json::parse(bam::test::read_file(dir / "r.json"));
  const json& rep = doc["jobs"][0]["bamkit"]["repeat"];  // N > 1: each job its own bamkit
  EXPECT_EQ(rep["runs"], 2u);
  EXPECT_EQ(rep["iops"].size(), 2u);
  EXPECT_FALSE(rep.contains("lat_us")) << rep.dump();
  EXPECT_NE(r.out.find("repeat: 2 runs"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("p99.99 over the runs"), std::string::npos) << r.out;
}

}  // namespace
