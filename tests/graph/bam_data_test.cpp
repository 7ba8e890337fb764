// bam-data through its binary: graph-gen writes what generate() makes, graph-import converts,
// and malformed input or a bad command line exits 2 naming the file and line, an unwritable
// output exits 1, with no output (or temporary) file left behind and an existing file untouched.
#include <gtest/gtest.h>

#include "bam/graph/csr_file.hpp"
#include "bam/graph/generate.hpp"
#include "graph_test_util.hpp"

namespace bam::test {
namespace {

tool_output bam_data(const std::vector<std::string>& args, const temp_dir& dir) {
  return run_tool(BAM_DATA_BIN, args, dir);
}

TEST(BamData, GraphGenWritesTheGeneratedGraph) {
  temp_dir dir;
  const tool_output r = bam_data({"graph-gen", "kron", "--scale", "10", "--edge-factor", "8",
                                  "--seed", "7", "--threads", "2", "--out", dir / "k.csr"},
                                 dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  graph::generator_options o;
  o.scale = 10;
  o.edge_factor = 8;
  o.seed = 7;
  const graph::csr_graph want = graph::generate(o);
  const graph::csr_graph got = graph::load_graph(dir / "k.csr");
  expect_same_graph(want, got);
  EXPECT_TRUE(got.symmetric);
  // The summary: vertices, edges and the file's checksum.
  EXPECT_NE(r.out.find("1024 vertices, " + std::to_string(want.edge_count()) + " directed edges"),
            std::string::npos)
      << r.out;
  char sum[32];
  std::snprintf(sum, sizeof sum, "%016llx",
                static_cast<unsigned long long>(graph::read_csr_header(dir / "k.csr").checksum));
  EXPECT_NE(r.out.find(sum), std::string::npos) << r.out;
  EXPECT_EQ(files_in(dir.path()), std::set<std::string>{"k.csr"});
}

TEST(BamData, GraphGenTextFormatsAndFlags) {
  temp_dir dir;
  ASSERT_EQ(bam_data({"graph-gen", "urand", "--scale", "8", "--out", dir / "u.mtx"}, dir).rc, 0);
  ASSERT_EQ(bam_data({"graph-gen", "urand", "--scale", "8", "--out", dir / "u.txt", "--format",
                      "el", "--directed", "--keep-self-loops", "--keep-duplicates"},
                     dir)
                .rc,
            0);
  const graph::csr_graph m = graph::load_graph(dir / "u.mtx");
  EXPECT_TRUE(m.symmetric);
  EXPECT_EQ(m.id_base, 1u);
  std::filesystem::rename(dir / "u.txt", dir / "u.el");
  EXPECT_EQ(graph::load_graph(dir / "u.el").edge_count(), 16u << 8);  // every edge drawn
}

TEST(BamData, GraphImportConvertsWithOptions) {
  temp_dir dir;
  write_text(dir / "g.el", "0 1\n1 1\n0 1\n3 2\n");
  const tool_output r = bam_data({"graph-import", "--in", dir / "g.el", "--out", dir / "g.csr",
                                  "--symmetrize", "--drop-self-loops", "--dedup"},
                                 dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const graph::csr_graph g = graph::load_graph(dir / "g.csr");
  EXPECT_EQ(edges_of(g),
            (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 1}, {1, 0}, {2, 3}, {3, 2}}));
  EXPECT_TRUE(g.symmetric);
}

TEST(BamData, MalformedInputExits2NamingTheLineAndLeavesNoOutput) {
  temp_dir dir;
  write_text(dir / "bad.el", "0 1\n1 2\n2 three\n");
  const tool_output r =
      bam_data({"graph-import", "--in", dir / "bad.el", "--out", dir / "out.csr"}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("bad.el: line 3: field 2 is not a non-negative integer: 'three'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(files_in(dir.path()), std::set<std::string>{"bad.el"});
  // An existing output file is left as it was.
  write_text(dir / "out.csr", "old");
  EXPECT_EQ(bam_data({"graph-import", "--in", dir / "bad.el", "--out", dir / "out.csr"}, dir).rc,
            2);
  EXPECT_EQ(read_file(dir / "out.csr"), "old");
  EXPECT_EQ(files_in(dir.path()), (std::set<std::string>{"bad.el", "out.csr"}));
}

TEST(BamData, TruncatedBinaryInputExits2NamingTheByte) {
  temp_dir dir;
  ASSERT_EQ(bam_data({"graph-gen", "urand", "--scale", "6", "--out", dir / "g.csr"}, dir).rc, 0);
  std::vector<char> b = read_bytes(dir / "g.csr");
  b.resize(b.size() - 100);
  write_bytes(dir / "g.csr", b);
  const tool_output r =
      bam_data({"graph-import", "--in", dir / "g.csr", "--out", dir / "o.el"}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("g.csr: byte " + std::to_string(b.size()) + ": the header says"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o.el"));
}

TEST(BamData, BadCommandLinesExit2) {
  temp_dir dir;
  EXPECT_EQ(bam_data({}, dir).rc, 2);
  EXPECT_EQ(bam_data({"graph-gen", "rmat", "--scale", "4", "--out", dir / "x.csr"}, dir).rc, 2);
  EXPECT_EQ(bam_data({"graph-gen", "kron", "--scale", "0", "--out", dir / "x.csr"}, dir).rc, 2);
  EXPECT_EQ(bam_data({"graph-gen", "kron", "--scale", "4"}, dir).rc, 2);
  EXPECT_EQ(bam_data({"graph-import", "--in", dir / "missing.el", "--out", dir / "x.csr"}, dir).rc,
            2);
  EXPECT_EQ(bam_data({"graph-import", "--in", dir / "x.graph", "--out", dir / "x.csr"}, dir).rc, 2);
  EXPECT_TRUE(files_in(dir.path()).empty());
  EXPECT_EQ(bam_data({"--help"}, dir).rc, 0);
}

TEST(BamData, UnwritableOutputExits1) {
  temp_dir dir;
  const tool_output r =
      bam_data({"graph-gen", "urand", "--scale", "4", "--out", dir / "no/such/dir/g.csr"}, dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("no/such/dir/g.csr"), std::string::npos) << r.err;
  EXPECT_TRUE(files_in(dir.path()).empty());
}

TEST(BamData, AWriteThatFailsHalfwayExits1AndLeavesTheOldFile) {
  // The file size limit makes every write past 32 KiB fail (EFBIG; SIGXFSZ ignored).
  temp_dir dir;
  for (const char* name : {"g.csr", "g.el"}) {
    write_text(dir / name, "old");
    const tool_output r =
        run_tool("/bin/sh",
                 {"-c", "ulimit -f 64; trap '' XFSZ; exec \"$0\" \"$@\"", BAM_DATA_BIN, "graph-gen",
                  "urand", "--scale", "14", "--out", dir / name},
                 dir);
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    EXPECT_EQ(read_file(dir / name), "old");
  }
  EXPECT_EQ(files_in(dir.path()), (std::set<std::string>{"g.csr", "g.el"}));
}

}  // namespace
}  // namespace bam::test
