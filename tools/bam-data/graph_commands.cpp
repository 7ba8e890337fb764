// bam-data's graph subcommands: graph-gen (a Kronecker or uniform random graph) and graph-import
// (any graph file to .csr, .el or .mtx); each job in its own file.
#include "commands.hpp"
#include "graph_jobs.hpp"

namespace bam::data {

void add_graph_commands(CLI::App& app) {
  add_graph_gen(app);
  add_graph_import(app);
}

}  // namespace bam::data
