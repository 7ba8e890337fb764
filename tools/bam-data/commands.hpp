// bam-data's subcommand groups: each adds its subcommands (and their callbacks) to the app.
#pragma once
#include <CLI/CLI.hpp>

namespace bam::data {

/// taxi-import, taxi-gen (taxi_commands.cpp).
void add_taxi_commands(CLI::App& app);

/// The exit status a subcommand's callback chose (bam/harness/exit_status.hpp); main returns it.
int& exit_status();

}  // namespace bam::data
