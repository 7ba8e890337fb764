// graph_storage.hpp: API. Where bfs and cc put the graph for the bam modes: the neighbour array
// as one region of the storage context (the vertex offsets stay in the application's memory, as
// in BaM and EMOGI), and the checks that the kernels can run on a graph, that it fits on the
// SSDs, and bam-preloaded's cache size. (No fmt here: nvcc compiles this header.)
#pragma once
#include <cstdint>
#include <string>

#include "bam/config/run_config.hpp"
#include "bam/graph/csr.hpp"

namespace bam::apps {

inline constexpr const char* neighbours_region = "graph.neighbours";

/// config_error("graph.file") unless the kernels can run on `g`: ids fit 32 bits (the neighbour
/// arrays the kernels read are 4-byte; graphs of 2^32 vertices or more are not supported) and
/// the offsets are consistent.
void check_app_graph(const graph::csr_graph& g, const std::string& what);

/// Bytes of the neighbour array (4-byte ids); at least one element's room for an edgeless graph.
inline std::uint64_t neighbour_bytes(const graph::csr_graph& g) {
  const std::uint64_t b = g.edge_count() * sizeof(std::uint32_t);
  return b == 0 ? sizeof(std::uint32_t) : b;
}

/// config_error("storage.media.size_bytes") unless the neighbour array fits in `capacity` bytes
/// of dataset (whole stripe units over the SSDs).
void check_fits(const graph::csr_graph& g, const run_config& c, std::uint64_t capacity);

/// The config a run opens its storage with: `c`, but for bam-preloaded a cache.capacity of at
/// least the neighbour array's lines (the mode's point is a cache that holds everything, so a
/// cache.capacity meant for bam, swept alongside, does not make it miss).
run_config storage_config_of(const run_config& c, const graph::csr_graph& g);

/// Lays the neighbour array out on the context's SSDs (before build_cache).
template <class Ctx>
void put_graph(Ctx& ctx, const graph::csr_graph& g, const run_config& c) {
  check_fits(g, c, ctx.data().capacity_bytes());
  ctx.add_region(neighbours_region, neighbour_bytes(g));
  if (g.edge_count() != 0)
    ctx.write_region(neighbours_region, g.neighbours32.data(), g.edge_count() * 4);
}

}  // namespace bam::apps
