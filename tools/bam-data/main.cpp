// bam-data: makes the datasets bamkit's applications read (graphs: graph-gen, graph-import; the
// NYC taxi table: taxi-import, taxi-gen), one subcommand per job, each group registered by one
// add_*_commands line below.
//   bam-data graph-gen kron|urand --scale S --edge-factor K --seed X --out FILE [--format ...]
//   bam-data graph-import --in FILE --out FILE.csr [--symmetrize] [--drop-self-loops] [--dedup]
//   bam-data taxi-import --csv FILE... --out DIR [--threads T]
//   bam-data taxi-gen --rows N --seed S --out DIR [--threads T]
// Exit statuses (bam/harness/exit_status.hpp): 0 done, 1 the run failed (e.g. the output could
// not be written), 2 invalid command line or malformed input (the message names the file and the
// line or byte offset). A failed run never leaves a partial output file.
#include <CLI/CLI.hpp>

#include "bam/harness/exit_status.hpp"
#include "commands.hpp"

int& bam::data::exit_status() {
  static int status = bam::exit_ok;
  return status;
}

int main(int argc, char** argv) {
  CLI::App app{"bam-data: makes the datasets of bamkit's applications", "bam-data"};
  app.require_subcommand(1);
  bam::data::add_graph_commands(app);
  bam::data::add_taxi_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? bam::exit_ok : bam::exit_invalid_input;
  }
  return bam::data::exit_status();
}
