// bam-data's taxi jobs, one per file: taxi_import_command.cpp, taxi_gen_command.cpp.
#pragma once
#include <CLI/CLI.hpp>

namespace bam::data {

void add_taxi_import(CLI::App& app);
void add_taxi_gen(CLI::App& app);

}  // namespace bam::data
