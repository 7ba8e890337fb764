// graph/load_text.hpp: internal. The text loaders: `.el` edge lists and `.mtx` Matrix Market
// coordinate files, parsed in parallel over a mapping of the file.
#pragma once
#include <filesystem>

#include "bam/graph/csr.hpp"

namespace bam::graph::detail {

/// The largest vertex count a text loader accepts (ids beyond it are refused, naming the line).
inline constexpr std::uint64_t max_text_vertices = std::uint64_t{1} << 36;

csr_graph load_edge_list(const std::filesystem::path& file, const edge_options& o);
csr_graph load_matrix_market(const std::filesystem::path& file, const edge_options& o);
/// EMOGI/BaM binary CSR: `X.col` (offsets) and `X.dst` (neighbours) beside it.
csr_graph load_col_dst(const std::filesystem::path& col, const edge_options& o);

}  // namespace bam::graph::detail
