// bam-data: makes the datasets bamkit's applications read (column tables of the NYC taxi
// trips; graphs), one subcommand per job. Exit statuses: bam/harness/exit_status.hpp (2: an
// invalid command line or input file, nothing written).
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
  bam::data::add_taxi_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? bam::exit_ok : bam::exit_invalid_input;
  }
  return bam::data::exit_status();
}
