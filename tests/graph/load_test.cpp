// The loaders: .el, .mtx and .col + .dst read what the file says (0- or 1-based ids, weights,
// symmetric matrices, comments), the edge options do what they say, round trips through the
// text formats give the same CSR, and each malformed input is refused naming its line or byte.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "bam/graph/csr_file.hpp"
#include "bam/graph/generate.hpp"
#include "bam/graph/summary.hpp"
#include "bam/graph/text_files.hpp"
#include "graph_test_util.hpp"

namespace bam::test {
namespace {

using edge_list = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

graph::csr_graph load_text(const temp_dir& dir, const std::string& name, const std::string& text,
                           graph::edge_options o = {}) {
  write_text(dir / name, text);
  return graph::load_graph(dir / name, o);
}

std::string error_of(const temp_dir& dir, const std::string& name, const std::string& text,
                     unsigned threads = 0) {
  write_text(dir / name, text);
  graph::edge_options o;
  o.threads = threads;
  return input_error_of([&] { graph::load_graph(dir / name, o); });
}

void expect_error(const std::string& e, const std::string& want) {
  EXPECT_NE(e.find(want), std::string::npos) << "error: " << e << "\nwanted: " << want;
}

// ---- .el ---------------------------------------------------------------------------------

TEST(EdgeList, ReadsEdgesCommentsAndBlankLinesRowsSorted) {
  temp_dir dir;
  const graph::csr_graph g = load_text(dir, "g.el",
                                       "# a comment\n"
                                       "% another\n"
                                       "2 1\n"
                                       "\n"
                                       "  0\t3  \r\n"
                                       "2 0\n"
                                       "0 3\n");
  EXPECT_EQ(g.vertex_count, 4u);  // the largest id + 1
  EXPECT_EQ(edges_of(g), (edge_list{{0, 3}, {0, 3}, {2, 0}, {2, 1}}));
  EXPECT_TRUE(g.weights.empty());
  EXPECT_EQ(g.id_base, 0u);
  EXPECT_FALSE(g.symmetric);
}

TEST(EdgeList, ReadsWeights) {
  temp_dir dir;
  const graph::csr_graph g = load_text(dir, "w.el", "1 0 2.5\n0 1 -1e3\n1 0 0.125\n");
  EXPECT_EQ(edges_of(g), (edge_list{{0, 1}, {1, 0}, {1, 0}}));
  EXPECT_EQ(g.weights, (std::vector<float>{-1000.0f, 0.125f, 2.5f}));  // sorted by weight in row
}

TEST(EdgeList, EmptyFileIsAnEmptyGraph) {
  temp_dir dir;
  const graph::csr_graph g = load_text(dir, "e.el", "# nothing\n");
  EXPECT_EQ(g.vertex_count, 0u);
  EXPECT_EQ(g.edge_count(), 0u);
}

TEST(EdgeList, MalformedLinesAreRefusedWithTheirLineNumber) {
  temp_dir dir;
  expect_error(error_of(dir, "a.el", "0 1\n1 x\n"),
               "a.el: line 2: field 2 is not a non-negative integer: 'x'");
  expect_error(error_of(dir, "b.el", "0 1\n\n# c\n-1 2\n"),
               "b.el: line 4: field 1 is not a non-negative integer: '-1'");
  expect_error(error_of(dir, "c.el", "0 1\n3\n"),
               "c.el: line 2: expected two vertex ids, found one");
  expect_error(error_of(dir, "d.el", "0 1 1.0\n1 2 3 4\n"),
               "d.el: line 2: unexpected text after the third field: '4'");
  expect_error(error_of(dir, "e.el", "0 1 1.0\n1 2\n"),
               "e.el: line 2: 2 fields where earlier lines have 3");
  expect_error(error_of(dir, "f.el", "0 1 nan\n"),
               "f.el: line 1: field 3 (weight) is not a finite number: 'nan'");
  expect_error(error_of(dir, "g.el", "0 1\n1 99999999999999999999999\n"),
               "g.el: line 2: vertex id '99999999999999999999999' is too large");
  expect_error(error_of(dir, "h.el", "0 1\n1 68719476736\n"),
               "h.el: line 2: vertex id 68719476736 is out of range");
  expect_error(error_of(dir, "h2.el", "0 1\n1 68719476735\n"),
               "h2.el: the largest vertex id 68719476735 makes 68719476736 vertices: their offsets "
               "alone need 524288 MiB");
  expect_error(error_of(dir, "i.el", "0 1.5\n"),
               "i.el: line 1: field 2 is not a non-negative integer: '1.5'");
  expect_error(error_of(dir, "j.el", "0 1 2.0x\n"),
               "j.el: line 1: field 3 (weight) is not a finite number: '2.0x'");
}

TEST(EdgeList, LineNumbersAreRightWhenManyThreadsParseChunks) {
  temp_dir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  text += "# comment\n5 five\n";
  for (int i = 0; i < 1000; ++i)
    text += "1 2\n";
  for (unsigned threads : {1u, 3u, 8u}) {
    expect_error(error_of(dir, "big.el", text, threads),
                 "big.el: line 20002: field 2 is not a non-negative integer: 'five'");
  }
  // Mixed field counts across chunks are found too, at the first line of the odd chunk.
  std::string mixed;
  for (int i = 0; i < 20000; ++i)
    mixed += "1 2\n";
  for (int i = 0; i < 20000; ++i)
    mixed += "1 2 3\n";
  expect_error(error_of(dir, "mixed.el", mixed, 4), "mixed.el: line ");
  expect_error(error_of(dir, "mixed.el", mixed, 1), "mixed.el: line 20001: 3 fields where");
}

TEST(EdgeList, SameGraphOnAnyThreadCount) {
  temp_dir dir;
  std::string text;
  for (std::uint64_t i = 0; i < 30000; ++i) {
    text += std::to_string((i * 7919) % 3001) + " " + std::to_string((i * 104729) % 2999) + " " +
            std::to_string(static_cast<double>(i % 17) / 4) + "\n";
  }
  write_text(dir / "t.el", text);
  graph::edge_options one, many;
  one.threads = 1;
  many.threads = 5;
  const graph::csr_graph a = graph::load_graph(dir / "t.el", one);
  const graph::csr_graph b = graph::load_graph(dir / "t.el", many);
  EXPECT_EQ(a.edge_count(), 30000u);
  expect_same_graph(a, b);
}

// ---- edge options ------------------------------------------------------------------------

TEST(EdgeOptions, SymmetrizeDropSelfLoopsDedup) {
  temp_dir dir;
  const std::string text = "0 1\n0 1\n1 1\n2 0\n1 0\n";
  graph::edge_options o;
  EXPECT_EQ(edges_of(load_text(dir, "o.el", text, o)),
            (edge_list{{0, 1}, {0, 1}, {1, 0}, {1, 1}, {2, 0}}));
  o.symmetrize = true;  // a self-loop is its own reverse: added once
  const graph::csr_graph s = load_text(dir, "o.el", text, o);
  EXPECT_TRUE(s.symmetric);
  EXPECT_EQ(edges_of(s),
            (edge_list{{0, 1}, {0, 1}, {0, 1}, {0, 2}, {1, 0}, {1, 0}, {1, 0}, {1, 1}, {2, 0}}));
  o.drop_self_loops = true;
  o.dedup = true;
  EXPECT_EQ(edges_of(load_text(dir, "o.el", text, o)), (edge_list{{0, 1}, {0, 2}, {1, 0}, {2, 0}}));
  o.symmetrize = false;
  EXPECT_EQ(edges_of(load_text(dir, "o.el", text, o)), (edge_list{{0, 1}, {1, 0}, {2, 0}}));
}

TEST(EdgeOptions, DedupKeepsTheSmallestWeight) {
  temp_dir dir;
  graph::edge_options o;
  o.dedup = true;
  const graph::csr_graph g = load_text(dir, "w.el", "0 1 5\n0 1 2\n0 2 1\n0 1 3\n", o);
  EXPECT_EQ(edges_of(g), (edge_list{{0, 1}, {0, 2}}));
  EXPECT_EQ(g.weights, (std::vector<float>{2.0f, 1.0f}));
}

TEST(EdgeOptions, DedupOfACsrWithNanWeightsIsDeterministic) {
  // A .csr may hold any float; rows sort in IEEE total order (NaN after +inf), the smallest kept.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const graph::csr_graph g = graph_of({{1, 1, 1, 0}, {0}}, {nan, 2.0f, -1.0f, nan, 3.0f});
  graph::edge_options o;
  o.dedup = true;
  const graph::csr_graph d = graph::apply_edge_options(g, o);
  EXPECT_EQ(edges_of(d), (edge_list{{0, 0}, {0, 1}, {1, 0}}));
  ASSERT_EQ(d.weights.size(), 3u);
  EXPECT_TRUE(std::isnan(d.weights[0]));
  EXPECT_EQ(d.weights[1], -1.0f);
  EXPECT_EQ(d.weights[2], 3.0f);
}

TEST(EdgeOptions, AppliedToACsrFileAndByApplyEdgeOptions) {
  temp_dir dir;
  graph::csr_graph g = graph_of({{1, 1, 0}, {}, {1}});
  graph::write_csr(g, dir / "g.csr");
  graph::edge_options o;
  o.symmetrize = o.dedup = o.drop_self_loops = true;
  const graph::csr_graph l = graph::load_graph(dir / "g.csr", o);
  EXPECT_EQ(edges_of(l), (edge_list{{0, 1}, {1, 0}, {1, 2}, {2, 1}}));
  EXPECT_TRUE(l.symmetric);
  expect_same_graph(l, graph::apply_edge_options(g, o));
  // No option: the graph as stored.
  expect_same_graph(graph::apply_edge_options(g, {}), g);
}

// ---- .mtx --------------------------------------------------------------------------------

TEST(MatrixMarket, GeneralPatternOneBasedIds) {
  temp_dir dir;
  const graph::csr_graph g = load_text(dir, "g.mtx",
                                       "%%MatrixMarket matrix coordinate pattern general\n"
                                       "% comment\n"
                                       "%\n"
                                       "4 4 3\n"
                                       "1 2\n"
                                       "4 1\n"
                                       "2 4\n");
  EXPECT_EQ(g.vertex_count, 4u);
  EXPECT_EQ(g.id_base, 1u);
  EXPECT_FALSE(g.symmetric);
  EXPECT_TRUE(g.weights.empty());
  EXPECT_EQ(edges_of(g), (edge_list{{0, 1}, {1, 3}, {3, 0}}));
}

TEST(MatrixMarket, SymmetricRealExpandsBothDirectionsDiagonalOnce) {
  temp_dir dir;
  const graph::csr_graph g = load_text(dir, "s.mtx",
                                       "%%MatrixMarket matrix coordinate real symmetric\n"
                                       "3 3 3\n"
                                       "2 1 0.5\n"
                                       "3 3 7\n"
                                       "3 1 -2.25\n");
  EXPECT_TRUE(g.symmetric);
  EXPECT_EQ(edges_of(g), (edge_list{{0, 1}, {0, 2}, {1, 0}, {2, 0}, {2, 2}}));
  EXPECT_EQ(g.weights, (std::vector<float>{0.5f, -2.25f, 0.5f, -2.25f, 7.0f}));
}

TEST(MatrixMarket, IntegerValuesAreWeightsAndKeywordsAnyCase) {
  temp_dir dir;
  const graph::csr_graph g = load_text(dir, "i.mtx",
                                       "%%MatrixMarket Matrix Coordinate INTEGER General\n"
                                       "2 2 2\n1 2 3\n2 1 -4\n");
  EXPECT_EQ(edges_of(g), (edge_list{{0, 1}, {1, 0}}));
  EXPECT_EQ(g.weights, (std::vector<float>{3.0f, -4.0f}));
}

TEST(MatrixMarket, MalformedInputIsRefusedWithItsLine) {
  temp_dir dir;
  const std::string banner = "%%MatrixMarket matrix coordinate pattern general\n";
  expect_error(error_of(dir, "a.mtx", "hello\n"), "a.mtx: line 1: not a Matrix Market file");
  expect_error(error_of(dir, "b.mtx", "%%MatrixMarket matrix array real general\n2 2\n"),
               "b.mtx: line 1: format 'array' is not supported");
  expect_error(error_of(dir, "c.mtx", "%%MatrixMarket matrix coordinate complex general\n"),
               "c.mtx: line 1: field 'complex' is not supported");
  expect_error(error_of(dir, "d.mtx", "%%MatrixMarket matrix coordinate real hermitian\n"),
               "d.mtx: line 1: symmetry 'hermitian' is not supported");
  expect_error(error_of(dir, "e.mtx", banner + "% c\n3 4 1\n1 2\n"),
               "e.mtx: line 3: the matrix is not square (3 rows, 4 columns)");
  expect_error(error_of(dir, "f.mtx", banner + "3 3 2\n1 2\n0 1\n"),
               "f.mtx: line 4: vertex id 0 is out of range 1..3");
  expect_error(error_of(dir, "g.mtx", banner + "3 3 2\n1 2\n1 4\n"),
               "g.mtx: line 4: vertex id 4 is out of range 1..3");
  expect_error(error_of(dir, "h.mtx", banner + "3 3 2\n1 2\n2 3\n% c\n3 1\n"),
               "h.mtx: line 6: more entries than the 2 the size line (line 2) states");
  expect_error(error_of(dir, "i.mtx", banner + "3 3 4\n1 2\n2 3\n"),
               "i.mtx: line 4: the file ends after 2 entries; the size line (line 2) states 4");
  expect_error(error_of(dir, "j.mtx", banner + "3 3 1\n1 2 1.0\n"),
               "j.mtx: line 3: expected 2 fields, found 3");
  expect_error(
      error_of(dir, "k.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2\n"),
      "k.mtx: line 3: expected 3 fields, found 2");
  expect_error(error_of(dir, "l.mtx", banner + "3 x 1\n"),
               "l.mtx: line 2: size field 2 is not a non-negative integer: 'x'");
  expect_error(error_of(dir, "m.mtx", banner + "% only comments\n"),
               "m.mtx: line 3: the file ends before the size line");
  expect_error(error_of(dir, "n.mtx", ""), "n.mtx: line 1: empty file");
  // A size line claiming more vertices than this machine could hold the offsets of.
  expect_error(error_of(dir, "o.mtx", banner + "68719476736 68719476736 0\n"),
               "o.mtx: line 2: 68719476736 vertices: their offsets alone need");
}

// ---- .col + .dst -------------------------------------------------------------------------

std::vector<char> counted_file(const std::vector<std::uint64_t>& values, std::uint64_t count) {
  std::vector<char> b(16 + values.size() * 8);
  const std::uint64_t type = 8;
  std::memcpy(b.data(), &count, 8);
  std::memcpy(b.data() + 8, &type, 8);
  std::memcpy(b.data() + 16, values.data(), values.size() * 8);
  return b;
}

TEST(ColDst, ReadsEmogiBinaryCsr) {
  temp_dir dir;
  write_bytes(dir / "g.bel.col", counted_file({0, 2, 2, 3}, 4));
  write_bytes(dir / "g.bel.dst", counted_file({1, 2, 0}, 3));
  const graph::csr_graph g = graph::load_graph(dir / "g.bel.col");
  EXPECT_EQ(g.vertex_count, 3u);
  EXPECT_EQ(edges_of(g), (edge_list{{0, 1}, {0, 2}, {2, 0}}));
  graph::edge_options o;
  o.symmetrize = o.dedup = true;
  EXPECT_EQ(edges_of(graph::load_graph(dir / "g.bel.col", o)),
            (edge_list{{0, 1}, {0, 2}, {1, 0}, {2, 0}}));
}

TEST(ColDst, MalformedFilesAreRefusedWithTheirByteOffset) {
  temp_dir dir;
  const std::string col = dir / "g.col", dst = dir / "g.dst";
  write_bytes(dst, counted_file({1, 2, 0}, 3));
  write_bytes(col, counted_file({0, 2, 2}, 4));  // one offset short: truncated
  expect_error(input_error_of([&] { graph::load_graph(col); }),
               "g.col: byte 40: the header (byte 0) counts 4 offsets, the file holds 24 bytes of "
               "them (truncated)");
  write_bytes(col, std::vector<char>(10));
  expect_error(input_error_of([&] { graph::load_graph(col); }),
               "g.col: byte 10: the file is 10 bytes, shorter than the 16-byte header");
  write_bytes(col, counted_file({0, 2, 1, 3}, 4));
  expect_error(input_error_of([&] { graph::load_graph(col); }),
               "g.col: byte 32: offsets[2] = 1 is less than offsets[1] = 2");
  write_bytes(col, counted_file({0, 2, 2, 2}, 4));
  expect_error(input_error_of([&] { graph::load_graph(col); }),
               "g.col: byte 40: the last offset is 2, but");
  write_bytes(col, counted_file({0, 2, 2, 3}, 4));
  write_bytes(dst, counted_file({1, 7, 0}, 3));
  expect_error(input_error_of([&] { graph::load_graph(col); }),
               "g.dst: byte 24: neighbour 7 (edge 1) >= vertex count 3");
  std::filesystem::remove(dst);
  expect_error(input_error_of([&] { graph::load_graph(col); }), "g.dst: cannot open");
}

/// The CSR invariants: offsets from 0, monotone, to the edge count; every id in range.
void expect_valid(const graph::csr_graph& g) {
  ASSERT_EQ(g.offsets.size(), g.vertex_count + 1);
  EXPECT_EQ(g.offsets[0], 0u);
  for (std::uint64_t u = 0; u < g.vertex_count; ++u)
    ASSERT_LE(g.offsets[u], g.offsets[u + 1]);
  ASSERT_EQ(g.neighbours32.size(), g.edge_count());
  for (std::uint32_t v : g.neighbours32)
    ASSERT_LT(v, g.vertex_count);
  EXPECT_TRUE(g.weights.empty() || g.weights.size() == g.edge_count());
}

TEST(LoadGraph, MutatedTextIsLoadedConsistentlyOrRefusedAsInputError) {
  temp_dir dir;
  const std::string el = "# c\n0 1 0.5\n1 2 1.5\n2 0 2\n3 3 -1\n% d\n4 0 7e1\n";
  const std::string mtx =
      "%%MatrixMarket matrix coordinate real symmetric\n% c\n5 5 4\n1 2 0.5\n3 2 1\n5 5 "
      "2\n4 1 -3\n";
  const char alphabet[] = "0123456789 \t\n\r-+.ex%#a";
  std::mt19937_64 rng(11);
  int loaded = 0, refused = 0;
  for (int k = 0; k < 600; ++k) {
    const bool is_el = k % 2 == 0;
    std::string text = is_el ? el : mtx;
    for (int m = 0, n = 1 + static_cast<int>(rng() % 3); m < n; ++m) {
      const std::size_t at = rng() % text.size();
      const char c = alphabet[rng() % (sizeof alphabet - 1)];
      switch (rng() % 3) {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          text.erase(at, 1);
      }
    }
    const std::string name = is_el ? "m.el" : "m.mtx";
    write_text(dir / name, text);
    try {
      graph::edge_options o;
      o.threads = 1 + k % 3;
      expect_valid(graph::load_graph(dir / name, o));
      ++loaded;
    } catch (const graph::input_error& e) {
      EXPECT_NE(std::string(e.what()).find(name + ": line "), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(loaded, 20);
  EXPECT_GT(refused, 100);
}

TEST(LoadGraph, UnknownExtensionIsAnInputError) {
  temp_dir dir;
  write_text(dir / "g.txt", "0 1\n");
  expect_error(input_error_of([&] { graph::load_graph(dir / "g.txt"); }),
               "g.txt: unknown graph format '.txt'");
}

TEST(Summary, CountsDegreesIsolatedVerticesAndSelfLoops) {
  const graph::csr_graph g = graph_of({{1, 2}, {}, {0, 2, 2}, {}, {4}});
  for (unsigned threads : {1u, 4u}) {
    const graph::graph_summary s = graph::summarize(g, threads);
    EXPECT_EQ(s.max_degree, 3u);
    EXPECT_EQ(s.max_degree_vertex, 2u);
    EXPECT_EQ(s.isolated, 2u);
    EXPECT_EQ(s.self_loops, 3u);
  }
}

// ---- round trips -------------------------------------------------------------------------

graph::csr_graph test_graph(bool weighted) {
  graph::generator_options o;
  o.kind = graph::generator_kind::urand;
  o.scale = 9;
  o.edge_factor = 8;
  o.seed = 3;
  graph::csr_graph g = graph::generate(o);
  if (weighted) {  // the same weight both ways, as a symmetric matrix has
    g.weights.resize(g.edge_count());
    for (std::uint64_t u = 0; u < g.vertex_count; ++u) {
      for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
        const std::uint64_t v = g.neighbour(i);
        g.weights[i] =
            static_cast<float>((std::min(u, v) * 31 + std::max(u, v) * 17) % 101) / 7.0f - 3.0f;
      }
    }
  }
  return g;
}

/// Every other edge of each row of g: a directed graph.
graph::csr_graph directed_part(const graph::csr_graph& g) {
  graph::csr_graph d;
  d.vertex_count = g.vertex_count;
  d.offsets.push_back(0);
  for (std::uint64_t u = 0; u < g.vertex_count; ++u) {
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; i += 2) {
      d.neighbours32.push_back(g.neighbours32[i]);
      if (!g.weights.empty()) d.weights.push_back(g.weights[i]);
    }
    d.offsets.push_back(d.neighbours32.size());
  }
  return d;
}

TEST(RoundTrip, CsrToElToCsrIsIdentical) {
  temp_dir dir;
  for (bool weighted : {false, true}) {
    const graph::csr_graph g = test_graph(weighted);
    ASSERT_GT(g.offsets[g.vertex_count] - g.offsets[g.vertex_count - 1], 0u)
        << "the last vertex needs an edge for .el to keep the vertex count";
    graph::write_csr(g, dir / "g.csr");
    graph::write_edge_list(graph::load_graph(dir / "g.csr"), dir / "g.el");
    const graph::csr_graph r = graph::load_graph(dir / "g.el");
    expect_same_graph(g, r);
    graph::csr_graph back = r;
    back.symmetric = true;  // .el does not say; the rest of the file is the same byte for byte
    graph::write_csr(back, dir / "r.csr");
    EXPECT_EQ(read_bytes(dir / "g.csr"), read_bytes(dir / "r.csr"));
  }
}

TEST(RoundTrip, CsrToMtxToCsrIsIdenticalSymmetricAndGeneral) {
  temp_dir dir;
  for (bool weighted : {false, true}) {
    for (bool symmetric : {true, false}) {
      graph::csr_graph g = test_graph(weighted);
      if (!symmetric) g = directed_part(g);
      EXPECT_EQ(g.symmetric, symmetric);
      graph::write_matrix_market(g, dir / "g.mtx", 3);
      const std::string text = test::read_file(dir / "g.mtx");
      EXPECT_NE(text.find(symmetric ? " symmetric\n" : " general\n"), std::string::npos);
      EXPECT_NE(text.find(weighted ? " real " : " pattern "), std::string::npos);
      const graph::csr_graph r = graph::load_graph(dir / "g.mtx");
      expect_same_graph(g, r);
      EXPECT_EQ(r.symmetric, symmetric);
      EXPECT_EQ(r.id_base, 1u);
    }
  }
}

}  // namespace
}  // namespace bam::test
