// The generators: the same graph byte for byte on any thread count; by default symmetric,
// without self-loops or duplicates (and the flags keep them); kron's skewed degrees against
// urand's even ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "bam/graph/csr_file.hpp"
#include "bam/graph/generate.hpp"
#include "graph_test_util.hpp"

namespace bam::test {
namespace {

graph::generator_options options(graph::generator_kind kind, unsigned scale, unsigned threads) {
  graph::generator_options o;
  o.kind = kind;
  o.scale = scale;
  o.edge_factor = 16;
  o.seed = 42;
  o.edges.threads = threads;
  return o;
}

bool has_edge(const graph::csr_graph& g, std::uint64_t u, std::uint64_t v) {
  const auto b = g.neighbours32.begin() + static_cast<std::ptrdiff_t>(g.offsets[u]);
  const auto e = g.neighbours32.begin() + static_cast<std::ptrdiff_t>(g.offsets[u + 1]);
  return std::binary_search(b, e, static_cast<std::uint32_t>(v));
}

struct degree_stats {
  std::uint64_t max = 0, isolated = 0;
  double mean = 0;
};

degree_stats degrees(const graph::csr_graph& g) {
  degree_stats s;
  for (std::uint64_t u = 0; u < g.vertex_count; ++u) {
    const std::uint64_t d = g.offsets[u + 1] - g.offsets[u];
    s.max = std::max(s.max, d);
    s.isolated += d == 0;
  }
  s.mean = static_cast<double>(g.edge_count()) / static_cast<double>(g.vertex_count);
  return s;
}

TEST(Generate, ByteIdenticalFilesOnOneAndFourThreads) {
  temp_dir dir;
  for (auto kind : {graph::generator_kind::kron, graph::generator_kind::urand}) {
    const graph::csr_graph a = graph::generate(options(kind, 14, 1));
    const graph::csr_graph b = graph::generate(options(kind, 14, 4));
    expect_same_graph(a, b);
    graph::write_csr(a, dir / "a.csr");
    graph::write_csr(b, dir / "b.csr");
    EXPECT_EQ(read_bytes(dir / "a.csr"), read_bytes(dir / "b.csr"));
    // Another seed gives another graph.
    graph::generator_options o = options(kind, 14, 4);
    o.seed = 43;
    EXPECT_NE(graph::generate(o).neighbours32, a.neighbours32);
  }
}

TEST(Generate, DefaultIsSymmetricWithoutSelfLoopsOrDuplicates) {
  for (auto kind : {graph::generator_kind::kron, graph::generator_kind::urand}) {
    const graph::csr_graph g = graph::generate(options(kind, 11, 0));
    EXPECT_EQ(g.vertex_count, 2048u);
    EXPECT_TRUE(g.symmetric);
    EXPECT_FALSE(g.wide());
    EXPECT_LE(g.edge_count(), 2u * 16 * 2048);
    EXPECT_GT(g.edge_count(), 16u * 2048 / 2);
    for (std::uint64_t u = 0; u < g.vertex_count; ++u) {
      for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
        const std::uint64_t v = g.neighbour(i);
        ASSERT_NE(v, u) << "self-loop at " << u;
        if (i > g.offsets[u]) {
          ASSERT_LT(g.neighbour(i - 1), v) << "row " << u << " not strictly sorted";
        }
        ASSERT_TRUE(has_edge(g, v, u)) << u << " -> " << v << " has no reverse";
      }
    }
  }
}

TEST(Generate, FlagsKeepSelfLoopsDuplicatesAndDirection) {
  auto o = options(graph::generator_kind::kron, 10, 2);
  const graph::csr_graph def = graph::generate(o);
  o.edges.drop_self_loops = false;
  o.edges.dedup = false;
  o.edges.symmetrize = false;
  const graph::csr_graph raw = graph::generate(o);
  // Directed and raw: exactly the drawn edges, each in its source's row.
  EXPECT_EQ(raw.edge_count(), 16u << 10);
  EXPECT_FALSE(raw.symmetric);
  std::uint64_t loops = 0, dups = 0;
  for (std::uint64_t u = 0; u < raw.vertex_count; ++u) {
    for (std::uint64_t i = raw.offsets[u]; i < raw.offsets[u + 1]; ++i) {
      loops += raw.neighbour(i) == u;
      dups += i > raw.offsets[u] && raw.neighbour(i - 1) == raw.neighbour(i);
    }
  }
  EXPECT_GT(loops, 0u) << "kron draws self-loops at this size";
  EXPECT_GT(dups, 0u) << "kron draws duplicates at this size";
  for (std::uint64_t e = 0; e < 100; ++e) {
    const graph::drawn_edge d = graph::draw_edge(o, e);
    EXPECT_TRUE(has_edge(raw, d.u, d.v)) << "drawn edge " << e;
    if (d.u != d.v) {
      EXPECT_TRUE(has_edge(def, d.u, d.v) && has_edge(def, d.v, d.u));
    }
  }
  o.edges.symmetrize = true;
  const graph::csr_graph sym_raw = graph::generate(o);
  EXPECT_EQ(sym_raw.edge_count(), 2 * raw.edge_count() - loops);  // a loop is its own reverse
  EXPECT_LT(def.edge_count(), sym_raw.edge_count());
}

TEST(Generate, KronDegreesAreSkewedUrandDegreesAreEven) {
  const graph::csr_graph k = graph::generate(options(graph::generator_kind::kron, 14, 0));
  const graph::csr_graph u = graph::generate(options(graph::generator_kind::urand, 14, 0));
  const degree_stats ks = degrees(k), us = degrees(u);
  // urand: degrees near the mean 2 * 16 (binomial); almost no vertex isolated.
  EXPECT_NEAR(us.mean, 32.0, 1.0);
  EXPECT_LT(static_cast<double>(us.max), 2.5 * us.mean);
  EXPECT_LT(us.isolated, 5u);
  // kron: hubs with hundreds of times the mean degree, and many isolated vertices.
  EXPECT_GT(static_cast<double>(ks.max), 50 * ks.mean);
  EXPECT_GT(ks.isolated, k.vertex_count / 10);
  // The permutation spreads the hubs: the largest-degree vertex is not vertex 0 (where the
  // unpermuted recursive matrix puts it), and the top 1% of ids hold about 1% of the edges.
  std::uint64_t top = 0;
  for (std::uint64_t v = 0; v < k.vertex_count; ++v) {
    if (k.offsets[v + 1] - k.offsets[v] == ks.max) top = v;
  }
  EXPECT_NE(top, 0u);
  const std::uint64_t first = k.vertex_count - k.vertex_count / 100;
  const double share =
      static_cast<double>(k.edge_count() - k.offsets[first]) / static_cast<double>(k.edge_count());
  EXPECT_LT(share, 0.05);
}

TEST(Generate, RefusesScaleAndEdgeFactorOutOfRange) {
  auto o = options(graph::generator_kind::urand, 0, 1);
  EXPECT_THROW(graph::generate(o), std::invalid_argument);
  o.scale = graph::max_generator_scale + 1;
  EXPECT_THROW(graph::generate(o), std::invalid_argument);
  o.scale = 4;
  o.edge_factor = 0;
  EXPECT_THROW(graph::generate(o), std::invalid_argument);
  EXPECT_THROW(graph::parse_generator_kind("rmat"), std::invalid_argument);
  EXPECT_EQ(graph::parse_generator_kind("kron"), graph::generator_kind::kron);
}

}  // namespace
}  // namespace bam::test
