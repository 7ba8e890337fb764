// bam/config/cli.hpp: API. The command-line options every bamkit tool shares (CLI11): --config,
// --set KEY=VALUE, friendly flags for common keys, --report, --csv, --print-config,
// --print-schema, --measure-ceilings. Precedence: struct defaults < --config file < friendly
// flags < --set (in command-line order).
#pragma once
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "bam/config/config_io.hpp"
#include "bam/harness/exit_status.hpp"

namespace bam {

class config_cli {
 public:
  /// Adds the shared options to `app` (and a footer listing every key with its default).
  explicit config_cli(CLI::App& app);
  config_cli(const config_cli&) = delete;
  config_cli& operator=(const config_cli&) = delete;

  /// Adds a tool's own option `flag` that sets config key `key` (its value read as --set's:
  /// parse_cli_value, so a string key takes the text), applied with the friendly flags (after
  /// --config, before --set).
  void add_key_option(CLI::App& app, const std::string& flag, const std::string& key,
                      const std::string& help);

  /// After app.parse(): the effective config, statically validated. Throws config_error.
  run_config resolve() const;

  bool print_config() const { return print_config_; }
  bool print_schema() const { return print_schema_; }

 private:
  struct friendly {
    CLI::Option* option;
    std::string key;
    std::function<nlohmann::json()> value;
  };
  run_config defaults_{};
  std::string config_file_;
  std::vector<std::string> sets_;
  std::vector<friendly> flags_;
  bool print_config_ = false;
  bool print_schema_ = false;
  // Storage of the friendly flags' values (initialised from the defaults for --help).
  std::uint32_t threads_, ssds_, depth_, pairs_, outstanding_;
  std::uint64_t io_size_, ios_, seed_;
  double duration_;
  std::string op_, pattern_, backend_, model_, report_, csv_, media_path_;
  bool measure_ceilings_ = false;
  std::deque<std::string> key_values_;  ///< storage of add_key_option's values (stable)
};

/// Runs `app.parse(argc, argv)` and config_cli::resolve(); on --help prints help and exits 0; on
/// a CLI or config error prints the message to stderr and exits 2. Handles --print-config and
/// --print-schema (prints, exits 0). Returns the effective config otherwise.
run_config parse_command_line(CLI::App& app, config_cli& cli, int argc, char** argv);

/// Exit status for rejected configurations and command lines.
inline constexpr int config_error_exit = exit_invalid_input;

}  // namespace bam
