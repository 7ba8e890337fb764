// bam-data's graph jobs, one per file: graph_gen.cpp, graph_import.cpp.
#pragma once
#include <CLI/CLI.hpp>

namespace bam::data {

void add_graph_gen(CLI::App& app);
void add_graph_import(CLI::App& app);

}  // namespace bam::data
