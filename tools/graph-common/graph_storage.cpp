// The checks of graph_storage.hpp.
#include "graph_storage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "bam/config/config_io.hpp"

namespace bam::apps {

void check_app_graph(const graph::csr_graph& g, const std::string& what) {
  // 4-byte ids and vertex loops: the largest id and the count itself must fit in 32 bits.
  if (g.wide() || g.vertex_count > std::numeric_limits<std::uint32_t>::max()) {
    throw config_error("graph.file",
                       fmt::format("{}: {} vertices; bfs and cc keep vertex ids and counts in 4 "
                                   "bytes, allowed at most 2^32 - 1 = 4294967295 vertices",
                                   what, g.vertex_count));
  }
  if (g.offsets.size() != g.vertex_count + 1 || g.neighbours32.size() != g.edge_count()) {
    throw config_error("graph.file",
                       fmt::format("{}: {} offsets and {} neighbours for {} "
                                   "vertices, allowed vertices + 1 offsets and "
                                   "offsets.back() neighbours",
                                   what, g.offsets.size(), g.neighbours32.size(), g.vertex_count));
  }
}

void check_fits(const graph::csr_graph& g, const run_config& c, std::uint64_t capacity) {
  const std::uint64_t need = neighbour_bytes(g);
  if (need <= capacity) return;
  const std::uint64_t per_ssd = (need + c.storage.ssd_count - 1) / c.storage.ssd_count;
  throw config_error(
      "storage.media.size_bytes",
      fmt::format("{} per SSD holds {} B of dataset on {} SSD(s), the graph's "
                  "neighbour array needs {} B, allowed at least about {} (plus a "
                  "stripe unit)",
                  c.storage.media.size_bytes, capacity, c.storage.ssd_count, need, per_ssd));
}

run_config storage_config_of(const run_config& c, const graph::csr_graph& g) {
  run_config out = c;
  if (c.graph.access != graph_access::bam_preloaded) return out;
  const std::uint64_t line = c.cache.line_size;
  const std::uint64_t bytes = (neighbour_bytes(g) + line - 1) / line * line;
  out.cache.capacity = std::max(c.cache.capacity, bytes);
  return out;
}

}  // namespace bam::apps
