// The bfs and cc tools on the host backend: generated (bam-data graph-gen) and imported graphs
// (.el, 1-based .mtx) agree with the CPU references through a cache far smaller than the edge
// list; the dump files' exact contents; the reports; the exit statuses of bad inputs (2), I/O
// errors (3) and a dump that cannot be written (1).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

#include "bam/storage/checksum.hpp"
#include "config/tool_runner.hpp"

namespace bam::test {
namespace {

const std::string bfs = BAM_BFS_BIN;
const std::string cc = BAM_CC_BIN;
const std::string bam_data = BAM_DATA_BIN;

/// Two host SSDs of 4 MiB, a cache of 32 lines of 512 B (16 KiB), 2 threads.
std::vector<std::string> small_storage() {
  return {"--backend", "host",
          "--ssds",    "2",
          "--pairs",   "2",
          "--threads", "2",
          "--set",     "storage.media.size_bytes=4194304",
          "--set",     "cache.line_size=512",
          "--set",     "cache.capacity=16384"};
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

/// A generated graph in `dir`: bam-data graph-gen KIND --scale S [extra...].
std::string generate(const temp_dir& dir, const std::string& kind, unsigned scale,
                     const std::string& name, const std::vector<std::string>& extra = {}) {
  const std::string out = dir / name;
  const tool_output r =
      run_tool(bam_data,
               std::vector<std::string>{"graph-gen", kind, "--scale", std::to_string(scale),
                                        "--edge-factor", "8", "--seed", "5", "--out", out} +
                   extra,
               dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  return out;
}

nlohmann::json graph_stats(const std::string& report) {
  const nlohmann::json j = nlohmann::json::parse(read_file(report));
  return j["bamkit"]["stats"]["graph"];
}

TEST(GraphAppsCli, KroneckerBfsAndCcVerifyThroughASmallCache) {
  temp_dir dir;
  const std::string g = generate(dir, "kron", 11, "k11.csr");
  const std::string report = dir / "bfs.json";
  tool_output r = run_tool(bfs,
                           std::vector<std::string>{"--graph", g, "--sources", "3", "--verify",
                                                    "--report", report, "--csv", dir / "bfs.csv"} +
                               small_storage(),
                           dir);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  nlohmann::json s = graph_stats(report);
  EXPECT_EQ(s["vertices"], 2048);
  EXPECT_EQ(s["traversals"].size(), 3u);
  EXPECT_EQ(s["verify"]["mismatches"], 0);
  EXPECT_GT(s["cache"]["evictions"].get<std::uint64_t>(), 0u) << "the cache is ~1/20 of the edges";
  EXPECT_GE(s["io_amplification"].get<double>(), 0.0);
  EXPECT_GT(s["teps"].get<double>(), 0.0);
  EXPECT_EQ(s["bytes_read"].get<std::uint64_t>(), s["ios"].get<std::uint64_t>() * 512);
  const nlohmann::json j = nlohmann::json::parse(read_file(report));
  EXPECT_EQ(j["bamkit"]["config"]["graph"]["file"], g) << "the report echoes the full config";
  EXPECT_EQ(j["bamkit"]["config"]["graph"]["sources"], 3);
  const std::string csv = read_file(dir / "bfs.csv");
  EXPECT_NE(csv.find("io_amplification"), std::string::npos);
  EXPECT_NE(csv.find(",bfs,bam,"), std::string::npos) << csv;

  r = run_tool(
      cc, std::vector<std::string>{"--graph", g, "--verify", "--report", report} + small_storage(),
      dir);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  s = graph_stats(report);
  EXPECT_EQ(s["verify"]["mismatches"], 0);
  EXPECT_EQ(s["edges_read"].get<std::uint64_t>(),
            s["steps"].get<std::uint64_t>() * s["edges"].get<std::uint64_t>());
}

TEST(GraphAppsCli, DirectedUrandAsAnEdgeListAndASweepOverTheCacheModes) {
  temp_dir dir;
  const std::string el = generate(dir, "urand", 10, "u10.el",
                                  {"--directed", "--keep-self-loops", "--keep-duplicates"});
  const std::string report = dir / "sweep.json";
  // bam-preloaded raises small_storage's 16 KiB cache to the neighbour array's size.
  tool_output r =
      run_tool(bfs,
               small_storage() + std::vector<std::string>{"--graph", el, "--verify", "--sweep",
                                                          "graph.access=bam,bam-preloaded",
                                                          "--report", report},
               dir);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(report));
  ASSERT_EQ(j["jobs"].size(), 2u);
  const nlohmann::json pre = j["jobs"][1]["bamkit"]["stats"]["graph"];
  // Both modes found the same levels (and say so by checksum).
  EXPECT_EQ(pre["levels_xxh64"], j["jobs"][0]["bamkit"]["stats"]["graph"]["levels_xxh64"]);
  EXPECT_EQ(pre["levels_xxh64"].get<std::string>().size(), 16u);
  EXPECT_EQ(pre["access"], "bam-preloaded");
  EXPECT_EQ(pre["cache"]["misses"], 0);
  EXPECT_EQ(pre["symmetric"], false);
  EXPECT_EQ(pre["bottom_up_steps"], 0) << "bottom-up needs a symmetric graph";
  r = run_tool(cc, small_storage() + std::vector<std::string>{"--graph", el, "--verify"}, dir);
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
}

TEST(GraphAppsCli, DumpsOfAOneBasedMatrixMarketFileUseItsIds) {
  temp_dir dir;
  const std::string mtx = dir / "g.mtx";
  // 1-2-3 a path, 4 isolated, 5-6 with a self-loop on 6 and a duplicate edge.
  write_text(mtx,
             "%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n6 6 6\n2 1\n3 2\n"
             "6 5\n6 6\n6 5\n1 2\n");
  const std::string levels = dir / "levels.txt";
  tool_output r =
      run_tool(bfs,
               small_storage() + std::vector<std::string>{"--graph", mtx, "--source", "2",
                                                          "--verify", "--dump-levels", levels,
                                                          "--report", dir / "bfs.json"},
               dir);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(read_file(levels), "1 1\n2 0\n3 1\n4 -1\n5 -1\n6 -1\n");
  // The report's checksum of the answer: XXH64 of the levels (0-based vertices, int32 each).
  const std::vector<std::int32_t> want_levels = {1, 0, 1, -1, -1, -1};
  EXPECT_EQ(graph_stats(dir / "bfs.json")["levels_xxh64"],
            checksum_hex(checksum64(want_levels.data(), 6 * sizeof(std::int32_t))));
  const std::string labels = dir / "labels.txt";
  r = run_tool(
      cc,
      small_storage() + std::vector<std::string>{"--graph", mtx, "--verify", "--dump-components",
                                                 labels, "--report", dir / "cc.json"},
      dir);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(read_file(labels), "1 1\n2 1\n3 1\n4 4\n5 5\n6 5\n");
  const std::vector<std::uint32_t> want_labels = {0, 0, 0, 3, 4, 4};  // 0-based smallest ids
  EXPECT_EQ(graph_stats(dir / "cc.json")["labels_xxh64"],
            checksum_hex(checksum64(want_labels.data(), 6 * sizeof(std::uint32_t))));
  // Source 0 is not a vertex of a 1-based file.
  r = run_tool(bfs, small_storage() + std::vector<std::string>{"--graph", mtx, "--source", "0"},
               dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("graph.source"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[1, 6]"), std::string::npos) << r.err;
}

TEST(GraphAppsCli, BadInputsExitTwoAndNameTheProblem) {
  temp_dir dir;
  const std::string bad = dir / "bad.el";
  write_text(bad, "0 1\n1 x\n");
  struct bad_case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<bad_case> cases = {
      {{}, "graph.file"},
      {{"--graph", dir / "missing.el"}, "missing.el"},
      {{"--graph", bad}, "line 2"},
      {{"--graph", bad, "--access", "uvm"}, "line 2"},
  };
  for (const bad_case& c : cases) {
    const tool_output r = run_tool(bfs, small_storage() + c.args, dir);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  const std::string g = dir / "g.el";
  write_text(g, "0 1\n1 2\n2 0\n0 3\n3 1\n0 2\n");  // vertex 0: degree 3
  const std::vector<bad_case> refused = {
      {{"--graph", g, "--access", "uvm"}, "graph.access"},
      {{"--graph", g, "--access", "gpu"}, "graph.access"},
      {{"--graph", g, "--source", "1", "--sources", "2"}, "graph.sources"},
      {{"--graph", g, "--sources", "5"}, "graph.sources"},
      {{"--graph", g, "--set", "storage.media.size_bytes=4096"}, "storage.media.size_bytes"},
  };
  for (const bad_case& c : refused) {
    const tool_output r = run_tool(bfs, small_storage() + c.args, dir);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
}

TEST(GraphAppsCli, ReadErrorsExitThreeAndAnUnwritableDumpExitsOne) {
  temp_dir dir;
  const std::string g = generate(dir, "kron", 9, "k9.csr");
  // 5% of the commands fail: the few writes that lay the graph out pass (the fate of a command
  // is a function of the seed, its queue and its place in it), some of the ~150 line reads not.
  tool_output r =
      run_tool(cc,
               small_storage() + std::vector<std::string>{"--graph", g, "--verify", "--set",
                                                          "storage.faults.error_fraction=0.05"},
               dir);
  EXPECT_EQ(r.rc, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("Unrecovered Read Error"), std::string::npos) << r.err;
  const std::string dump = dir / "no-such-dir/levels.txt";
  r = run_tool(bfs, small_storage() + std::vector<std::string>{"--graph", g, "--dump-levels", dump},
               dir);
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_FALSE(std::filesystem::exists(dump));
  EXPECT_FALSE(std::filesystem::exists(dump + ".tmp"));
}

}  // namespace
}  // namespace bam::test
