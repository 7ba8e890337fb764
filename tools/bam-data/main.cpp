// bam-data: makes and converts the data the applications read.
//   bam-data graph-gen kron|urand --scale S --edge-factor K --seed X --out FILE [--format ...]
//   bam-data graph-import --in FILE --out FILE.csr [--symmetrize] [--drop-self-loops] [--dedup]
// Exit statuses (bam/harness/exit_status.hpp): 0 done, 1 the run failed (e.g. the output could
// not be written), 2 invalid command line or malformed input (the message names the file and the
// line or byte offset). A failed run never leaves a partial output file.
#include <CLI/CLI.hpp>

#include "bam/harness/exit_status.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"bam-data: generate, import and convert the data bamkit's applications read"};
  app.require_subcommand(1);
  int status = bam::exit_ok;
  bam::data::add_graph_commands(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return bam::exit_invalid_input;
  }
  return status;
}
