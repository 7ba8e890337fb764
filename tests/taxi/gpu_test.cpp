// taxi-query's GPU backend (label gpu; skips itself without a GPU): bam (a kernel over
// bam::arrays on GPU-emulated optane-p5800x) and tiled (row groups from host-emulated SSDs of the
// same model, or the files, copied and reduced on the GPU) agree with the long-double reference
// within 1e-12 and with each other bit for bit, and with the host backend bit for bit (the same
// reduction order on CPU and GPU threads).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"

namespace {

using bam::test::read_file;
using bam::test::run_tool;
using bam::test::temp_dir;
using nlohmann::json;

std::string bin(const char* env, const char* built) {
  const char* e = std::getenv(env);
  return e != nullptr && *e != '\0' ? e : built;
}
const std::string data_bin = bin("BAM_DATA_BIN", BAM_DATA_BIN);
const std::string query_bin = bin("TAXI_QUERY_BIN", TAXI_QUERY_BIN);

struct run {
  bool skipped = false;
  std::string lines;
  json taxi;
};

run query(temp_dir& d, const std::string& table, const std::string& backend,
          std::vector<std::string> more) {
  std::vector<std::string> a = {"--data",    table,
                                "--backend", backend,
                                "--ssds",    "2",
                                "--model",   "optane-p5800x",
                                "--set",     "storage.media.size_bytes=67108864",
                                "--set",     "cache.capacity=8388608",
                                "--set",     "taxi.row_group_rows=65536",
                                "--set",     "report.formats=[]",
                                "--verify",  "--report",
                                d / "r.json"};
  if (backend == "emulated") a.insert(a.end(), {"--pairs", "32", "--depth", "256"});
  a.insert(a.end(), more.begin(), more.end());
  const auto r = run_tool(query_bin, a, d);
  run out;
  if (r.err.find("needs a CUDA GPU") != std::string::npos ||
      r.err.find("not available in this build") != std::string::npos) {
    out.skipped = true;
    return out;
  }
  EXPECT_EQ(r.rc, 0) << r.err << r.out;
  out.lines = r.out;
  if (std::filesystem::exists(d / "r.json"))
    out.taxi = json::parse(read_file(d / "r.json"))["bamkit"]["stats"]["taxi"];
  return out;
}

TEST(TaxiGpu, BothImplsMatchTheReferenceEachOtherAndTheHostBackend) {
  temp_dir d;
  const auto g =
      run_tool(data_bin, {"taxi-gen", "--rows", "300001", "--seed", "4", "--out", d / "t"}, d);
  ASSERT_EQ(g.rc, 0) << g.err;
  for (const char* dist : {"30", "20", "0.01", "500"}) {
    const run gpu = query(d, d / "t", "emulated", {"--min-distance", dist});
    if (gpu.skipped) GTEST_SKIP() << "no GPU";
    ASSERT_TRUE(gpu.taxi.is_object()) << dist;
    EXPECT_EQ(gpu.taxi["verify"]["mismatches"], 0u) << dist;
    EXPECT_TRUE(gpu.taxi["impls_bit_identical"].get<bool>()) << dist;
    EXPECT_EQ(gpu.taxi["impls"][0]["impl"], "bam");
    EXPECT_EQ(gpu.taxi["impls"][1]["impl"], "tiled (ssd)");
    const run host = query(d, d / "t", "host", {"--min-distance", dist});
    EXPECT_EQ(gpu.lines, host.lines) << "GPU and host reductions differ at D = " << dist;
    // bam moves less than tiled where S is sparse.
    if (std::string(dist) == "30") {
      EXPECT_LT(gpu.taxi["impls"][0]["bytes_moved"].get<std::uint64_t>(),
                gpu.taxi["impls"][1]["bytes_moved"].get<std::uint64_t>());
    }
  }
  const run pc =
      query(d, d / "t", "emulated",
            {"--min-distance", "20", "--set", "taxi.tiled_source=page_cache", "--query", "q0,q3"});
  EXPECT_EQ(pc.taxi["verify"]["mismatches"], 0u);
  EXPECT_EQ(pc.taxi["impls"][1]["impl"], "tiled (page cache)");
  EXPECT_TRUE(pc.taxi["impls_bit_identical"].get<bool>());
}

}  // namespace
