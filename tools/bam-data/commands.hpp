// bam-data's subcommand groups: each adds its subcommands (and their callbacks) to the app.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string_view>

namespace bam::data {

/// graph-gen, graph-import (graph_commands.cpp).
void add_graph_commands(CLI::App& app);
/// taxi-import, taxi-gen (taxi_commands.cpp).
void add_taxi_commands(CLI::App& app);

/// The exit status a subcommand's callback chose (bam/harness/exit_status.hpp); main returns it.
int& exit_status();

/// Runs a subcommand's body and turns what it throws into an exit status with a message on
/// stderr naming the subcommand: bam::graph::input_error and std::invalid_argument (malformed
/// input, values out of range) exit_invalid_input; anything else exit_run_failed.
int run_guarded(std::string_view command, const std::function<int()>& body);

}  // namespace bam::data
