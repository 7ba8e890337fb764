// tools/bam-data/graph_output.hpp: how graph-gen and graph-import write the graph they made
// (.csr, .el or .mtx, by --format or the output's extension) and the summary they print.
#pragma once
#include <filesystem>
#include <string>

#include "bam/graph/csr.hpp"

namespace bam::data {

enum class graph_format { csr, el, mtx };

/// --format's value, or when empty the output's extension (.el, .mtx; anything else csr).
/// Throws std::invalid_argument for an unknown --format value.
graph_format graph_format_of(const std::string& format, const std::filesystem::path& out);
const char* to_string(graph_format f);

/// Writes g to `out` in `f` and prints "FILE: V vertices, E edges, ..., checksum, times".
void write_graph(const bam::graph::csr_graph& g, const std::filesystem::path& out, graph_format f,
                 unsigned threads, double make_seconds, const char* make_what);

}  // namespace bam::data
