// Report shapes: the fio json+ document (required keys with the right types, percentiles and
// bins consistent with the histogram, bamkit.schema_version, the one shape of bamkit.ceilings),
// the CSV row, and fio's own fio_jsonplus_clat2csv accepting a produced report.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bam/config/config_io.hpp"
#include "bam/harness/ceilings.hpp"
#include "bam/report/fio_report.hpp"
#include "bam/report/percentiles.hpp"

namespace bam {
namespace {

using nlohmann::json;

struct fixture {
  run_config cfg{};
  run_result result{};
  machine_info machine = collect_machine_info();
  fixture() {
    cfg.workload.op = io_op::mixed;
    result.runtime_ns = 2'000'000'000;  // 2 s
    for (std::uint64_t i = 1; i <= 1000; ++i)
      result.read.lat.add(i * 1000);  // 1..1000 us
    result.read.ios = 1000;
    result.read.io_bytes = 1000 * 4096;
    result.read.runtime_ns = result.runtime_ns;
    for (std::uint64_t i = 0; i < 10; ++i)
      result.write.lat.add(50'000 + i);
    result.write.ios = 10;
    result.write.io_bytes = 10 * 4096;
    result.write.runtime_ns = result.runtime_ns;
    result.per_ssd_ios = {1010};
    result.tool_stats["queues"] = {{"doorbell_writes_per_command", 0.5}};
  }
  report_inputs inputs() const {
    report_inputs in;
    in.tool = "test-tool";
    in.config = &cfg;
    in.result = &result;
    in.machine = &machine;
    return in;
  }
};

void expect_latency_object(const json& o, bool with_bins) {
  for (const char* k : {"min", "max", "N"}) {
    ASSERT_TRUE(o.contains(k)) << k;
    EXPECT_TRUE(o[k].is_number_unsigned()) << k;
  }
  for (const char* k : {"mean", "stddev"}) {
    ASSERT_TRUE(o.contains(k)) << k;
    EXPECT_TRUE(o[k].is_number()) << k;
  }
  if (!with_bins) return;
  ASSERT_TRUE(o["percentile"].is_object());
  for (double p : default_percentiles()) {
    EXPECT_TRUE(o["percentile"][percentile_key(p)].is_number_unsigned()) << p;
  }
  ASSERT_TRUE(o["bins"].is_object());
  std::uint64_t n = 0;
  for (const auto& [k, v] : o["bins"].items()) {
    EXPECT_EQ(std::to_string(std::stoull(k)), k);  // plain decimal keys
    n += v.get<std::uint64_t>();
  }
  EXPECT_EQ(n, o["N"].get<std::uint64_t>());
}

TEST(FioReport, RequiredKeysAndTypes) {
  fixture f;
  const json doc = fio_jsonplus(f.inputs());
  EXPECT_EQ(doc["fio version"].get<std::string>().rfind("bamkit-", 0), 0u);
  EXPECT_TRUE(doc["timestamp"].is_number_unsigned());
  ASSERT_TRUE(doc["jobs"].is_array());
  ASSERT_EQ(doc["jobs"].size(), 1u);
  const json& job = doc["jobs"][0];
  EXPECT_EQ(job["jobname"], "test-tool");
  EXPECT_EQ(job["groupid"], 0);
  EXPECT_EQ(job["error"], 0);
  ASSERT_TRUE(job["job options"].is_object());
  EXPECT_EQ(job["job options"]["rw"], "randrw");
  EXPECT_EQ(job["job options"]["bs"], "4096");
  for (const char* dir : {"read", "write", "trim"}) {
    SCOPED_TRACE(dir);
    const json& d = job[dir];
    for (const char* k : {"io_bytes", "io_kbytes", "bw_bytes", "bw", "runtime", "total_ios",
                          "short_ios", "drop_ios"}) {
      ASSERT_TRUE(d.contains(k)) << k;
      EXPECT_TRUE(d[k].is_number_unsigned()) << k;
    }
    EXPECT_TRUE(d["iops"].is_number());
    expect_latency_object(d["slat_ns"], false);
    const bool has = std::string(dir) != "trim";
    expect_latency_object(d["clat_ns"], has);
    expect_latency_object(d["lat_ns"], has);
  }
  const json& rd = job["read"];
  EXPECT_EQ(rd["io_bytes"], 4096000u);
  EXPECT_EQ(rd["io_kbytes"], 4000u);
  EXPECT_EQ(rd["bw_bytes"], 2048000u);  // 4096000 B over 2 s
  EXPECT_EQ(rd["bw"], 2000u);           // KiB/s
  EXPECT_DOUBLE_EQ(rd["iops"].get<double>(), 500.0);
  EXPECT_EQ(rd["runtime"], 2000u);  // ms
  EXPECT_EQ(rd["total_ios"], 1000u);
  EXPECT_EQ(rd["clat_ns"]["min"], 1000u);
  EXPECT_EQ(rd["clat_ns"]["max"], 1000000u);
  EXPECT_DOUBLE_EQ(rd["clat_ns"]["mean"].get<double>(), 500500.0);
  EXPECT_EQ(rd["clat_ns"]["N"], 1000u);
  EXPECT_EQ(rd["clat_ns"]["percentile"]["50.000000"],
            latency_histogram::bucket_value(latency_histogram::bucket_of(500'000)));
  EXPECT_EQ(job["trim"]["clat_ns"]["N"], 0u);
  EXPECT_FALSE(job["trim"]["clat_ns"].contains("bins"));

  const json& b = doc["bamkit"];
  EXPECT_EQ(b["schema_version"], 2);
  EXPECT_EQ(report_schema_version, 2);
  EXPECT_EQ(parse_config(b["config"]), f.cfg);
  for (const char* k :
       {"cpu", "cores", "gpu", "gpu_driver", "driver", "cuda", "git_commit", "hostname", "date"}) {
    EXPECT_TRUE(b["machine"].contains(k)) << k;
  }
  EXPECT_EQ(b["stats"]["per_ssd_ios"], json::array({1010}));
  EXPECT_EQ(b["stats"]["queues"]["doorbell_writes_per_command"], 0.5);
  EXPECT_FALSE(b.contains("ceilings"));
  // Little's law: every I/O's latency summed over the run's time (1..1000 us of reads, 50,000
  // .. 50,009 ns of writes, over 2 s).
  EXPECT_NEAR(b["in_flight_mean"].get<double>(), (500'500'000.0 + 500'045.0) / 2e9, 1e-12);
}

TEST(FioReport, InFlightMeanIsZeroWithoutLatencies) {
  fixture f;
  f.result.read.lat = latency_histogram{};
  f.result.write.lat = latency_histogram{};
  EXPECT_EQ(fio_jsonplus(f.inputs())["bamkit"]["in_flight_mean"].get<double>(), 0.0);
  fixture timeless;  // latencies, but no time
  timeless.result.runtime_ns = 0;
  EXPECT_EQ(timeless.result.in_flight_mean(), 0.0);
}

TEST(FioReport, CeilingsHaveOneShapeWhoeverMeasuredThem) {
  // CPU threads over host memory: no GPU copy, so h2d_memcpy_gbps is null (but present).
  std::vector<std::uint8_t> mem(std::size_t{1} << 20, 7);
  const machine_ceilings cpu =
      measure_memory_random_read(mem.data(), mem.size(), 4096, 2, 0.05, "a test buffer");
  EXPECT_GT(cpu.direct_reads_per_s, 0.0);
  EXPECT_DOUBLE_EQ(cpu.direct_read_gbps, cpu.direct_reads_per_s * 4096 / 1e9);
  fixture f;
  report_inputs in = f.inputs();
  in.ceilings = to_json(cpu);
  const json c = fio_jsonplus(in)["bamkit"]["ceilings"];
  std::vector<std::string> keys;
  for (const auto& [k, v] : c.items())
    keys.push_back(k);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"direct_read_gbps", "direct_reads_per_s", "h2d_memcpy_gbps",
                                      "io_size", "median_of", "memory", "method", "over_bytes"}));
  EXPECT_TRUE(c["h2d_memcpy_gbps"].is_null());
  EXPECT_EQ(c["io_size"], 4096u);
  EXPECT_EQ(c["over_bytes"], std::uint64_t{1} << 20);
  EXPECT_EQ(c["memory"], "a test buffer");
  EXPECT_EQ(c["median_of"], 1);
  EXPECT_NE(c["method"].get<std::string>().find("CPU: 2 threads"), std::string::npos) << c;
  EXPECT_DOUBLE_EQ(c["direct_reads_per_s"].get<double>(), cpu.direct_reads_per_s);
  // A GPU measurement fills the copy bandwidth: the same keys, a number there.
  machine_ceilings gpu = cpu;
  gpu.h2d_memcpy_gbps = 55.4;
  EXPECT_EQ(to_json(gpu)["h2d_memcpy_gbps"], 55.4);
  EXPECT_EQ(to_json(gpu).size(), c.size());
}

TEST(FioReport, CsvRowMatchesHeader) {
  fixture f;
  const std::string header = csv_header();
  const std::string row = csv_row(f.inputs());
  auto count = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  EXPECT_EQ(count(header), count(row));
  EXPECT_EQ(row.rfind("test-tool,host,ideal,1,1,256,2,4,4096,mixed,random,1010,2.000000,505.0,", 0),
            0u)
      << row;
}

// Failed I/Os: fio's job error is an errno (EIO for errors and timeouts, EILSEQ for verify
// mismatches alone), bamkit.io_errors counts them by status, the CSV row ends with timeouts,
// verify mismatches and the statuses, and the summary says so.
TEST(FioReport, FailedIosShowInEveryReport) {
  fixture f;
  EXPECT_EQ(fio_jsonplus(f.inputs())["jobs"][0]["error"], 0);
  EXPECT_FALSE(fio_jsonplus(f.inputs())["bamkit"]["io_errors"]["io_failed"].get<bool>());
  f.result.errors = 7;
  f.result.timeouts = 2;
  f.result.errors_by_status = {{"Unrecovered Read Error", 5}, {"Host Timeout (bamkit)", 2}};
  const json doc = fio_jsonplus(f.inputs());
  EXPECT_EQ(doc["jobs"][0]["error"], EIO);
  const json& e = doc["bamkit"]["io_errors"];
  EXPECT_EQ(e["errors"], 7u);
  EXPECT_EQ(e["timeouts"], 2u);
  EXPECT_EQ(e["verify_mismatches"], 0u);
  EXPECT_EQ(e["by_status"]["Unrecovered Read Error"], 5u);
  EXPECT_EQ(e["by_status"]["Host Timeout (bamkit)"], 2u);
  EXPECT_TRUE(e["io_failed"].get<bool>());
  const std::string row = csv_row(f.inputs());
  auto count = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  EXPECT_EQ(count(csv_header()), count(row));
  EXPECT_EQ(row.substr(row.rfind(",2,0,")),
            ",2,0,Host Timeout (bamkit)=2;Unrecovered Read Error=5");
  std::ostringstream summary;
  print_summary(summary, f.inputs());
  EXPECT_NE(summary.str().find("I/O FAILED: 7 errors (2 timeouts): 2 Host Timeout (bamkit), 5 "
                               "Unrecovered Read Error, 0 verify mismatches"),
            std::string::npos)
      << summary.str();

  run_result only_verify = f.result;
  only_verify.errors = only_verify.timeouts = 0;
  only_verify.errors_by_status.clear();
  only_verify.verify_mismatches = 3;
  report_inputs in = f.inputs();
  in.result = &only_verify;
  EXPECT_EQ(fio_jsonplus(in)["jobs"][0]["error"], EILSEQ);
  EXPECT_EQ(fio_jsonplus(in)["bamkit"]["io_errors"]["verify_mismatches"], 3u);
  run_result failed = f.result;
  failed.error = "the backend went away";
  in.result = &failed;
  EXPECT_EQ(fio_jsonplus(in)["jobs"][0]["error"], 1);
}

// The summary's first line names the workload fields of the tool's own runs (nvm-block-bench's
// by default, a tool's own through report_inputs::workload), and a direction whose I/Os were not
// timed one by one (bfs, cc, taxi-query) shows no latency figures.
TEST(FioReport, SummaryShowsTheToolsOwnWorkloadAndOnlyMeasuredLatencies) {
  fixture f;
  std::ostringstream nbb;
  print_summary(nbb, f.inputs());
  const std::string first = nbb.str().substr(0, nbb.str().find('\n'));
  EXPECT_NE(first.find("outstanding=4 random mixed io_size=4096"), std::string::npos) << first;
  EXPECT_NE(nbb.str().find("latency us: mean 500.50"), std::string::npos) << nbb.str();
  // Little's law: 0.2505 I/Os in flight on the mean (RequiredKeysAndTypes).
  EXPECT_NE(nbb.str().find("errors 0; 0.3 in flight on the mean (Little's law)\n"),
            std::string::npos)
      << nbb.str();

  report_inputs in = f.inputs();
  in.workload = "access=bam";
  run_result untimed = f.result;
  untimed.read.lat = latency_histogram{};
  untimed.write = direction_result{};
  in.result = &untimed;
  std::ostringstream app;
  print_summary(app, in);
  const std::string line = app.str().substr(0, app.str().find('\n'));
  EXPECT_EQ(line.substr(line.find("threads=")), "threads=2 access=bam") << line;
  EXPECT_EQ(app.str().find("outstanding"), std::string::npos) << app.str();
  EXPECT_EQ(app.str().find("latency"), std::string::npos) << app.str();
  EXPECT_EQ(app.str().find("in flight"), std::string::npos) << app.str();
  EXPECT_NE(app.str().find("read : 1000 IOs in 2.000 s, 500 IOPS, 2.0 MB/s\n"), std::string::npos)
      << app.str();
  in.workload = "";
  std::ostringstream bare;
  print_summary(bare, in);
  EXPECT_NE(bare.str().find("threads=2\n"), std::string::npos) << bare.str();
}

// The host queues' recovery in episodes: how many queues failed, how each episode ended, and how
// long a recreation took; in the JSON and the summary line. Nothing when there was none.
TEST(FioReport, RecoveryIsReportedInEpisodes) {
  fixture f;
  std::ostringstream quiet;
  print_summary(quiet, f.inputs());
  EXPECT_EQ(quiet.str().find("queue recovery"), std::string::npos) << quiet.str();
  f.result.recovery.aborts_sent = 9;
  f.result.recovery.aborts_found = 6;
  f.result.recovery.abort_failures = 1;
  f.result.recovery.recoveries = 3;
  f.result.recovery.queue_recreations = 2;
  f.result.recovery.recovery_failures = 1;
  f.result.recovery.recovery_ns = 3'000'000;  // 1.5 ms per recreation
  const json doc = fio_jsonplus(f.inputs());
  const json& rec = doc["bamkit"]["io_errors"]["recovery"];
  EXPECT_EQ(rec["aborts_sent"], 9u);
  EXPECT_EQ(rec["aborts_found"], 6u);
  EXPECT_EQ(rec["abort_failures"], 1u);
  EXPECT_EQ(rec["recoveries"], 3u);
  EXPECT_EQ(rec["queue_recreations"], 2u);
  EXPECT_EQ(rec["recovery_failures"], 1u);
  EXPECT_DOUBLE_EQ(rec["recovery_ms"].get<double>(), 3.0);
  std::ostringstream summary;
  print_summary(summary, f.inputs());
  EXPECT_NE(summary.str().find("queue recovery: 9 Aborts sent (6 found the command, 1 "
                               "unanswered); 3 failed queues: 2 recreated (1.5 ms after they "
                               "failed, on average), 1 left failed"),
            std::string::npos)
      << summary.str();
  // Counted since a snapshot, episodes too.
  recovery_counts before;
  before.recoveries = 1;
  before.queue_recreations = 1;
  before.recovery_ns = 1'000'000;
  const recovery_counts d = f.result.recovery.since(before);
  EXPECT_EQ(d.recoveries, 2u);
  EXPECT_EQ(d.queue_recreations, 1u);
  EXPECT_EQ(d.recovery_ns, 2'000'000u);
}

TEST(FioReport, CsvAppendsRowsUnderOneHeader) {
  fixture f;
  const auto path = std::filesystem::temp_directory_path() / "bamkit-report-test.csv";
  std::filesystem::remove(path);
  append_csv(path.string(), f.inputs());
  append_csv(path.string(), f.inputs());
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  int headers = 0;
  while (std::getline(in, line)) {
    ++lines;
    headers += line == csv_header();
  }
  EXPECT_EQ(lines, 3);
  EXPECT_EQ(headers, 1);
  std::filesystem::remove(path);
}

int run(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(FioReport, FioJsonplusClat2csvValidates) {
  const std::string script = "/usr/bin/fio_jsonplus_clat2csv";
  ASSERT_TRUE(std::filesystem::exists(script)) << "install Debian's fio (scripts/setup)";
  fixture f;
  const auto dir = std::filesystem::temp_directory_path() / "bamkit-fio-validate";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string report = (dir / "report.json").string();
  write_json_file(report, fio_jsonplus(f.inputs()));
  const std::string stub = (dir / "lat.csv").string();
  ASSERT_EQ(run(script + " " + report + " " + stub + " > /dev/null"), 0);
  ASSERT_TRUE(std::filesystem::exists(dir / "lat_job0.csv"));
  EXPECT_EQ(run(script + " " + report + " " + stub + " --validate > " + (dir / "out").string()), 0);
  std::ifstream out(dir / "out");
  std::string line;
  std::getline(out, line);
  EXPECT_NE(line.find("validated"), std::string::npos) << line;
  std::filesystem::remove_all(dir);
}

TEST(FioReport, MultiJobReportHasAJobPerPointWithItsOwnBamkit) {
  fixture f;
  run_config second = f.cfg;
  second.workload.threads = 64;
  run_result r2 = f.result;
  r2.runtime_ns = 1'000'000'000;
  r2.read.runtime_ns = r2.write.runtime_ns = r2.runtime_ns;
  report_inputs a = f.inputs();
  report_inputs b = f.inputs();
  b.config = &second;
  b.result = &r2;
  b.repeats = 3;
  b.repeat_iops = {900.0, 1010.0, 2000.0};
  machine_ceilings measured;
  measured.h2d_memcpy_gbps = 50.0;
  b.ceilings = to_json(measured);
  const json doc = fio_jsonplus_multi({a, b});
  ASSERT_EQ(doc["jobs"].size(), 2u);
  EXPECT_EQ(doc["jobs"][0]["jobname"], "test-tool.0");
  EXPECT_EQ(doc["jobs"][1]["jobname"], "test-tool.1");
  EXPECT_EQ(doc["bamkit"]["jobs"], 2u);
  EXPECT_EQ(doc["bamkit"]["schema_version"], 2);
  EXPECT_EQ(doc["bamkit"]["tool"], "test-tool");
  EXPECT_TRUE(doc["bamkit"]["machine"].contains("git_commit"));
  EXPECT_EQ(parse_config(doc["bamkit"]["config"]), f.cfg);
  const json& j0 = doc["jobs"][0];
  const json& j1 = doc["jobs"][1];
  EXPECT_EQ(parse_config(j0["bamkit"]["config"]), f.cfg);
  EXPECT_EQ(parse_config(j1["bamkit"]["config"]), second);
  EXPECT_FALSE(j0["bamkit"].contains("machine"));  // once, at the top
  EXPECT_FALSE(j0["bamkit"].contains("repeat"));
  EXPECT_FALSE(j0["bamkit"].contains("ceilings"));
  EXPECT_FALSE(j1["bamkit"].contains("schema_version"));  // once, at the top
  EXPECT_EQ(j1["bamkit"]["ceilings"]["h2d_memcpy_gbps"], 50.0);
  EXPECT_EQ(j1["bamkit"]["repeat"]["runs"], 3u);
  EXPECT_EQ(j1["bamkit"]["repeat"]["iops_min"], 900.0);
  EXPECT_EQ(j1["bamkit"]["repeat"]["iops_max"], 2000.0);
  EXPECT_DOUBLE_EQ(j1["bamkit"]["repeat"]["iops_median"].get<double>(), 1010.0);
  EXPECT_FALSE(j1["bamkit"]["repeat"].contains("lat_us"));  // no run's latency recorded
  EXPECT_EQ(j1["job options"]["numjobs"], "64");
  EXPECT_DOUBLE_EQ(j1["read"]["iops"].get<double>(), 1000.0);  // 1000 reads in 1 s
  for (const json& j : doc["jobs"]) {
    expect_latency_object(j["read"]["clat_ns"], true);
    expect_latency_object(j["write"]["lat_ns"], true);
  }
  // The CSV row of a repeated point has repeats, iops_min, iops_max before the error columns.
  const std::string row = csv_row(b);
  EXPECT_NE(row.find(",3,900.0,2000.0,"), std::string::npos) << row;
  EXPECT_EQ(row.substr(row.size() - 20), ",3,900.0,2000.0,0,0,");
  const std::string single = csv_row(a);
  EXPECT_EQ(single.substr(single.size() - 19), ",1,505.0,505.0,0,0,");

  // fio's own tool reads every job.
  const std::string script = "/usr/bin/fio_jsonplus_clat2csv";
  ASSERT_TRUE(std::filesystem::exists(script)) << "install Debian's fio (scripts/setup)";
  const auto dir = std::filesystem::temp_directory_path() / "bamkit-fio-validate-multi";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string report = (dir / "report.json").string();
  write_json_file(report, doc);
  const std::string stub = (dir / "lat.csv").string();
  ASSERT_EQ(run(script + " " + report + " " + stub + " > /dev/null"), 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "lat_job0.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "lat_job1.csv"));
  EXPECT_EQ(run(script + " " + report + " " + stub + " --validate > /dev/null"), 0);
  std::filesystem::remove_all(dir);
}

TEST(FioReport, RepeatedRunsReportEachRunsLatencyPercentilesInRunOrder) {
  fixture f;
  report_inputs in = f.inputs();
  in.repeats = 3;
  in.repeat_iops = {900.0, 1010.0, 2000.0};
  // Run k's latencies are 1..100 us times 1, 10 and 2: its percentiles scale with it.
  const std::uint64_t scale[] = {1, 10, 2};
  for (const std::uint64_t k : scale) {
    latency_histogram h;
    for (std::uint64_t i = 1; i <= 100; ++i)
      h.add(i * 1000 * k);
    in.repeat_latency.push_back(h);
  }
  const json rep = fio_jsonplus(in)["bamkit"]["repeat"];
  ASSERT_TRUE(rep.contains("lat_us")) << rep.dump();
  for (const auto& [key, p] :
       {std::pair{"p50", 50.0}, {"p99", 99.0}, {"p99.9", 99.9}, {"p99.99", 99.99}}) {
    SCOPED_TRACE(key);
    const json& runs = rep["lat_us"][key];
    ASSERT_EQ(runs.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_DOUBLE_EQ(runs[k].get<double>(),
                       static_cast<double>(percentile(in.repeat_latency[k], p)) / 1e3);
    // In run order: the tenfold run is the second, its percentiles the largest.
    EXPECT_GT(runs[1].get<double>(), runs[2].get<double>());
    EXPECT_GT(runs[2].get<double>(), runs[0].get<double>());
  }
  EXPECT_NEAR(rep["lat_us"]["p50"][0].get<double>(), 50.0, 1.0);  // 50 us within a bucket
  EXPECT_TRUE(rep.contains("lat_method"));
  // Fewer histograms than runs (a tool that does not record them): no lat_us.
  in.repeat_latency.pop_back();
  EXPECT_FALSE(fio_jsonplus(in)["bamkit"]["repeat"].contains("lat_us"));
}

TEST(MachineInfo, TheNvidiaDriverVersionIsReadFromItsNvrmLine) {
  // The two forms of /proc/driver/nvidia/version (proprietary and open kernel modules).
  EXPECT_EQ(nvidia_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  "
                                  "Tue Oct 14 2025\nGCC version:  gcc version 12.2.0\n"),
            "580.159.04");
  EXPECT_EQ(nvidia_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                  "570.86.15  Release Build  (dvs-builder@U16)\n"),
            "570.86.15");
  // No NVRM line (no driver loaded, another file): "none", not the GCC version below it.
  EXPECT_EQ(nvidia_driver_version("GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"), "none");
  EXPECT_EQ(nvidia_driver_version(""), "none");
  EXPECT_EQ(nvidia_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n12.2.0\n"),
            "none");
  // The report carries it beside the CUDA driver API version.
  machine_info m;
  m.gpu_driver = "580.159.04";
  m.gpu.driver = "13.0";
  const auto j = to_json(m);
  EXPECT_EQ(j["gpu_driver"], "580.159.04");
  EXPECT_EQ(j["driver"], "13.0");
}

}  // namespace
}  // namespace bam
