// dump.hpp: API. The per-vertex result files of bfs (--dump-levels) and cc (--dump-components):
// one line "vertex value" per vertex in ascending vertex order, ids as the input file writes them
// (0-based id + id_base). Written to FILE.tmp and renamed, so a failed write leaves no partial
// FILE; std::runtime_error naming the file when it cannot be written.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bam::apps {

/// "vertex level", level -1 where unreachable.
void write_levels(const std::string& path, const std::vector<std::int32_t>& levels,
                  std::uint32_t id_base);
/// "vertex label", labels 0-based like the vertices (id_base added to both).
void write_labels(const std::string& path, const std::vector<std::uint32_t>& labels,
                  std::uint32_t id_base);

}  // namespace bam::apps
