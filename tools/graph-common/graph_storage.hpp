// graph_storage.hpp: API. Where bfs and cc put the graph for the bam modes: the neighbour array
// as one region of the storage context (the vertex offsets stay in the application's memory, as
// in BaM and EMOGI), checks that it fits on the SSDs and, for bam-preloaded, in the cache.
#pragma once
#include <cstdint>

#include <fmt/format.h>

#include "bam/config/config_io.hpp"
#include "bam/graph/csr.hpp"

namespace bam::apps {

inline constexpr const char* neighbours_region = "graph.neighbours";

/// config_error("graph.file") unless the kernels can run on `g`: ids fit 32 bits (the neighbour
/// arrays the kernels read are 4-byte; graphs of more than 2^32 vertices are not supported) and
/// the offsets are consistent.
inline void check_app_graph(const graph::csr_graph& g, const std::string& what) {
  if (g.wide()) {
    throw config_error("graph.file",
                       fmt::format("{}: {} vertices; bfs and cc read 4-byte neighbour ids, "
                                   "allowed at most 2^32 vertices",
                                   what, g.vertex_count));
  }
  if (g.offsets.size() != g.vertex_count + 1 || g.neighbours32.size() != g.edge_count()) {
    throw config_error("graph.file", fmt::format("{}: {} offsets and {} neighbours for {} "
                                                 "vertices, allowed vertices + 1 offsets and "
                                                 "offsets.back() neighbours",
                                                 what, g.offsets.size(), g.neighbours32.size(),
                                                 g.vertex_count));
  }
}

/// Bytes of the neighbour array (4-byte ids); at least one element's room for an edgeless graph.
inline std::uint64_t neighbour_bytes(const graph::csr_graph& g) {
  const std::uint64_t b = g.edge_count() * sizeof(std::uint32_t);
  return b == 0 ? sizeof(std::uint32_t) : b;
}

/// config_error("storage.media.size_bytes") unless the neighbour array fits in `capacity` bytes
/// of dataset (whole stripe units over the SSDs).
inline void check_fits(const graph::csr_graph& g, const run_config& c, std::uint64_t capacity) {
  const std::uint64_t need = neighbour_bytes(g);
  if (need <= capacity) return;
  const std::uint64_t per_ssd = (need + c.storage.ssd_count - 1) / c.storage.ssd_count;
  throw config_error("storage.media.size_bytes",
                     fmt::format("{} per SSD holds {} B of dataset on {} SSD(s), the graph's "
                                 "neighbour array needs {} B, allowed at least about {} (plus a "
                                 "stripe unit)",
                                 c.storage.media.size_bytes, capacity, c.storage.ssd_count, need,
                                 per_ssd));
}

/// config_error("cache.capacity") when bam-preloaded's cache cannot hold every line.
inline void check_preload_fits(const graph::csr_graph& g, const run_config& c) {
  const std::uint64_t lines = (neighbour_bytes(g) + c.cache.line_size - 1) / c.cache.line_size;
  if (c.graph.access != graph_access::bam_preloaded || lines * c.cache.line_size <= c.cache.capacity)
    return;
  throw config_error("cache.capacity",
                     fmt::format("{} B is smaller than the neighbour array ({} lines of {} B); "
                                 "bam-preloaded keeps every line in the cache, allowed at least "
                                 "{}",
                                 c.cache.capacity, lines, c.cache.line_size,
                                 lines * c.cache.line_size));
}

/// Lays the neighbour array out on the context's SSDs (before build_cache).
template <class Ctx>
void put_graph(Ctx& ctx, const graph::csr_graph& g, const run_config& c) {
  check_fits(g, c, ctx.data().capacity_bytes());
  ctx.add_region(neighbours_region, neighbour_bytes(g));
  if (g.edge_count() != 0)
    ctx.write_region(neighbours_region, g.neighbours32.data(), g.edge_count() * 4);
}

}  // namespace bam::apps
