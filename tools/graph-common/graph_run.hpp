// graph_run.hpp: API. What one bfs or cc point measured, the same for every backend (traversal
// times, steps, neighbour elements read, cache totals, the result vectors checked against the
// CPU reference), and the run_result the shared reports are made of.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/cache/cache_stats.hpp"
#include "bam/config/run_config.hpp"
#include "bam/graph/csr.hpp"
#include "bam/report/run_result.hpp"
#include "reference.hpp"

namespace bam::apps {

enum class graph_algorithm { bfs, cc };
const char* to_string(graph_algorithm a);

/// One bfs source, or the one cc run.
struct traversal {
  double seconds = 0;                 ///< wall time of the traversal (every level or round)
  std::uint32_t steps = 0;            ///< bfs levels, cc hooking rounds
  std::uint32_t bottom_up_steps = 0;  ///< bfs levels run bottom-up
  std::uint64_t edges_read = 0;       ///< neighbour elements the kernels read
  std::uint64_t reached = 0;          ///< bfs: vertices reached (cc: every vertex)
  std::uint64_t reached_edges = 0;    ///< bfs: edges of the reached vertices (cc: every edge)
  std::uint64_t bad_ids = 0;  ///< neighbour ids read from storage that are no vertex (skipped)
};

/// The cache's counters summed over the caches of a point (bam modes build one per source).
struct cache_totals {
  std::uint64_t hits = 0, misses = 0, reads = 0, bytes_read = 0, evictions = 0;
  std::uint64_t failed_accesses = 0, io_errors = 0;
  void add(const cache_stats& s);
};

struct graph_outcome {
  graph_algorithm algorithm = graph_algorithm::bfs;
  std::vector<std::uint32_t> sources;  ///< bfs, 0-based
  std::vector<traversal> runs;
  std::vector<std::int32_t> first_levels;  ///< bfs: the first source's levels
  std::vector<std::uint32_t> labels;       ///< cc
  bool verified = false;                   ///< compared with the CPU reference
  mismatch verify;                         ///< over every source
  bool has_cache = false;
  cache_totals cache;
  run_result io;  ///< the caches' failed I/Os (add_cache_errors), merged into the result
  nlohmann::json backend = nlohmann::json::object();  ///< storage, kernel, load times
};

/// Compares `levels` of `source` (or `labels`) with the CPU reference into o.verify.
void verify_levels(graph_outcome& o, const graph::csr_graph& g, std::uint32_t source,
                   const std::vector<std::int32_t>& levels);
void verify_labels(graph_outcome& o, const graph::csr_graph& g);
/// A bfs traversal's reached vertices and their edges, from its levels.
void count_reached(traversal& t, const graph::csr_graph& g, const std::vector<std::int32_t>& lv);

/// The report of a point: runtime = the traversals' total time; read I/Os and bytes = the
/// cache's line reads; tool_stats.graph = times, TEPS, amplification, steps, cache; verify
/// mismatches and neighbour ids that are no vertex (the storage holds other data than the
/// graph) make `error` (exit 1) unless I/Os failed (then exit 3 for those). Writes
/// graph.dump. Also keeps each access mode's time per (graph, sources, storage) so that the run
/// that completes gpu-memory, bam-preloaded and bam gets the paper's Figure 7 breakdown.
run_result result_of(graph_outcome& o, const graph::csr_graph& g, const run_config& c);

}  // namespace bam::apps
