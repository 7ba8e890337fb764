// bam-data and taxi-query through their binaries on the host backend: both implementations
// agree with the CPU reference (--verify, relative error <= 1e-12) and with each other bit for
// bit, on generated and imported tables (S empty, S = every row, NaN in unused columns, rejected
// rows, quoted fields, CRLF), give the same bits run after run, write the results file the
// issue specifies, and bad inputs are refused (exit 2) with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"

namespace {

namespace fs = std::filesystem;
using bam::test::read_file;
using bam::test::run_tool;
using bam::test::temp_dir;
using nlohmann::json;

const std::string data_bin = BAM_DATA_BIN;
const std::string query_bin = TAXI_QUERY_BIN;

/// Host runs on 2 SSDs of 16 MiB, a 1 MiB cache of 4 KiB lines, small row groups.
std::vector<std::string> query_args(const std::string& dir, const std::vector<std::string>& more) {
  std::vector<std::string> a = {"--data",    dir,
                                "--ssds",    "2",
                                "--threads", "3",
                                "--set",     "storage.media.size_bytes=16777216",
                                "--set",     "cache.capacity=1048576",
                                "--set",     "taxi.row_group_rows=12288",
                                "--set",     "report.formats=[]",
                                "--verify"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

struct query_run {
  int rc;
  std::string lines;
  json results;  // --results file
  json report;   // tool_stats.taxi of the report
};

query_run query(const std::string& table, temp_dir& d, const std::vector<std::string>& more) {
  const std::string res = d / "results.json", rep = d / "report.json";
  fs::remove(res);
  fs::remove(rep);
  auto args = query_args(table, more);
  args.insert(args.end(), {"--results", res, "--report", rep});
  const auto r = run_tool(query_bin, args, d);
  query_run out{r.rc, r.out, json(), json()};
  EXPECT_EQ(r.rc, 0) << r.err << r.out;
  if (fs::exists(res)) out.results = json::parse(read_file(res));
  if (fs::exists(rep)) out.report = json::parse(read_file(rep))["bamkit"]["stats"]["taxi"];
  return out;
}

/// Checks one run: the lines and the results file say the same, both implementations ran and
/// agree bit for bit, the reference check passed.
void check_consistent(const query_run& q, std::uint64_t expect_rows) {
  ASSERT_TRUE(q.report.is_object()) << q.lines;
  EXPECT_EQ(q.report["verify"]["mismatches"], 0u);
  EXPECT_LE(q.report["verify"]["max_relative_error"].get<double>(), 1e-12);
  ASSERT_EQ(q.report["impls"].size(), 2u);
  EXPECT_EQ(q.report["impls"][0]["impl"], "bam");
  EXPECT_TRUE(q.report["impls_bit_identical"].get<bool>());
  std::istringstream in(q.lines);
  std::string name, value;
  std::uint64_t rows = 0;
  int n = 0;
  while (in >> name >> rows >> value) {
    ++n;
    EXPECT_EQ(rows, expect_rows) << name;
    EXPECT_EQ(q.results[name]["rows"], rows);
    if (value == "null") {
      EXPECT_TRUE(q.results[name]["value"].is_null());
    } else {
      EXPECT_EQ(q.results[name]["value"].get<double>(), std::stod(value)) << name;  // 17 digits
      EXPECT_EQ(q.report["impls"][1]["results"][name]["value"].get<double>(), std::stod(value));
    }
  }
  EXPECT_EQ(n, static_cast<int>(q.results.size()));
}

std::string gen(temp_dir& d, const std::string& name, const std::string& rows,
                const std::string& threads) {
  const auto r = run_tool(
      data_bin,
      {"taxi-gen", "--rows", rows, "--seed", "9", "--out", d / name, "--threads", threads}, d);
  EXPECT_EQ(r.rc, 0) << r.err;
  return d / name;
}

TEST(TaxiTools, GeneratedTableBothImplsAgreeWithTheReferenceAtD20AndD30) {
  temp_dir d;
  const std::string t = gen(d, "t", "100003", "2");
  for (const char* dist : {"20", "30"}) {
    const query_run a = query(t, d, {"--min-distance", dist});
    const query_run b = query(
        t, d,
        {"--min-distance", dist, "--set", "workload.threads=1", "--set", "storage.ssd_count=3"});
    const std::uint64_t s = a.results["q0"]["rows"].get<std::uint64_t>();
    EXPECT_GT(s, 0u) << dist;
    check_consistent(a, s);
    EXPECT_EQ(a.lines, b.lines) << "not bit-identical from run to run";
    // bam reads the distance column whole and touches the others only where S is.
    const json& bam = a.report["impls"][0];
    const json& tiled = a.report["impls"][1];
    EXPECT_EQ(bam["bytes_needed"], 100003u * 8 + s * 8 * 5);
    EXPECT_EQ(tiled["bytes_moved"].get<std::uint64_t>() % 512, 0u);
    EXPECT_GE(tiled["bytes_moved"].get<std::uint64_t>(), 100003u * 8 * 6);
    EXPECT_LT(bam["bytes_moved"].get<std::uint64_t>(), tiled["bytes_moved"].get<std::uint64_t>());
    EXPECT_EQ(bam["cache"]["misses"], bam["cache"]["reads"]);
  }
  // The page-cache variant and one query alone.
  const query_run p = query(
      t, d, {"--min-distance", "20", "--query", "q5,q0", "--set", "taxi.tiled_source=page_cache"});
  check_consistent(p, p.results["q0"]["rows"].get<std::uint64_t>());
  EXPECT_EQ(p.report["impls"][1]["impl"], "tiled (page cache)");
  EXPECT_EQ(p.results.size(), 2u);
  // S empty: rows 0, value null.
  const query_run e = query(t, d, {"--min-distance", "99999"});
  check_consistent(e, 0);
  EXPECT_TRUE(e.results["q5"]["value"].is_null());
  EXPECT_NE(e.lines.find("q5 0 null"), std::string::npos);
}

// The repeat line names what its rate counts: taxi-query's rate is the bam kernel's I/Os a second
// (the report's read IOPS), not rows, which its progress line counts.
TEST(TaxiTools, TheRepeatLineGivesTheRateInIos) {
  temp_dir d;
  const std::string t = gen(d, "t", "20000", "2");
  const std::string rep = d / "report.json";
  const auto r = run_tool(query_bin,
                          query_args(t, {"--impl", "bam", "--repeat", "2", "--set",
                                         "report.formats=[\"summary\"]", "--report", rep}),
                          d);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(repeat: 2 runs, median (\d+) (\S+)/s)")))
      << r.out;
  EXPECT_EQ(m[2].str(), "IOs");
  const json report = json::parse(read_file(rep));
  const double iops = report["jobs"][0]["read"]["iops"].get<double>();
  EXPECT_GT(iops, 0);
  EXPECT_NEAR(std::stod(m[1].str()), iops, 1.0);
}

TEST(TaxiTools, ImportedTableWithRejectsQuotesCrlfAndNanBothImplsAgree) {
  temp_dir d;
  std::string csv =
      "VendorID,tpep_pickup_datetime,tpep_dropoff_datetime,passenger_count,trip_distance,"
      "RatecodeID,store_and_fwd_flag,PULocationID,DOLocationID,payment_type,fare_amount,extra,"
      "mta_tax,tip_amount,tolls_amount,improvement_surcharge,total_amount,congestion_surcharge\r\n";
  std::uint64_t kept = 0;
  for (int i = 0; i < 9000; ++i) {
    const double dist = 0.5 + (i % 97) * 0.37;        // 0.5 .. 36.02: every row >= 0.5
    std::string pass = i % 7 == 0 ? "" : "1";         // NaN in an unused column
    std::string tip = i % 11 == 0 ? "\"n/a\"" : "2";  // non-numeric in an unused column
    std::string ex = i % 13 == 0 ? "" : "\"0.5\"";    // rejected when empty
    if (i % 13 != 0) ++kept;
    csv += "1,\"2019-01-01 00:00:00\",2019-01-01 00:10:00," + pass + "," + std::to_string(dist) +
           ",1,N,1,2,1,10," + ex + ",0.5," + tip + ",0,0.3," + std::to_string(14.3 + i % 5) +
           ",2.5\r\n";
    if (i % 1000 == 999) csv += "\r\n";
  }
  std::ofstream(d / "y.csv", std::ios::binary) << csv;
  const auto r = run_tool(data_bin, {"taxi-import", "--csv", d / "y.csv", "--out", d / "t"}, d);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find(std::to_string(9000 - kept) + " rows rejected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("y.csv:2 "), std::string::npos) << r.out;  // i = 0 is on line 2
  // S = every row (all distances >= 0.5), S a part of them, S empty.
  const query_run all = query(d / "t", d, {"--min-distance", "0.5"});
  check_consistent(all, kept);
  const query_run part = query(d / "t", d, {"--min-distance", "30"});
  check_consistent(part, part.results["q0"]["rows"].get<std::uint64_t>());
  EXPECT_GT(part.results["q0"]["rows"].get<std::uint64_t>(), 0u);
  EXPECT_LT(part.results["q0"]["rows"].get<std::uint64_t>(), kept);
  check_consistent(query(d / "t", d, {"--min-distance", "40"}), 0);
}

TEST(TaxiTools, BadInputsAreRefusedWithTheReasonAndNothingWritten) {
  temp_dir d;
  const std::string t = gen(d, "t", "5000", "1");
  struct bad {
    std::vector<std::string> args;
    std::string text;
  };
  const std::vector<bad> cases = {
      {{"--data", t, "--min-distance", "0"}, "taxi.min_distance: 0 is out of range"},
      {{"--data", t, "--min-distance", "-3"}, "taxi.min_distance"},
      {{"--data", t, "--query", "q7"}, "taxi.queries"},
      {{"--data", t, "--impl", "gpu"}, "taxi.impl"},
      {{"--data", d / "nothing"}, "taxi.data"},
      // A directory named like a number is a path (the string key takes the text).
      {{"--data", "123"}, "taxi.data: 123/table.json: cannot read"},
      {{"--min-distance", "30"}, "taxi.data: required"},
      {{"--data", t, "--set", "taxi.row_group_rows=5000"}, "multiples of 4096"},
      {{"--data", t, "--set", "storage.media.size_bytes=65536"}, "storage.media.size_bytes"},
  };
  for (const bad& b : cases) {
    const auto r = run_tool(query_bin, b.args, d);
    EXPECT_EQ(r.rc, 2) << b.text << r.err;
    EXPECT_NE(r.err.find(b.text), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // A malformed CSV: exit 2, the line named, no table.
  std::ofstream(d / "bad.csv") << "trip_distance,tpep_pickup_datetime,passenger_count,"
                                  "fare_amount,extra,mta_tax,tip_amount,tolls_amount,"
                                  "improvement_surcharge,total_amount\n1,,1,1,0,0.5,0,0,0.3,1.8\n"
                                  "1,2\n";
  auto r = run_tool(data_bin, {"taxi-import", "--csv", d / "bad.csv", "--out", d / "u"}, d);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("bad.csv:3: 2 fields, the header has 10"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "u"));
  // A pickup time that cannot exist: exit 2, FILE:LINE and the field named, no table.
  std::ofstream(d / "date.csv") << "trip_distance,tpep_pickup_datetime,passenger_count,"
                                   "fare_amount,extra,mta_tax,tip_amount,tolls_amount,"
                                   "improvement_surcharge,total_amount\n"
                                   "1,2021-02-28 23:00:00,1,1,0,0.5,0,0,0.3,1.8\n"
                                   "1,2021-02-31 10:00:00,1,1,0,0.5,0,0,0.3,1.8\n";
  r = run_tool(data_bin, {"taxi-import", "--csv", d / "date.csv", "--out", d / "v"}, d);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("date.csv:3: tpep_pickup_datetime \"2021-02-31 10:00:00\" is no date"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(d / "v"));
  // A destination holding other files is not replaced.
  fs::create_directory(d / "mine");
  std::ofstream(d.path() / "mine" / "x") << "x";
  r = run_tool(data_bin, {"taxi-gen", "--rows", "10", "--out", d / "mine"}, d);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(fs::exists(d.path() / "mine" / "x"));
}

TEST(TaxiTools, FailedLineReadsAndFailedAccessesAreCountedApart) {
  temp_dir d;
  const std::string t = gen(d, "t", "20000", "1");
  // 2 % of the commands fail. One thread and one queue per SSD: every command's place on its
  // queue, so its fate, is the same run after run; with this seed the placement's writes pass
  // and some of bam's 240 line reads fail.
  const std::string csv = d / "r.csv";
  const auto r = run_tool(
      query_bin,
      query_args(t, {"--impl", "bam", "--min-distance", "0.5", "--set", "workload.threads=1",
                     "--set", "storage.faults.error_fraction=0.02", "--set",
                     "storage.faults.seed=12345", "--report", d / "r.json", "--csv", csv, "--set",
                     "report.formats=[\"json\",\"csv\",\"summary\"]"}),
      d);
  EXPECT_EQ(r.rc, 3) << r.err;
  const json rep = json::parse(read_file(d / "r.json"))["bamkit"];
  const json& bam = rep["stats"]["taxi"]["impls"][0];
  const std::uint64_t reads = bam["cache"]["io_errors"].get<std::uint64_t>();
  const std::uint64_t accesses = bam["cache"]["failed_accesses"].get<std::uint64_t>();
  EXPECT_GT(reads, 0u);
  EXPECT_GT(accesses, 0u);
  // Two counters, each in its own unit, and no sum of both.
  EXPECT_EQ(bam["failed_reads"], reads);
  EXPECT_EQ(bam["failed_accesses"], accesses);
  EXPECT_FALSE(bam.contains("io_errors"));
  // The run's errors are the failed reads (the I/Os), by status.
  EXPECT_EQ(rep["io_errors"]["errors"], reads);
  EXPECT_EQ(rep["io_errors"]["by_status"]["Unrecovered Read Error"], reads);
  EXPECT_EQ(rep["stats"]["taxi"]["failed_accesses"], accesses);
  // The CSV row and the summary say the same.
  const std::string row = read_file(csv);
  const std::string head = row.substr(0, row.find('\n'));
  std::vector<std::string> names, values;
  for (std::istringstream in(head); std::getline(in, names.emplace_back(), ',');) {
  }
  std::istringstream in2(row.substr(row.find('\n') + 1));
  for (std::string line; std::getline(in2, line);) {
    for (std::istringstream f(line); std::getline(f, values.emplace_back(), ',');) {
    }
  }
  auto value_of = [&](const std::string& n) {
    const auto at = std::find(names.begin(), names.end(), n);
    return at == names.end() ? std::string("(no column " + n + ")")
                             : values[static_cast<std::size_t>(at - names.begin())];
  };
  EXPECT_EQ(value_of("bam_failed_reads"), std::to_string(reads)) << head;
  EXPECT_EQ(value_of("bam_failed_accesses"), std::to_string(accesses)) << head;
  EXPECT_NE(r.out.find("taxi: bam: " + std::to_string(reads) + " failed reads (0 timeouts), " +
                       std::to_string(accesses) + " element accesses that got no data"),
            std::string::npos)
      << r.out;
}

/// Changes one byte of a column file (the manifest keeps its checksum).
void damage(const fs::path& file) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(100);
  const char c = static_cast<char>(f.get());
  f.seekp(100);
  f.put(static_cast<char>(c ^ 0x10));
}

TEST(TaxiTools, AColumnThatDiffersFromItsChecksumIsRefused) {
  temp_dir d;
  const std::string t = gen(d, "t", "5000", "1");
  // A column the queries do not read (tip_amount) is not loaded, so not checked.
  damage(fs::path(t) / "tip_amount.f64");
  auto r = run_tool(query_bin, query_args(t, {"--impl", "bam"}), d);
  EXPECT_EQ(r.rc, 0) << r.err;
  // total_amount is loaded: refused before any run, naming the column and its file (exit 2),
  // whichever implementation and tiled source would read it.
  damage(fs::path(t) / "total_amount.f64");
  for (const std::vector<std::string>& more :
       {std::vector<std::string>{"--impl", "bam"},
        std::vector<std::string>{"--impl", "tiled", "--set", "taxi.tiled_source=page_cache"}}) {
    r = run_tool(query_bin, query_args(t, more), d);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("taxi.data: " + (fs::path(t) / "total_amount.f64").string() +
                         ": column total_amount: checksum "),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(TaxiTools, GeneratorIsDeterministicAcrossThreadCounts) {
  temp_dir d;
  const json a = json::parse(read_file(gen(d, "a", "70000", "1") + "/table.json"));
  const json b = json::parse(read_file(gen(d, "b", "70000", "4") + "/table.json"));
  EXPECT_EQ(a["columns"], b["columns"]);
  EXPECT_EQ(a["rows"], 70000u);
}

}  // namespace
