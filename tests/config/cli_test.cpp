// The real nvm-block-bench binary's command line: rejected inputs (message naming the key and the
// allowed range, exit status 2, no report written), --print-config round trips, --help showing
// the struct defaults, the shipped configs, and the reports of a small io_uring run (validated
// with fio's own fio_jsonplus_clat2csv).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "bam/config/config_io.hpp"
#include "tool_runner.hpp"

namespace bam {
namespace {

using nlohmann::json;
using test::run_tool;
using test::temp_dir;

const std::string bench = BAM_BENCH_BIN;
const std::string source_dir = BAM_SOURCE_DIR;

struct bad_input {
  std::vector<std::string> args;
  std::string key;
  std::string range;  ///< part of the message naming the allowed values
};

class RejectedInput : public ::testing::TestWithParam<bad_input> {};

TEST_P(RejectedInput, NamesKeyAndRangeExitsNonZeroWritesNothing) {
  temp_dir dir;
  const bad_input& in = GetParam();
  std::vector<std::string> args = in.args;
  for (auto& a : args) {
    const auto pos = a.find("@TMP@");
    if (pos != std::string::npos) a.replace(pos, 5, dir.path().string());
  }
  args.insert(args.end(), {"--report", dir / "r.json", "--csv", dir / "r.csv"});
  const auto r = run_tool(bench, args, dir);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(in.key + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(in.range), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r.csv"));
  EXPECT_TRUE(r.out.empty()) << r.out;
}

const std::vector<std::string> uring_file = {
    "--backend",    "uring",           "--set", "storage.media.kind=file",
    "--media-path", "@TMP@/media.dat", "--set", "storage.media.size_bytes=1048576"};

std::vector<std::string> with_uring(std::vector<std::string> more) {
  std::vector<std::string> a = uring_file;
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

/// A cufile config that passes validation (so only the build can reject it).
std::vector<std::string> with_cufile(std::vector<std::string> more) {
  std::vector<std::string> a = {"--backend",     "cufile",
                                "--set",         "storage.media.kind=file",
                                "--media-path",  "@TMP@/media.dat",
                                "--set",         "storage.media.size_bytes=1048576",
                                "--outstanding", "1"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, RejectedInput,
    ::testing::Values(
        bad_input{{"--threads", "0"}, "workload.threads", "[1, 33554432]"},
        bad_input{
            {"--set", "workload.threads=abc"}, "workload.threads", "expected an unsigned integer"},
        bad_input{{"--set", "workload.bogus=1"}, "workload.bogus", "unknown key, allowed"},
        bad_input{{"--set", "nosection.x=1"}, "nosection", "unknown key, allowed storage"},
        bad_input{{"--io-size", "1000"}, "workload.io_size", "multiples of 512"},
        bad_input{{"--set", "workload.read_ratio=1.5"}, "workload.read_ratio", "[0, 1]"},
        bad_input{{"--depth", "100000"}, "queues.depth", "[2, 65536]"},
        bad_input{{"--op", "erase"}, "workload.op", "read|write|mixed"},
        bad_input{{"--model", "optane"}, "storage.model", "optane-p5800x"},
        bad_input{{"--set", "storage.model=12"}, "storage.model", "unknown preset \"12\""},
        bad_input{{"--set", "storage.media.size_bytes=1048576", "--set",
                   "workload.dataset_bytes=2097152"},
                  "workload.dataset_bytes",
                  "larger than the media"},
        bad_input{{"--backend", "nvme", "--ssds", "2"}, "storage.device_paths", "0 device file(s)"},
        bad_input{{"--backend", "nvme", "--set", "storage.device_paths=[\"/dev/a\",\"/dev/b\"]"},
                  "storage.device_paths",
                  "2 device file(s) for storage.ssd_count = 1"},
        bad_input{with_uring({"--ssds", "2"}), "storage.ssd_count", "[1, 1]"},
        bad_input{with_uring({"--op", "write"}), "workload.op", "allowed read"},
        bad_input{with_uring({"--set", "workload.dataset_bytes=2097152"}), "workload.dataset_bytes",
                  "larger than the media"},
        // cufile (GPUDirect Storage): checked before the build's backends are looked at.
        bad_input{
            {"--backend", "cufile", "--outstanding", "1"}, "storage.media.kind", "allowed file"},
        bad_input{with_cufile({"--ssds", "2"}), "storage.ssd_count", "[1, 1]"},
        bad_input{with_cufile({"--set", "workload.outstanding=4"}), "workload.outstanding",
                  "allowed [1, 1]"},
        bad_input{with_cufile({"--io-size", "512"}), "workload.io_size",
                  "allowed multiples of 4096"},
        bad_input{{"--ios", "0"}, "workload.ios", "duration_s > 0"},
        bad_input{{"--set", "workload.threads"}, "--set", "KEY=VALUE"},
        // Checked against what the opened host backend's controllers report.
        bad_input{{"--depth", "8192"}, "queues.depth", "CAP.MQES + 1), allowed [2, 4096]"},
        bad_input{{"--io-size", "2097152", "--set", "storage.media.size_bytes=67108864"},
                  "workload.io_size",
                  "(MDTS), allowed multiples of 512 in [512, 1048576]"},
        bad_input{{"--ssds", "65"}, "storage.ssd_count", "allowed [1, 64]"},
        bad_input{{"--outstanding", "200"}, "workload.outstanding", "allowed [1, 127]"},
        // The zero-copy backend reads pinned host memory (checked before any GPU is looked for).
        bad_input{{"--backend", "zerocopy", "--set", "storage.media.kind=gpu"},
                  "storage.media.kind",
                  "allowed host"},
        bad_input{{"--backend", "zerocopy", "--set", "storage.media.kind=file", "--media-path",
                   "@TMP@/m.dat"},
                  "storage.media.kind",
                  "allowed host"},
        // Sweeps: every point is parsed and validated before anything runs.
        bad_input{{"--sweep", "workload.bogus=1,2"}, "workload.bogus", "unknown key, allowed"},
        bad_input{{"--sweep", "workload.threads=4,x"},
                  "workload.threads",
                  "expected an unsigned integer"},
        bad_input{{"--sweep", "workload.threads=4,0"}, "workload.threads", "[1, 33554432]"},
        bad_input{
            {"--sweep", "workload.io_size=4096,1000"}, "workload.io_size", "multiples of 512"},
        bad_input{{"--sweep", "workload.threads"}, "--sweep", "KEY=V1,V2,..."},
        bad_input{
            {"--sweep", "report.json=a.json,b.json"}, "--sweep", "report keys cannot be swept"},
        bad_input{{"--sweep", "workload.threads=1,2", "--sweep", "queues.depth=8,100000"},
                  "queues.depth",
                  "[2, 65536]"},
        // The gpu section (the queue mapping and engine size of the emulated backends).
        bad_input{{"--set", "gpu.queue_mapping=lane"}, "gpu.queue_mapping", "warp|thread"},
        bad_input{{"--set", "gpu.engine_placement=spread"},
                  "gpu.engine_placement",
                  "auto|scheduler|first-sms"},
        bad_input{
            {"--set", "gpu.engine_warps_per_block=17"}, "gpu.engine_warps_per_block", "[0, 16]"},
        bad_input{{"--set", "gpu.engine_blocks=2000"}, "gpu.engine_blocks", "[0, 1024]"},
        bad_input{{"--set", "gpu.engine_blocks=-1"}, "gpu.engine_blocks", "[0, 1024]"},
        bad_input{{"--set", "gpu.mapping=thread"}, "gpu.mapping", "unknown key, allowed"},
        // Key-only rules are the schema's, for every tool.
        bad_input{{"--set", "cache.line_size=131072"},
                  "cache.line_size",
                  "allowed powers of two in [512, 65536]"},
        bad_input{{"--set", "cache.line_size=1536"}, "cache.line_size", "not a power of two"},
        bad_input{with_uring({"--set", "uring.direct=true", "--io-size", "512"}),
                  "workload.io_size", "uring.direct = true (O_DIRECT): allowed multiples of 4096"},
        // A JSON value that names a key twice, given on the command line.
        bad_input{{"--set", R"(storage.model={"latency_us": 3, "latency_us": 4})"},
                  "storage.model.latency_us",
                  "duplicate key"},
        bad_input{{"--model", R"({"latency_us": 3, "latency_us": 4})"},
                  "storage.model.latency_us",
                  "duplicate key"},
        bad_input{
            {"--set", R"(queues={"depth": 64, "depth": 128})"}, "queues.depth", "duplicate key"}));

TEST(Cli, ConfigFileErrorsNameTheKey) {
  temp_dir dir;
  {
    std::ofstream(dir / "bad.json") << R"({"queues": {"depht": 4}})";
    std::ofstream(dir / "broken.json") << R"({"queues": )";
  }
  auto r = run_tool(bench, {"--config", dir / "bad.json", "--report", dir / "r.json"}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("queues.depht: unknown key, allowed pairs_per_ssd, depth"),
            std::string::npos)
      << r.err;
  r = run_tool(bench, {"--config", dir / "broken.json", "--report", dir / "r.json"}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--config:"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

TEST(Cli, ConfigFileWithADuplicateKeyIsRefused) {
  temp_dir dir;
  { std::ofstream(dir / "dup.json") << R"({"queues": {"depth": 64, "depth": 128}})"; }
  for (const char* flag : {"--print-config", "--verify"}) {
    SCOPED_TRACE(flag);
    const auto r =
        run_tool(bench, {"--config", dir / "dup.json", flag, "--report", dir / "r.json"}, dir);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("invalid configuration: queues.depth: duplicate key"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(dir / "dup.json"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  }
}

/// A uring run whose media file would be created by the backend: its absence shows that nothing
/// ran.
std::vector<std::string> uring_run(const temp_dir& dir, std::vector<std::string> more) {
  std::vector<std::string> a = {"--backend",    "uring",
                                "--set",        "storage.media.kind=file",
                                "--media-path", dir / "media.dat",
                                "--set",        "storage.media.size_bytes=1048576",
                                "--set",        "uring.gpu_copy=off",
                                "--ios",        "1000"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

TEST(Cli, UnwritableReportPathsAreFoundBeforeTheRun) {
  temp_dir dir;
  const std::string missing = dir / "no-such-dir/r.json";
  auto r = run_tool(bench, uring_run(dir, {"--report", missing, "--csv", dir / "r.csv"}), dir);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("invalid configuration: report.json: cannot write '" + missing + "'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "media.dat")) << "the run started";
  EXPECT_FALSE(std::filesystem::exists(dir / "r.csv"));
  EXPECT_TRUE(r.out.empty()) << r.out;

  // A directory as the CSV file; the existing JSON report is left as it was.
  { std::ofstream(dir / "r.json") << "earlier report\n"; }
  std::filesystem::create_directory(dir / "csv-dir");
  r = run_tool(bench, uring_run(dir, {"--report", dir / "r.json", "--csv", dir / "csv-dir"}), dir);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("invalid configuration: report.csv: cannot write '" + (dir / "csv-dir") +
                       "': Is a directory"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "media.dat")) << "the run started";
  EXPECT_EQ(test::read_file(dir / "r.json"), "earlier report\n");

  // The same run with writable paths runs and writes both.
  r = run_tool(bench, uring_run(dir, {"--report", dir / "r.json", "--csv", dir / "r.csv"}), dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "media.dat"));
  EXPECT_EQ(json::parse(test::read_file(dir / "r.json"))["jobs"][0]["read"]["total_ios"], 1000u);
  EXPECT_TRUE(std::filesystem::exists(dir / "r.csv"));
}

TEST(Cli, PrintConfigIsTheEffectiveConfigAndRoundTrips) {
  temp_dir dir;
  { std::ofstream(dir / "base.json") << R"({"workload": {"threads": 5, "io_size": 8192}})"; }
  // Precedence: struct defaults < --config < friendly flags < --set.
  auto r =
      run_tool(bench,
               {"--config", dir / "base.json", "--threads", "7", "--set", "queues.depth=64",
                "--set", "workload.threads=9", "--model", R"({"latency_us": 3})", "--print-config"},
               dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json printed = json::parse(r.out);
  run_config expected{};
  expected.workload.threads = 9;
  expected.workload.io_size = 8192;
  expected.queues.depth = 64;
  expected.storage.model = model_spec{"", ssd_model{3, 0, 0, 0, 0, 0}};
  EXPECT_EQ(parse_config(printed), expected);
  EXPECT_EQ(printed, to_json(expected));

  { std::ofstream(dir / "printed.json") << r.out; }
  auto again = run_tool(bench, {"--config", dir / "printed.json", "--print-config"}, dir);
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_EQ(json::parse(again.out), printed);
}

TEST(Cli, SetModelNullIsThePresetNull) {
  // --set storage.model=null names the preset "null" as --model null does (it was JSON null,
  // which the key refused).
  temp_dir dir;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--set", "storage.model=null"},
        std::vector<std::string>{"--model", "null"},
        std::vector<std::string>{"--model", "\"null\""}}) {
    std::vector<std::string> a = args;
    a.push_back("--print-config");
    auto r = run_tool(bench, a, dir);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["storage"]["model"], json("null")) << args[0];
  }
}

TEST(Cli, PrintConfigOfDefaultsIsTheStructDefaults) {
  temp_dir dir;
  auto r = run_tool(bench, {"--print-config"}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), to_json(run_config{}));
}

TEST(Cli, HelpShowsTheStructDefaults) {
  temp_dir dir;
  auto r = run_tool(bench, {"--help"}, dir);
  ASSERT_EQ(r.rc, 0);
  const json d = to_json(run_config{});
  const std::vector<std::pair<std::string, json>> flags = {
      {"--threads", d["workload"]["threads"]},
      {"--io-size", d["workload"]["io_size"]},
      {"--ssds", d["storage"]["ssd_count"]},
      {"--depth", d["queues"]["depth"]},
      {"--pairs", d["queues"]["pairs_per_ssd"]},
      {"--ios", d["workload"]["ios"]},
      {"--outstanding", d["workload"]["outstanding"]},
      {"--op", d["workload"]["op"]},
      {"--pattern", d["workload"]["pattern"]},
      {"--backend", d["storage"]["backend"]},
      {"--model", d["storage"]["model"]},
      {"--duration", d["workload"]["duration_s"]},
  };
  for (const auto& [flag, value] : flags) {
    std::smatch m;
    const std::regex re(flag + R"( [A-Z]+=(\S+))");
    ASSERT_TRUE(std::regex_search(r.out, m, re)) << flag << "\n" << r.out;
    const std::string shown = m[1];
    if (value.is_string()) {
      EXPECT_EQ(shown, value.get<std::string>()) << flag;
    } else {
      EXPECT_EQ(json::parse(shown), value) << flag;
    }
  }
  // The footer lists every key with the struct default.
  for (const auto& e : config_schema()) {
    EXPECT_NE(r.out.find("  " + e.key + " = " + e.default_value + "  ("), std::string::npos)
        << e.key;
  }
}

TEST(Cli, ShippedConfigsAreValid) {
  temp_dir dir;
  int n = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(source_dir + "/configs")) {
    if (f.path().extension() != ".json") continue;
    // Run configs only: not the timing models, the sweep specs and count baselines (their configs
    // are checked by tests/scripts through scripts/sweep --check), nor the paper's numbers.
    const auto folder = f.path().parent_path().filename();
    if (folder == "models" || folder == "sweeps" || folder == "perf-baselines") continue;
    if (f.path().filename() == "paper-numbers.json") continue;
    ++n;
    auto r = run_tool(bench, {"--config", f.path().string(), "--print-config"}, dir);
    EXPECT_EQ(r.rc, 0) << f.path() << ": " << r.err;
  }
  EXPECT_GE(n, 5);
}

TEST(Cli, DocsConfigMdHasTheSchemaTable) {
  temp_dir dir;
  auto r = run_tool(bench, {"--print-schema"}, dir);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, schema_markdown());
  const std::string doc = test::read_file(source_dir + "/docs/config.md");
  EXPECT_NE(doc.find(r.out), std::string::npos)
      << "docs/config.md is out of date: paste `nvm-block-bench --print-schema` into it";
}

}  // namespace
}  // namespace bam

namespace bam {
namespace {

TEST(Cli, UringRunWritesValidReports) {
  temp_dir dir;
  const std::string media = dir / "media.dat";
  auto r = run_tool(bench,
                    {"--backend",
                     "uring",
                     "--set",
                     "storage.media.kind=file",
                     "--media-path",
                     media,
                     "--set",
                     "storage.media.size_bytes=4194304",
                     "--ios",
                     "20000",
                     "--threads",
                     "2",
                     "--outstanding",
                     "8",
                     "--verify",
                     "--set",
                     "uring.gpu_copy=off",
                     "--report",
                     dir / "r.json",
                     "--csv",
                     dir / "r.csv"},
                    dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("total: 20000 IOs"), std::string::npos) << r.out;
  const json doc = json::parse(test::read_file(dir / "r.json"));
  EXPECT_EQ(doc["jobs"][0]["read"]["total_ios"], 20000u);
  EXPECT_EQ(doc["jobs"][0]["read"]["clat_ns"]["N"], 20000u);
  EXPECT_EQ(doc["jobs"][0]["write"]["total_ios"], 0u);
  EXPECT_EQ(doc["bamkit"]["stats"]["verify_errors"], 0u);
  EXPECT_EQ(doc["bamkit"]["stats"]["verified_ios"], 20000u);
  EXPECT_EQ(doc["bamkit"]["config"]["storage"]["backend"], "uring");
  const std::string csv = test::read_file(dir / "r.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2);

  // fio's own tool reads it.
  const std::string script = "/usr/bin/fio_jsonplus_clat2csv";
  ASSERT_TRUE(std::filesystem::exists(script)) << "install Debian's fio (scripts/setup)";
  const std::string cmd = script + " " + dir / "r.json" + " " + dir / "lat.csv";
  ASSERT_EQ(std::system((cmd + " >/dev/null").c_str()), 0);
  EXPECT_EQ(std::system((cmd + " --validate >/dev/null").c_str()), 0);

  // A corrupted media block is caught by --verify: exit 3, the report says so.
  {
    std::fstream f(media, std::ios::in | std::ios::out | std::ios::binary);
    for (std::uint64_t off = 0; off < 4194304; off += 4096) {
      f.seekp(static_cast<std::streamoff>(off + 100));
      f.put('\x5a');
    }
  }
  r = run_tool(bench,
               {"--backend", "uring", "--set", "storage.media.kind=file", "--media-path", media,
                "--set", "storage.media.size_bytes=4194304", "--ios", "1000", "--verify", "--set",
                "uring.gpu_copy=off", "--report", dir / "bad.json"},
               dir);
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.err.find("verify mismatches"), std::string::npos) << r.err;
  const json bad = json::parse(test::read_file(dir / "bad.json"));
  EXPECT_GT(bad["bamkit"]["stats"]["verify_errors"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(bad["bamkit"]["io_errors"]["verify_mismatches"],
            bad["bamkit"]["stats"]["verify_errors"]);
  EXPECT_EQ(bad["jobs"][0]["error"], EILSEQ);
}

}  // namespace
}  // namespace bam

namespace bam {
namespace {

TEST(Cli, HostRunWithVerify) {
  temp_dir dir;
  auto r =
      run_tool(bench, {"--backend",    "host",  "--ssds",     "2",
                       "--pairs",      "2",     "--threads",  "2",
                       "--op",         "mixed", "--set",      "workload.read_ratio=0.6",
                       "--io-size",    "16384", "--set",      "storage.media.size_bytes=4194304",
                       "--ios",        "20000", "--verify",   "--report",
                       dir / "h.json", "--csv", dir / "h.csv"},
               dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json doc = json::parse(test::read_file(dir / "h.json"));
  const json& job = doc["jobs"][0];
  const std::uint64_t reads = job["read"]["total_ios"];
  const std::uint64_t writes = job["write"]["total_ios"];
  EXPECT_EQ(reads + writes, 20000u);
  EXPECT_GT(reads, 9000u);  // read_ratio 0.6 of 20000: far from both ends
  EXPECT_GT(writes, 5000u);
  EXPECT_EQ(job["read"]["io_bytes"], reads * 16384);
  EXPECT_EQ(job["read"]["clat_ns"]["N"], reads);
  const json& stats = doc["bamkit"]["stats"];
  EXPECT_EQ(stats["verify_errors"], 0u);
  EXPECT_EQ(stats["verified_ios"], reads);
  EXPECT_EQ(stats["errors"], 0u);
  ASSERT_EQ(stats["per_ssd_ios"].size(), 2u);
  EXPECT_EQ(
      stats["per_ssd_ios"][0].get<std::uint64_t>() + stats["per_ssd_ios"][1].get<std::uint64_t>(),
      20000u);
  ASSERT_EQ(stats["queues"].size(), 4u);  // 2 SSDs x 2 pairs
  std::uint64_t commands = 0;
  for (const auto& q : stats["queues"])
    commands += q["commands"].get<std::uint64_t>();
  EXPECT_EQ(commands, 20000u);
  EXPECT_GT(stats["doorbell_writes_per_command"].get<double>(), 0.0);
  EXPECT_LE(stats["doorbell_writes_per_command"].get<double>(), 2.0);
  // Two threads with workload.outstanding commands each (4 by default): Little's law gives at
  // most that many in flight.
  const double in_flight = doc["bamkit"]["in_flight_mean"];
  const std::uint32_t outstanding = doc["bamkit"]["config"]["workload"]["outstanding"];
  EXPECT_GT(in_flight, 0.0);
  EXPECT_LE(in_flight, 2.0 * outstanding);
  EXPECT_NE(r.out.find("in flight on the mean (Little's law)"), std::string::npos) << r.out;
  const std::string cmd =
      "/usr/bin/fio_jsonplus_clat2csv " + (dir / "h.json") + " " + (dir / "l.csv");
  ASSERT_EQ(std::system((cmd + " >/dev/null").c_str()), 0);
  EXPECT_EQ(std::system((cmd + " --validate >/dev/null").c_str()), 0);
}

TEST(Cli, UnavailableBackendIsAConfigError) {
  temp_dir dir;
  auto r = run_tool(bench, {"--backend", "emulated", "--report", dir / "r.json"}, dir);
  if (r.err.find("is not available") == std::string::npos) {
    GTEST_SKIP() << "this build has backend emulated";
  }
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("storage.backend: \"emulated\" is not available"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

// Without cufile.h the cufile backend is a known name that this build refuses, saying why.
TEST(Cli, CufileWithoutGdsIsAConfigError) {
  if (BAM_BENCH_HAS_CUFILE) GTEST_SKIP() << "this build has backend cufile";
  temp_dir dir;
  std::vector<std::string> args =
      with_cufile({"--op", "write", "--report", dir / "r.json", "--csv", dir / "r.csv"});
  for (auto& a : args) {
    if (a == "@TMP@/media.dat") a = dir / "media.dat";
  }
  const auto r = run_tool(bench, args, dir);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("storage.backend: \"cufile\" is not available in this build: built "
                       "without cufile.h; install GDS and reconfigure with BAM_WITH_CUFILE=ON"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir / "media.dat"));
  // --print-config still works: the name is part of the schema in every build.
  const auto p =
      run_tool(bench,
               {"--backend", "cufile", "--outstanding", "1", "--set", "storage.media.kind=file",
                "--media-path", dir / "m.dat", "--print-config"},
               dir);
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_EQ(json::parse(p.out)["storage"]["backend"], "cufile");
}

TEST(Cli, ModelFlagTakesPresetNamesIncludingNull) {
  temp_dir dir;
  for (const char* name : {"null", "ideal", "optane-p5800x"}) {
    const auto r = run_tool(bench, {"--model", name, "--print-config"}, dir);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["storage"]["model"], name);
  }
  const auto r = run_tool(bench, {"--model", R"({"latency_us": 3})", "--print-config"}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["storage"]["model"]["latency_us"], 3.0);
}

TEST(Cli, GpuBackendsWithoutAGpuAreConfigErrors) {
  for (const char* backend : {"emulated", "zerocopy"}) {
    SCOPED_TRACE(backend);
    temp_dir dir;
    auto r = run_tool(bench,
                      {"--backend", backend, "--outstanding", "1", "--ios", "1000", "--report",
                       dir / "r.json", "--csv", dir / "r.csv"},
                      dir);
    const bool no_cuda = r.err.find("is not available in this build") != std::string::npos;
    const bool no_gpu = r.err.find("needs a CUDA GPU and none is usable") != std::string::npos;
    if (!no_cuda && !no_gpu) GTEST_SKIP() << "this machine runs the GPU backends";
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("storage.backend:"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
    EXPECT_FALSE(std::filesystem::exists(dir / "r.csv"));
  }
}

TEST(Cli, SweepAndRepeatGiveAJobAndARowPerPoint) {
  temp_dir dir;
  auto r =
      run_tool(bench,
               {"--backend", "host", "--ios", "3000", "--set", "storage.media.size_bytes=4194304",
                "--sweep", "workload.threads=1,2", "--sweep", "workload.io_size=512,8192",
                "--repeat", "3", "--verify", "--report", dir / "s.json", "--csv", dir / "s.csv"},
               dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json doc = json::parse(test::read_file(dir / "s.json"));
  ASSERT_EQ(doc["jobs"].size(), 4u);
  EXPECT_EQ(doc["bamkit"]["jobs"], 4u);
  EXPECT_NE(doc["bamkit"]["command"].get<std::string>().find("--sweep workload.threads=1,2"),
            std::string::npos);
  const std::uint32_t threads[] = {1, 1, 2, 2};  // the first --sweep is the outer loop
  const std::uint64_t sizes[] = {512, 8192, 512, 8192};
  for (std::size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    const json& job = doc["jobs"][i];
    EXPECT_EQ(job["jobname"], fmt::format("nvm-block-bench.{}", i));
    const run_config c = parse_config(job["bamkit"]["config"]);
    EXPECT_EQ(c.workload.threads, threads[i]);
    EXPECT_EQ(c.workload.io_size, sizes[i]);
    EXPECT_EQ(job["read"]["total_ios"], 3000u);
    EXPECT_EQ(job["read"]["io_bytes"], 3000u * sizes[i]);
    EXPECT_EQ(job["read"]["clat_ns"]["N"], 3000u);
    EXPECT_EQ(job["bamkit"]["stats"]["verify_errors"], 0u);
    const json& rep = job["bamkit"]["repeat"];
    ASSERT_EQ(rep["iops"].size(), 3u);
    const double med = job["read"]["iops"].get<double>();
    EXPECT_LE(rep["iops_min"].get<double>(), med);
    EXPECT_GE(rep["iops_max"].get<double>(), med);
    int equal = 0;  // the job is one of the runs: the median one
    for (const auto& v : rep["iops"])
      equal += v.get<double>() == rep["iops_median"].get<double>();
    EXPECT_GE(equal, 1);
    // Each run's latency percentiles, in run order; the job's own (reads only here) are the
    // median run's, so one run's entry equals them.
    for (const auto& [key, fio_key] : {std::pair{"p50", "50.000000"}, {"p99.99", "99.990000"}}) {
      const json& runs = rep["lat_us"][key];
      ASSERT_EQ(runs.size(), 3u) << key;
      const double own = job["read"]["clat_ns"]["percentile"][fio_key].get<double>() / 1e3;
      int same = 0;
      for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_GT(runs[k].get<double>(), 0.0) << key;
        same += runs[k].get<double>() == own;
      }
      EXPECT_GE(same, 1) << key << ": " << runs.dump() << " against " << own;
    }
  }
  const std::string csv = test::read_file(dir / "s.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);  // header + one row per point
  const std::string cmd =
      "/usr/bin/fio_jsonplus_clat2csv " + (dir / "s.json") + " " + (dir / "l.csv");
  ASSERT_EQ(std::system((cmd + " >/dev/null").c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "l_job3.csv"));
  EXPECT_EQ(std::system((cmd + " --validate >/dev/null").c_str()), 0);
}

TEST(Cli, NvmeBackendRejectsAMissingDeviceAsAConfigError) {
  temp_dir dir;
  const std::string missing = dir / "bamkit-nvme-missing";
  auto r = run_tool(bench,
                    {"--backend", "nvme", "--set", "storage.device_paths=[\"" + missing + "\"]",
                     "--report", dir / "r.json"},
                    dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(
      r.err.find("invalid configuration: storage.device_paths: \"" + missing + "\" does not exist"),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

TEST(Cli, NvmeBackendReportsADeviceItCannotOpen) {
  temp_dir dir;
  // A character device that is not a bamkit controller: valid config, the open fails.
  auto r = run_tool(bench,
                    {"--backend", "nvme", "--set", "storage.device_paths=[\"/dev/null\"]",
                     "--report", dir / "r.json"},
                    dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("cannot open backend: /dev/null: BAMKIT_IOC_GET_INFO"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

}  // namespace
}  // namespace bam

namespace bam {
namespace {

TEST(Cli, GpuSectionKeysAreTheConfigsOwn) {
  temp_dir dir;
  auto r = run_tool(
      bench,
      {"--set", "gpu.queue_mapping=thread", "--set", "gpu.engine_blocks=4", "--set",
       "gpu.engine_warps_per_block=8", "--set", "gpu.engine_handover=false", "--set",
       "gpu.engine_placement=first-sms", "--set", "gpu.queue_access=shared", "--print-config"},
      dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json printed = json::parse(r.out);
  EXPECT_EQ(printed["gpu"], (json{{"queue_mapping", "thread"},
                                  {"engine_blocks", 4},
                                  {"engine_warps_per_block", 8},
                                  {"engine_handover", false},
                                  {"engine_placement", "first-sms"},
                                  {"queue_access", "shared"}}));
  run_config expected{};
  expected.gpu.queue_mapping = gpu_queue_mapping::thread;
  expected.gpu.engine_blocks = 4;
  expected.gpu.engine_warps_per_block = 8;
  expected.gpu.engine_handover = false;
  expected.gpu.engine_placement = gpu_engine_placement::first_sms;
  expected.gpu.queue_access = gpu_queue_access::shared;
  EXPECT_EQ(parse_config(printed), expected);
  // The defaults: warp mapping, an automatically sized engine that hands queues over, placed
  // automatically (drives_config_of), and a thread alone on its queue pair as its only user.
  r = run_tool(bench, {"--print-config"}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["gpu"], (json{{"queue_mapping", "warp"},
                                             {"engine_blocks", 0},
                                             {"engine_warps_per_block", 0},
                                             {"engine_handover", true},
                                             {"engine_placement", "auto"},
                                             {"queue_access", "auto"}}));
}

/// bamkit.ceilings of a real run: the keys every report carries (schema version 2), from `args`.
json ceilings_of_run(std::vector<std::string> args, temp_dir& dir) {
  for (auto& a : args) {
    const auto pos = a.find("@TMP@");
    if (pos != std::string::npos) a.replace(pos, 5, dir.path().string());
  }
  args.insert(args.end(), {"--ios", "2000", "--measure-ceilings", "--report", dir / "c.json"});
  const auto r = run_tool(bench, args, dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  const json doc = json::parse(test::read_file(dir / "c.json"));
  EXPECT_EQ(doc["bamkit"]["schema_version"], 2);
  const json& c = doc["bamkit"]["ceilings"];
  for (const char* k : {"h2d_memcpy_gbps", "direct_read_gbps", "direct_reads_per_s", "io_size",
                        "over_bytes", "method", "memory", "median_of"})
    EXPECT_TRUE(c.contains(k)) << k << " missing from " << c;
  EXPECT_GT(c["direct_reads_per_s"].get<double>(), 0.0) << c;
  return c;
}

TEST(Cli, HostAndUringReportsCarryTheSameCeilingKeys) {
  temp_dir dir;
  const json host = ceilings_of_run({"--backend", "host", "--io-size", "8192", "--threads", "2",
                                     "--set", "storage.media.size_bytes=4194304"},
                                    dir);
  EXPECT_TRUE(host["h2d_memcpy_gbps"].is_null()) << host;  // CPU threads: no GPU copy
  EXPECT_EQ(host["io_size"], 8192u);
  EXPECT_EQ(host["over_bytes"], 4194304u);
  EXPECT_NE(host["method"].get<std::string>().find("CPU: 2 threads"), std::string::npos) << host;
  const json uring =
      ceilings_of_run(with_uring({"--io-size", "4096", "--set", "uring.gpu_copy=off"}), dir);
  EXPECT_EQ(uring["io_size"], 4096u);
  EXPECT_EQ(uring["over_bytes"], 1048576u);
  EXPECT_NE(uring["memory"].get<std::string>().find("page cache"), std::string::npos) << uring;
}

}  // namespace
}  // namespace bam
