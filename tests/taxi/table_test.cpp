// Column tables, the taxi generator and the CSV importer through the library: values read back
// are the values written (or parsed), a table is the same for any thread count, a failed write
// or a malformed file leaves nothing behind, and malformed files name their line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "bam/graph/csr.hpp"
#include "bam/io/input_error.hpp"
#include "bam/storage/checksum.hpp"
#include "bam/table/column_table.hpp"
#include "bam/table/table_writer.hpp"
#include "bam/table/taxi_csv.hpp"
#include "bam/table/taxi_gen.hpp"
#include "tool_runner.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bam;
using bam::test::read_file;
using bam::test::temp_dir;

std::vector<double> column(const fs::path& dir, const char* name) {
  const table::table_manifest m = table::read_manifest(dir);
  const table::mapped_column c(dir, m, name);
  return std::vector<double>(c.data(), c.data() + c.rows());
}

/// Nothing but `keep` in `dir` (no temporary directories left).
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(TableWriter, CommitsColumnsWithChecksumsAndReadsThemBack) {
  temp_dir d;
  const fs::path out = d.path() / "t";
  std::vector<double> a = {1.5, -2.25, std::nan(""), 1e300};
  std::vector<double> b = {0, 1, 2, 3};
  {
    table::table_writer w(out, {"a", "b"});
    w.append(0, a.data(), 2);
    w.append(0, a.data() + 2, 2);
    w.append(1, b.data(), 4);
    EXPECT_FALSE(fs::exists(out));  // nothing visible before the commit
    w.commit({{"note", "test"}});
  }
  const table::table_manifest m = table::read_manifest(out);
  EXPECT_EQ(m.rows, 4u);
  ASSERT_EQ(m.columns.size(), 2u);
  EXPECT_EQ(m.columns[0].checksum, checksum64(a.data(), 32));
  EXPECT_EQ(m.source["note"], "test");
  const std::vector<double> ra = column(out, "a");
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_TRUE(same_bits(ra[i], a[i])) << i;
  EXPECT_NO_THROW(table::verify_checksums(out, m));
  EXPECT_EQ(entries(d.path()), std::vector<std::string>{"t"});
  // A damaged column is found.
  {
    std::fstream f(out / "b.f64", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(9);
    f.put('\x7f');
  }
  EXPECT_THROW(table::verify_checksums(out, m), table::table_error);
}

TEST(TableWriter, AbandonedOrUnequalWritesLeaveNothingAndOthersDataIsNeverReplaced) {
  temp_dir d;
  const fs::path out = d.path() / "t";
  const double v[2] = {1, 2};
  {
    table::table_writer w(out, {"a"});
    w.append(0, v, 2);
    EXPECT_TRUE(fs::exists(w.temp_dir()));
  }  // destroyed without commit
  EXPECT_TRUE(entries(d.path()).empty());
  {
    table::table_writer w(out, {"a", "b"});
    w.append(0, v, 2);
    w.append(1, v, 1);
    EXPECT_THROW(w.commit({}), table::table_error);  // unequal columns
  }
  EXPECT_TRUE(entries(d.path()).empty());
  // A directory with someone's files is refused; an existing table is replaced at commit.
  fs::create_directory(out);
  write(out / "mine.txt", "keep me");
  EXPECT_FALSE(table::writable_destination(out));
  EXPECT_THROW(table::table_writer(out, {"a"}), table::table_error);
  EXPECT_EQ(bam::test::read_file(out / "mine.txt"), "keep me");
  fs::remove_all(out);
  for (double x : {1.0, 2.0}) {
    table::table_writer w(out, {"a"});
    w.append(0, &x, 1);
    w.commit({});
    EXPECT_EQ(column(out, "a"), std::vector<double>{x});
  }
  EXPECT_EQ(entries(d.path()), std::vector<std::string>{"t"});
}

TEST(TaxiGen, SameTableForAnyThreadCountAndChunkSize) {
  temp_dir d;
  taxi::gen_options o;
  o.rows = 50'000;
  o.seed = 11;
  o.out = d.path() / "a";
  o.threads = 1;
  o.chunk_rows = 50'000;
  taxi::generate_table(o);
  o.out = d.path() / "b";
  o.threads = 3;
  o.chunk_rows = 777;
  taxi::generate_table(o);
  const auto ma = table::read_manifest(d.path() / "a");
  const auto mb = table::read_manifest(d.path() / "b");
  ASSERT_EQ(ma.columns.size(), taxi::column_count);
  for (std::size_t c = 0; c < taxi::column_count; ++c)
    EXPECT_EQ(ma.columns[c].checksum, mb.columns[c].checksum) << ma.columns[c].name;
  // The files hold generate_row's values.
  const std::vector<double> dist = column(d.path() / "b", "trip_distance");
  const std::vector<double> total = column(d.path() / "b", "total_amount");
  for (std::uint64_t r : {0ull, 776ull, 777ull, 49'999ull}) {
    const auto v = taxi::generate_row(11, r);
    EXPECT_TRUE(same_bits(dist[r], v[taxi::trip_distance])) << r;
    EXPECT_TRUE(same_bits(total[r], v[taxi::total_amount])) << r;
  }
  // Another seed, another table.
  o.seed = 12;
  o.out = d.path() / "c";
  taxi::generate_table(o);
  EXPECT_NE(table::read_manifest(d.path() / "c").columns[0].checksum, ma.columns[0].checksum);
}

TEST(TaxiGen, FollowsThePublishedDistanceFactsAndTotalsAreTheSumOfTheParts) {
  constexpr std::uint64_t n = 400'000;
  std::uint64_t ge20 = 0, ge30 = 0, nan_pass = 0;
  for (std::uint64_t r = 0; r < n; ++r) {
    const auto v = taxi::generate_row(5, r);
    ge20 += v[taxi::trip_distance] >= 20;
    ge30 += v[taxi::trip_distance] >= 30;
    nan_pass += std::isnan(v[taxi::passenger_count]);
    const double parts = v[taxi::fare_amount] + v[taxi::extra] + v[taxi::mta_tax] +
                         v[taxi::tip_amount] + v[taxi::tolls_amount] +
                         v[taxi::improvement_surcharge];
    ASSERT_NEAR(v[taxi::total_amount], parts, 0.005) << r;
    ASSERT_GE(v[taxi::trip_distance], 0) << r;
    ASSERT_GT(v[taxi::fare_amount], 0) << r;
  }
  // Binomial standard deviations: 0.47 %: 0.0108 %; 0.03 %: 0.0027 %; allow 4 of them.
  EXPECT_NEAR(double(ge20) / n, 0.0047, 4 * std::sqrt(0.0047 / n));
  EXPECT_NEAR(double(ge30) / n, 0.0003, 4 * std::sqrt(0.0003 / n));
  EXPECT_NEAR(double(nan_pass) / n, 0.01, 4 * std::sqrt(0.01 / n));
}

// A TLC-like file: columns in another order and case, an extra column, CRLF line ends, an empty
// line, quoted fields (one with a comma, one with a doubled quote), empty optional values, a
// non-numeric optional value and rows with a required value missing or not a number.
const std::string tlc_csv =
    "\xEF\xBB\xBF"
    "vendorid,Trip_Distance,TPEP_PICKUP_DATETIME,passenger_count,fare_amount,extra,mta_tax,"
    "tip_amount,tolls_amount,improvement_surcharge,total_amount,store_and_fwd_flag,note\r\n"
    "1,1.50,2019-01-01 00:46:40,1,7,0.5,0.5,1.65,0,0.3,9.95,N,x\r\n"             // line 2
    "\r\n"                                                                       // line 3
    "2,\"2.60\",\"2019-01-01 00:59:47\",,14,0.5,0.5,,0,0.3,15.3,N,\"a, b\"\r\n"  // line 4
    "2,,2019-01-01 01:00:00,1,14,0.5,0.5,1,0,0.3,16.3,N,y\r\n"  // line 5: rejected (distance)
    "2,31.0,2019-01-01 02:00:00,2,80,0.5,0.5,10,5.76,0.3,97.06,N,\"say \"\"hi\"\"\"\r\n"  // 6
    "1,3.0,bad time,x,12,abc,0.5,1,0,0.3,14.3,N,z\r\n";  // line 7: rejected (extra)

TEST(TableManifest, ChecksumsAreParsedStrictlyNamingTheFileAndKey) {
  temp_dir d;
  const fs::path out = d.path() / "t";
  const std::vector<double> a = {1, 2, 3};
  {
    table::table_writer w(out, {"a"});
    w.append(0, a.data(), a.size());
    w.commit({});
  }
  const std::string good = fmt::format("{:016x}", checksum64(a.data(), 24));
  nlohmann::json j = nlohmann::json::parse(read_file(out / "table.json"));
  ASSERT_EQ(j["columns"][0]["checksum_xxh64"], good);
  // What std::stoull took (a space, a sign, "0x", text after the digits) or threw another
  // exception for (no digits, too many) is refused as a table_error.
  const std::vector<std::string> bad = {" " + good,
                                        "+" + good.substr(1),
                                        good + "z",
                                        good + " ",
                                        "0x" + good.substr(2),
                                        good.substr(1),
                                        "",
                                        "zz",
                                        good + "0",
                                        "-" + good.substr(1),
                                        "123456789abcdefg"};
  for (const std::string& v : bad) {
    j["columns"][0]["checksum_xxh64"] = v;
    std::ofstream(out / "table.json") << j.dump(2);
    try {
      table::read_manifest(out);
      ADD_FAILURE() << "accepted \"" << v << "\"";
    } catch (const table::table_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find((out / "table.json").string()), std::string::npos) << what;
      EXPECT_NE(what.find("column a: checksum_xxh64 \"" + v + "\""), std::string::npos) << what;
      EXPECT_NE(what.find("16 hex digits"), std::string::npos) << what;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "\"" << v << "\": not a table_error: " << e.what();
    }
  }
  j["columns"][0]["checksum_xxh64"] = good;
  std::ofstream(out / "table.json") << j.dump(2);
  EXPECT_EQ(table::read_manifest(out).columns[0].checksum, checksum64(a.data(), 24));
}

TEST(TaxiCsv, ImportsTlcRowsRejectsAndCountsWithLinesAndReadsValuesBack) {
  temp_dir d;
  write(d.path() / "a.csv", tlc_csv);
  taxi::import_options o;
  o.csv = {d.path() / "a.csv"};
  o.out = d.path() / "t";
  const nlohmann::json s = taxi::import_csv(o);
  EXPECT_EQ(s["rows"], 3u);
  EXPECT_EQ(s["rejected_rows"], 2u);
  const std::string f = (d.path() / "a.csv").string();
  EXPECT_EQ(s["rejected_lines"], nlohmann::json({f + ":5", f + ":7"}));
  EXPECT_EQ(s["empty_as_nan"]["passenger_count"], 1u);
  EXPECT_EQ(s["empty_as_nan"]["tip_amount"], 1u);
  const std::vector<double> dist = column(o.out, "trip_distance");
  EXPECT_EQ(dist, (std::vector<double>{1.5, 2.6, 31.0}));
  EXPECT_EQ(column(o.out, "total_amount"), (std::vector<double>{9.95, 15.3, 97.06}));
  EXPECT_EQ(column(o.out, "tolls_amount"), (std::vector<double>{0, 0, 5.76}));
  const std::vector<double> pass = column(o.out, "passenger_count");
  EXPECT_EQ(pass[0], 1);
  EXPECT_TRUE(std::isnan(pass[1]));
  EXPECT_EQ(pass[2], 2);
  EXPECT_TRUE(std::isnan(column(o.out, "tip_amount")[1]));
  EXPECT_EQ(column(o.out, "pickup_time")[0], 1546303600.0);  // 2019-01-01T00:46:40Z
  EXPECT_NO_THROW(table::verify_checksums(o.out, table::read_manifest(o.out)));
}

TEST(TaxiCsv, ChunkedParsingByManyThreadsGivesTheSameTableAndLines) {
  temp_dir d;
  std::string csv =
      "trip_distance,tpep_pickup_datetime,passenger_count,fare_amount,extra,"
      "mta_tax,tip_amount,tolls_amount,improvement_surcharge,total_amount\n";
  std::vector<std::uint64_t> bad;
  for (int i = 0; i < 5000; ++i) {
    const std::uint64_t line = static_cast<std::uint64_t>(i) + 2;
    if (i % 997 == 5) {
      csv += "x,2019-01-01 00:00:00,1,1,0,0.5,0,0,0.3,1.8\n";
      bad.push_back(line);
    } else {
      csv += std::to_string(i) + ".25,\"2019-01-01 00:00:00\",1," + std::to_string(i) +
             ",0,0.5,0,0,0.3," + std::to_string(i + 1) + ".8\n";
    }
  }
  write(d.path() / "a.csv", csv);
  write(d.path() / "b.csv", csv);
  taxi::import_options one;
  one.csv = {d.path() / "a.csv", d.path() / "b.csv"};
  one.out = d.path() / "one";
  one.threads = 1;
  one.chunk_bytes = std::uint64_t{1} << 30;
  taxi::import_options many = one;
  many.out = d.path() / "many";
  many.threads = 3;
  many.chunk_bytes = 1000;  // many chunks, cut inside and outside quotes
  many.reported_lines = 100;
  taxi::import_csv(one);
  const nlohmann::json s = taxi::import_csv(many);
  const auto m1 = table::read_manifest(one.out), m2 = table::read_manifest(many.out);
  EXPECT_EQ(m1.rows, 2 * (5000 - bad.size()));
  EXPECT_EQ(m2.rows, m1.rows);
  for (std::size_t c = 0; c < m1.columns.size(); ++c)
    EXPECT_EQ(m1.columns[c].checksum, m2.columns[c].checksum) << m1.columns[c].name;
  ASSERT_EQ(s["rejected_lines"].size(), 2 * bad.size());
  for (std::size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(s["rejected_lines"][i], (d.path() / "a.csv").string() + ":" + std::to_string(bad[i]));
    EXPECT_EQ(s["rejected_lines"][bad.size() + i],
              (d.path() / "b.csv").string() + ":" + std::to_string(bad[i]));
  }
}

struct malformed {
  std::string text;
  std::uint64_t line;
  std::string what;
};

TEST(TaxiCsv, MalformedFilesAreRefusedWithTheirLineAndNothingIsWritten) {
  const std::string header =
      "trip_distance,tpep_pickup_datetime,passenger_count,fare_amount,extra,mta_tax,tip_amount,"
      "tolls_amount,improvement_surcharge,total_amount\n";
  const std::string row = "1,2019-01-01 00:00:00,1,1,0,0.5,0,0,0.3,1.8\n";
  const std::vector<malformed> cases = {
      {"", 1, "empty file"},
      {"trip_distance,fare_amount\n" + row, 1, "missing column(s) extra, mta_tax"},
      {header + row + row + "1,2,3\n" + row, 4, "3 fields, the header has 10"},
      {header + row + "1,\"2019-01-01 00:00:00,1,1,0,0.5,0,0,0.3,1.8\n" + row, 3,
       "unterminated quoted field"},
      {header + row + "1,\"2019\"x,1,1,0,0.5,0,0,0.3,1.8\n", 3, "after a closing quote"},
      // A pickup time of the right form that cannot exist: the field and the reason named.
      {header + row + "1,2021-02-31 10:00:00,1,1,0,0.5,0,0,0.3,1.8\n", 3,
       "tpep_pickup_datetime \"2021-02-31 10:00:00\" is no date: day 31 does not exist: 2021-02 "
       "has 28 days"},
      {header + "1,2023-02-29T00:00:00Z,1,1,0,0.5,0,0,0.3,1.8\n", 2, "2023-02 has 28 days"},
      {header + row + row + "1,1900-02-29 00:00:00,1,1,0,0.5,0,0,0.3,1.8\n", 4,
       "1900-02 has 28 days"},
      {header + "1,2021-04-31 00:00:00,1,1,0,0.5,0,0,0.3,1.8\n", 2, "2021-04 has 30 days"},
      {header + "1,2021-13-01 00:00:00,1,1,0,0.5,0,0,0.3,1.8\n", 2, "month 13 does not exist"},
      {header + "1,2021-01-01 24:00:00,1,1,0,0.5,0,0,0.3,1.8\n", 2, "24:00:00 is not a time"},
  };
  for (const malformed& m : cases) {
    temp_dir d;
    write(d.path() / "good.csv", header + row);
    write(d.path() / "bad.csv", m.text);
    taxi::import_options o;
    o.csv = {d.path() / "good.csv", d.path() / "bad.csv"};
    o.out = d.path() / "t";
    o.chunk_bytes = 64;
    try {
      taxi::import_csv(o);
      ADD_FAILURE() << "accepted: " << m.text;
    } catch (const taxi::csv_error& e) {
      EXPECT_EQ(e.line, m.line) << e.what();
      EXPECT_NE(std::string(e.what()).find(m.what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.csv:" + std::to_string(m.line)), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(entries(d.path()), (std::vector<std::string>{"bad.csv", "good.csv"}));
  }
}

TEST(TaxiCsv, LeapDaysAndMonthEndsAreRead) {
  temp_dir d;
  write(d.path() / "a.csv",
        "trip_distance,tpep_pickup_datetime,passenger_count,fare_amount,extra,mta_tax,tip_amount,"
        "tolls_amount,improvement_surcharge,total_amount\n"
        "1,2000-02-29 00:00:00,1,1,0,0.5,0,0,0.3,1.8\n"
        "1,2024-02-29 12:00:00,1,1,0,0.5,0,0,0.3,1.8\n"
        "1,2021-12-31 23:59:59,1,1,0,0.5,0,0,0.3,1.8\n"
        "1,not a time,1,1,0,0.5,0,0,0.3,1.8\n");
  taxi::import_options o;
  o.csv = {d.path() / "a.csv"};
  o.out = d.path() / "t";
  const nlohmann::json s = taxi::import_csv(o);
  EXPECT_EQ(s["rows"], 4u);
  const std::vector<double> t = column(o.out, "pickup_time");
  EXPECT_EQ(t[0], 951782400.0);
  EXPECT_EQ(t[1], 1709208000.0);
  EXPECT_EQ(t[2], 1640995199.0);
  EXPECT_TRUE(std::isnan(t[3]));  // not of the form: NaN and counted, as before
  EXPECT_EQ(s["non_numeric_as_nan"]["pickup_time"], 1u);
}

TEST(InputFiles, ReadersThatCannotOpenAFileThrowTheOneInputError) {
  // The graph loaders and the CSV importer share the library's file mapping and its error type
  // (bam/io/input_error.hpp): a tool answers either with exit status 2.
  temp_dir d;
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const bam::input_error& e) {
      return e.what();
    } catch (const std::exception& e) {
      return std::string("not an input_error: ") + e.what();
    }
    return "nothing thrown";
  };
  const fs::path el = d.path() / "missing.el", csv = d.path() / "missing.csv";
  EXPECT_EQ(message([&] { graph::load_graph(el); }),
            el.string() + ": cannot open: No such file or directory");
  EXPECT_EQ(message([&] { graph::load_graph(d.path()); }).find("not an input_error"),
            std::string::npos);
  taxi::import_options o;
  o.csv = {csv};
  o.out = d.path() / "t";
  EXPECT_EQ(message([&] { taxi::import_csv(o); }), csv.string() + ": not a readable file");
  static_assert(std::is_base_of_v<bam::input_error, taxi::csv_error>);
  static_assert(std::is_same_v<bam::input_error, graph::input_error>);
  EXPECT_EQ(entries(d.path()), std::vector<std::string>{});
}

TEST(TaxiCsv, DatetimesAreReadAsUtc) {
  using enum taxi::datetime_parse;
  double t = 0;
  std::string why;
  EXPECT_EQ(taxi::parse_datetime("1970-01-01 00:00:00", t, why), ok);
  EXPECT_EQ(t, 0);
  EXPECT_EQ(taxi::parse_datetime("2020-02-29T23:59:59", t, why), ok);
  EXPECT_EQ(t, 1583020799);
  EXPECT_EQ(taxi::parse_datetime("2023-01-01 00:32:10.000000Z", t, why), ok);
  EXPECT_EQ(t, 1672533130);
  EXPECT_EQ(taxi::parse_datetime("2016-12-31 23:59:60", t, why), ok);  // a leap second
  EXPECT_EQ(taxi::parse_datetime("2023-01-01 00:32:10.x", t, why), not_a_time);
  EXPECT_EQ(taxi::parse_datetime("2020-01-01", t, why), not_a_time);
  EXPECT_EQ(taxi::parse_datetime("2020-1-01 00:00:00", t, why), not_a_time);
  EXPECT_EQ(taxi::parse_datetime("2020-13-01 00:00:00", t, why), impossible);
  EXPECT_EQ(why, "month 13 does not exist");
  EXPECT_EQ(taxi::parse_datetime("2020-00-01 00:00:00", t, why), impossible);
  // Days against their month, leap years included (every 4th year, not centuries but every 4th).
  EXPECT_EQ(taxi::parse_datetime("2021-02-29 00:00:00", t, why), impossible);
  EXPECT_EQ(why, "day 29 does not exist: 2021-02 has 28 days");
  EXPECT_EQ(taxi::parse_datetime("2100-02-29 00:00:00", t, why), impossible);
  EXPECT_EQ(taxi::parse_datetime("2000-02-29 00:00:00", t, why), ok);
  EXPECT_EQ(taxi::parse_datetime("2021-06-31 00:00:00", t, why), impossible);
  EXPECT_EQ(taxi::parse_datetime("2021-07-31 00:00:00", t, why), ok);
  EXPECT_EQ(taxi::parse_datetime("2021-07-00 00:00:00", t, why), impossible);
  EXPECT_EQ(taxi::parse_datetime("2021-07-01 23:60:00", t, why), impossible);
  EXPECT_EQ(why, "23:60:00 is not a time of day");
}

}  // namespace
