// add_graph_commands (commands.hpp): the graph subcommands, one file each (graph_gen.cpp,
// graph_import.cpp).
#include "commands.hpp"

namespace bam::data {

void add_graph_gen_command(CLI::App& app, int& status);
void add_graph_import_command(CLI::App& app, int& status);

void add_graph_commands(CLI::App& app, int& status) {
  add_graph_gen_command(app, status);
  add_graph_import_command(app, status);
}

}  // namespace bam::data
