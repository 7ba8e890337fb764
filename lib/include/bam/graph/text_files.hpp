// bam/graph/text_files.hpp: API. Writes a csr_graph as text for other tools: an `.el` edge list
// ("u v" or "u v w" per line, 0-based ids, in CSR order) or a `.mtx` Matrix Market coordinate
// file (1-based ids; `pattern` or `real`; `symmetric` with only the entries u >= v when the
// graph says it is symmetric, else `general`). Formatted in parallel, written in order to a
// temporary file renamed over the target when complete (no half-written output).
#pragma once
#include <cstdint>
#include <filesystem>

#include "bam/graph/csr.hpp"

namespace bam::graph {

struct text_write_result {
  std::uint64_t bytes = 0;
  std::uint64_t checksum = 0;  ///< XXH64 of the bytes written (bam::checksum64)
};

text_write_result write_edge_list(const csr_graph& g, const std::filesystem::path& file,
                                  unsigned threads = 0);
text_write_result write_matrix_market(const csr_graph& g, const std::filesystem::path& file,
                                      unsigned threads = 0);

}  // namespace bam::graph
