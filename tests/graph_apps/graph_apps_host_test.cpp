// bfs and cc on CPU threads through the BaM cache over host emulated SSDs (run_on_host), on
// in-memory graphs: results equal to hand-computed ones and to the CPU references, with a cache
// much smaller than the neighbour array; the cache and traversal counts; the source rule; the
// configurations the host refuses.
#include <gtest/gtest.h>

#include <algorithm>

#include "bam/config/config_io.hpp"
#include "bam/graph/generate.hpp"
#include "graph_apps/graph_builders.hpp"
#include "graph_run.hpp"
#include "host_runner.hpp"
#include "reference.hpp"
#include "sources.hpp"

namespace bam::test {
namespace {

using apps::graph_algorithm;

/// Two host-emulated SSDs, a cache of 16 lines of 512 B (128 neighbour ids a line).
run_config host_config() {
  run_config c;
  c.storage.backend = backend_kind::host;
  c.storage.ssd_count = 2;
  c.storage.media.size_bytes = 1u << 20;
  c.queues.pairs_per_ssd = 2;
  c.queues.depth = 64;
  c.cache.line_size = 512;
  c.cache.capacity = 16 * 512;
  c.workload.threads = 4;
  validate(c);
  return c;
}

/// 0-1-2-3 a path (stored one way and back), 4 isolated, 5-6 with a self-loop on 5 and the edge
/// 5-6 twice, 7 -> 3 only one way (not symmetric).
graph::csr_graph small_directed() {
  return csr_of(
      8, {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 3}, {3, 2}, {5, 5}, {5, 6}, {5, 6}, {6, 5}, {7, 3}},
      false);
}

TEST(GraphAppsHost, BfsLevelsOfASmallGraphAreTheHandComputedOnes) {
  const graph::csr_graph g = small_directed();
  const apps::graph_outcome o =
      apps::run_on_host(graph_algorithm::bfs, g, host_config(), {0, 7}, true);
  EXPECT_EQ(o.first_levels, (std::vector<std::int32_t>{0, 1, 2, 3, -1, -1, -1, -1}));
  EXPECT_EQ(apps::reference_levels(g, 7), (std::vector<std::int32_t>{4, 3, 2, 1, -1, -1, -1, 0}));
  ASSERT_EQ(o.runs.size(), 2u);
  EXPECT_EQ(o.runs[0].steps, 4u);  // levels 0..3
  EXPECT_EQ(o.runs[0].reached, 4u);
  EXPECT_EQ(o.runs[0].reached_edges, 6u);
  EXPECT_EQ(o.runs[1].reached, 5u);  // 7 and the path
  EXPECT_TRUE(o.verified);
  EXPECT_EQ(o.verify.count, 0u) << o.verify.first;
}

TEST(GraphAppsHost, CcLabelsOfASmallGraphAreTheSmallestIdsOfTheirComponents) {
  const graph::csr_graph g = small_directed();
  const apps::graph_outcome o = apps::run_on_host(graph_algorithm::cc, g, host_config(), {}, true);
  // 7 -> 3 joins 7 to the path although stored one way; 4 alone; 5 and 6 together.
  EXPECT_EQ(o.labels, (std::vector<std::uint32_t>{0, 0, 0, 0, 4, 5, 5, 0}));
  EXPECT_EQ(apps::reference_components(g), o.labels);
  EXPECT_EQ(o.verify.count, 0u) << o.verify.first;
}

// The parallel references (what --verify uses) equal the plain sequential ones on graphs with
// many levels and components: kron and urand, symmetric and directed (kept as drawn), several
// thread counts and sources. Also under ThreadSanitizer (label unit).
TEST(GraphAppsReference, ParallelReferencesEqualTheSequentialOnes) {
  for (const auto kind : {graph::generator_kind::kron, graph::generator_kind::urand}) {
    for (const bool symmetric : {true, false}) {
      graph::generator_options o;
      o.kind = kind;
      o.scale = 12;
      // Sparse: many components and long paths (urand at 2 edges per vertex: a giant one and
      // many small ones).
      o.edge_factor = kind == graph::generator_kind::urand ? 1 : 4;
      o.seed = 5;
      o.edges.symmetrize = symmetric;
      const graph::csr_graph g = graph::generate(o);
      const std::vector<std::uint32_t> labels = apps::sequential_components(g);
      for (const unsigned threads : {1u, 2u, 5u}) {
        EXPECT_EQ(apps::reference_components(g, threads), labels)
            << to_string(kind) << (symmetric ? " symmetric" : " directed") << ", " << threads
            << " threads";
        for (const std::uint64_t source : {std::uint64_t{0}, g.vertex_count / 3}) {
          EXPECT_EQ(apps::reference_levels(g, source, threads), apps::sequential_levels(g, source))
              << to_string(kind) << (symmetric ? " symmetric" : " directed") << ", " << threads
              << " threads, source " << source;
        }
      }
      std::uint64_t components = 0;
      for (std::uint64_t v = 0; v < labels.size(); ++v)
        components += labels[v] == v ? 1 : 0;
      EXPECT_GT(components, 1u);  // the test covers more than one component
    }
  }
}

TEST(GraphAppsHost, SingleVertexAndEdgelessGraphs) {
  const graph::csr_graph one = csr_of(1, {}, true);
  apps::graph_outcome o = apps::run_on_host(graph_algorithm::bfs, one, host_config(), {0}, true);
  EXPECT_EQ(o.first_levels, std::vector<std::int32_t>{0});
  o = apps::run_on_host(graph_algorithm::cc, one, host_config(), {}, true);
  EXPECT_EQ(o.labels, std::vector<std::uint32_t>{0});
  const graph::csr_graph loops = csr_of(3, {{1, 1}}, true);  // a self-loop only
  o = apps::run_on_host(graph_algorithm::cc, loops, host_config(), {}, true);
  EXPECT_EQ(o.labels, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(GraphAppsHost, RandomGraphThroughASmallCacheMatchesTheReferences) {
  // 3000 vertices in 5 components, a hub of 5000 neighbours (40 lines), ~20 000 edges: the
  // neighbour array is ~10x the cache.
  const graph::csr_graph g = random_graph(3000, 5, 6, 5000, 7);
  ASSERT_GT(g.offsets[2] - g.offsets[1], 5000u);
  const run_config c = host_config();
  const std::vector<std::uint32_t> sources = apps::pick_sources(g, 3, 1);
  const apps::graph_outcome b = apps::run_on_host(graph_algorithm::bfs, g, c, sources, true);
  EXPECT_EQ(b.verify.count, 0u) << b.verify.first;
  EXPECT_EQ(b.first_levels, apps::reference_levels(g, sources[0]));
  std::uint32_t bottom_up = 0;
  for (const apps::traversal& t : b.runs)
    bottom_up += t.bottom_up_steps;
  EXPECT_GT(bottom_up, 0u) << "a symmetric graph with a large frontier goes bottom-up";
  EXPECT_GT(b.cache.evictions, 0u);
  EXPECT_EQ(b.cache.bytes_read, b.cache.reads * c.cache.line_size);
  EXPECT_EQ(b.cache.failed_accesses, 0u);
  EXPECT_EQ(b.io.errors, 0u);

  const apps::graph_outcome cc = apps::run_on_host(graph_algorithm::cc, g, c, {}, true);
  EXPECT_EQ(cc.verify.count, 0u) << cc.verify.first;
  const std::vector<std::uint32_t> want = apps::reference_components(g);
  EXPECT_EQ(cc.labels, want);
  std::vector<std::uint32_t> distinct = want;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_EQ(distinct.size(), 5u + (3000 + 16) / 17) << "5 components and the isolated vertices";
  // Each hooking round reads every neighbour element once.
  EXPECT_EQ(cc.runs[0].edges_read, std::uint64_t{cc.runs[0].steps} * g.edge_count());
}

TEST(GraphAppsHost, TopDownOnlyReadsEachReachedListOnce) {
  const graph::csr_graph g = random_graph(2000, 1, 8, 300, 3);
  run_config c = host_config();
  c.graph.direction_optimizing = false;
  const apps::graph_outcome o = apps::run_on_host(graph_algorithm::bfs, g, c, {1}, true);
  EXPECT_EQ(o.verify.count, 0u) << o.verify.first;
  EXPECT_EQ(o.runs[0].bottom_up_steps, 0u);
  EXPECT_EQ(o.runs[0].edges_read, o.runs[0].reached_edges);
}

TEST(GraphAppsHost, PreloadedRunsHitEveryAccess) {
  const graph::csr_graph g = random_graph(1000, 2, 6, 100, 5);  // ~3 100 edges: 25 lines
  run_config c = host_config();
  c.cache.capacity = 4 * 512;  // raised to the array's 25 lines for bam-preloaded
  c.graph.access = graph_access::bam_preloaded;
  const apps::graph_outcome o = apps::run_on_host(graph_algorithm::bfs, g, c, {1}, true);
  EXPECT_EQ(o.verify.count, 0u) << o.verify.first;
  EXPECT_EQ(o.cache.misses, 0u);
  EXPECT_EQ(o.cache.reads, 0u);
  EXPECT_GT(o.cache.hits, 0u);
  EXPECT_EQ(o.backend["cache_capacity"], (g.edge_count() * 4 + 511) / 512 * 512);
}

TEST(GraphAppsHost, RefusedConfigurationsNameTheirKey) {
  const graph::csr_graph g = random_graph(1000, 2, 6, 100, 5);
  run_config c = host_config();
  c.graph.access = graph_access::uvm;
  try {
    apps::run_on_host(graph_algorithm::bfs, g, c, {1}, false);
    FAIL() << "uvm on the host";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "graph.access");
  }
  c.graph.access = graph_access::bam;
  c.storage.media.size_bytes = 4096;  // far too little media
  try {
    apps::run_on_host(graph_algorithm::cc, g, c, {}, false);
    FAIL() << "media too small";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "storage.media.size_bytes");
  }
}

TEST(GraphAppsHost, AMismatchFailsTheRunUnlessReadsFailed) {
  const graph::csr_graph g = small_directed();
  run_config c = host_config();
  apps::graph_outcome o;
  o.sources = {0};
  std::vector<std::int32_t> levels = apps::reference_levels(g, 0);
  levels[3] = 7;  // a wrong level
  apps::verify_levels(o, g, 0, levels);
  o.runs.push_back(apps::traversal{});
  run_result r = apps::result_of(o, g, c);
  EXPECT_NE(r.error.find("vertex 3: level 7, the CPU reference 3"), std::string::npos) << r.error;
  EXPECT_EQ(r.tool_stats["graph"]["verify"]["mismatches"], 1);
  // With failed reads the mismatch is their consequence: exit 3 (errors), not 1.
  o.cache.failed_accesses = 2;
  r = apps::result_of(o, g, c);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.io_failed());
}

TEST(GraphAppsHost, NeighbourIdsThatAreNoVertexAreSkippedAndFailTheRun) {
  // The storage holds ids >= the vertex count (as stale or foreign data on an SSD would): the
  // steps must not index levels or labels with them, and the run must fail naming them.
  graph::csr_graph g;
  g.vertex_count = 4;
  g.offsets = {0, 1, 3, 3, 3};
  g.neighbours32 = {1, 9, 2};  // 1 -> 9 is no vertex
  const run_config c = host_config();
  for (const graph_algorithm a : {graph_algorithm::bfs, graph_algorithm::cc}) {
    apps::graph_outcome o = apps::run_on_host(a, g, c, {0}, false);
    ASSERT_EQ(o.runs.size(), 1u);
    EXPECT_GE(o.runs[0].bad_ids, 1u) << apps::to_string(a);
    const run_result r = apps::result_of(o, g, c);
    EXPECT_NE(r.error.find("neighbour ids that are no vertex of the graph"), std::string::npos)
        << r.error;
    EXPECT_GE(r.tool_stats["graph"]["bad_neighbour_ids"].get<std::uint64_t>(), 1u);
    if (a == graph_algorithm::bfs) {
      EXPECT_EQ(o.first_levels, (std::vector<std::int32_t>{0, 1, 2, -1}));  // 9 skipped
    }
  }
}

TEST(GraphAppsHost, GraphsOf2Pow32VerticesAreRefusedBeforeAnyWork) {
  // 4-byte vertex loops and ids: 2^32 - 1 vertices is the most (the check runs before the
  // arrays are looked at, so empty ones do).
  graph::csr_graph g;
  g.vertex_count = std::uint64_t{1} << 32;
  try {
    apps::run_on_host(graph_algorithm::cc, g, host_config(), {}, false);
    FAIL() << "2^32 vertices accepted";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "graph.file");
    EXPECT_NE(std::string(e.what()).find("at most 2^32 - 1"), std::string::npos) << e.what();
  }
}

TEST(GraphAppsHost, VerifyComparesWithTheReferenceOfTheGraphGivenNotOfAnEarlierOne) {
  // The references are kept between points of one graph: a second graph of the same shape
  // must get its own.
  const graph::csr_graph a = csr_of(4, {{0, 1}, {1, 2}, {2, 3}}, false);
  const graph::csr_graph b = csr_of(4, {{0, 3}, {3, 2}, {2, 1}}, false);
  const std::vector<std::int32_t> la = apps::reference_levels(a, 0);
  const std::vector<std::int32_t> lb = apps::reference_levels(b, 0);
  ASSERT_NE(la, lb);
  apps::graph_outcome o;
  apps::verify_levels(o, a, 0, la);
  EXPECT_EQ(o.verify.count, 0u);
  apps::verify_levels(o, b, 0, la);  // a's levels are wrong for b
  EXPECT_EQ(o.verify.count, 2u);     // vertices 1 and 3 differ
  apps::graph_outcome o2;
  apps::verify_levels(o2, b, 0, lb);
  apps::verify_levels(o2, a, 0, la);
  EXPECT_EQ(o2.verify.count, 0u);
}

TEST(GraphAppsConfig, GraphKeysParseRoundTripAndAreChecked) {
  const run_config c = parse_config(nlohmann::json::parse(
      R"({"graph": {"file": "g.mtx", "access": "host-zero-copy", "source": 7,
                    "dump": "l.txt", "direction_optimizing": false}})"));
  EXPECT_EQ(c.graph.file, "g.mtx");
  EXPECT_EQ(c.graph.access, graph_access::host_zero_copy);
  EXPECT_EQ(c.graph.source, std::optional<std::uint64_t>{7});
  EXPECT_FALSE(c.graph.direction_optimizing);
  EXPECT_EQ(parse_config(to_json(c)), c);
  EXPECT_TRUE(to_json(run_config{})["graph"]["source"].is_null()) << "no source by default";
  EXPECT_EQ(parse_config(to_json(run_config{})), run_config{});
  try {
    parse_config(nlohmann::json::parse(R"({"graph": {"access": "hbm"}})"));
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "graph.access");
    EXPECT_NE(std::string(e.what()).find("gpu-memory|host-zero-copy|uvm|bam|bam-preloaded"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_config(nlohmann::json::parse(R"({"graph": {"source": -1}})")), config_error);
  EXPECT_THROW(parse_config(nlohmann::json::parse(R"({"graph": {"sources": 0}})")), config_error);
  run_config both = c;
  both.graph.sources = 2;
  try {
    validate(both);
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "graph.sources");
  }
}

TEST(GraphAppsHost, SourcesFollowTheSeededRule) {
  const graph::csr_graph g = random_graph(500, 1, 6, 10, 9);
  const std::vector<std::uint32_t> a = apps::pick_sources(g, 8, 42);
  EXPECT_EQ(a, apps::pick_sources(g, 8, 42));
  EXPECT_NE(a, apps::pick_sources(g, 8, 43));
  std::vector<std::uint32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end()) << "distinct";
  for (const std::uint32_t v : a)
    EXPECT_GT(g.offsets[v + 1] - g.offsets[v], 2u);
  EXPECT_THROW(apps::pick_sources(csr_of(4, {{0, 1}, {1, 2}, {2, 3}}, true), 1, 1),
               config_error);  // a path: no degree > 2
  EXPECT_EQ(apps::pick_sources(small_directed(), 1, 1), std::vector<std::uint32_t>{5});
  run_config c;
  c.graph.source = 600;
  EXPECT_THROW(apps::sources_of(c, g), config_error);
  c.graph.source = 499;
  EXPECT_EQ(apps::sources_of(c, g), std::vector<std::uint32_t>{499});
}

}  // namespace
}  // namespace bam::test
