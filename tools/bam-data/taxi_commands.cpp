// bam-data's taxi subcommands: taxi-import (TLC CSV files to a column table) and taxi-gen (a
// synthetic table); each job in its own file.
#include "commands.hpp"
#include "taxi_jobs.hpp"

namespace bam::data {

void add_taxi_commands(CLI::App& app) {
  add_taxi_import(app);
  add_taxi_gen(app);
}

}  // namespace bam::data
