// bam/harness/tool_main.hpp: API. The main loop every bamkit benchmark tool shares: the shared
// command line (bam/config/cli.hpp) plus --verify, --sweep KEY=V1,V2,... and --repeat N, one
// backend opened per storage/queues point, a progress line, and the reports (fio json+ with one
// job per point, CSV rows, human summary) written as report.* says.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "bam/harness/backend.hpp"
#include "bam/report/fio_report.hpp"
#include "bam/report/machine_info.hpp"

namespace bam {

/// A tool's own command-line option for one config key (config_cli::add_key_option).
struct tool_option {
  std::string flag;  ///< e.g. "--min-distance"
  std::string key;   ///< e.g. "taxi.min_distance"
  std::string help;
};

/// What makes one tool different from another.
struct tool_spec {
  std::string name;         ///< e.g. "nvm-block-bench" (messages, fio jobname)
  std::string description;  ///< first line of --help
  std::string verify_help;  ///< --verify's help text
  /// The backend for `kind`, or nullptr when this build has none.
  std::function<std::unique_ptr<backend>(backend_kind)> make_backend;
  /// "host|uring"-style list of the kinds make_backend serves.
  std::function<std::string()> available_backends;
  /// Why `kind` is missing from this build (e.g. ": built without cufile.h; ..."), or "".
  std::function<std::string(backend_kind)> unavailable_reason;
  /// Tool-specific checks of each (already validated) point; throws config_error.
  std::function<void(const run_config&)> validate;
  /// The work units of a run the progress line counts ("IOs"), and their total (0: unknown).
  std::string unit = "IOs";
  /// What run_result::iops() counts, per second, in the lines that print a run's rate (the
  /// repeat line, a sweep's point lines); empty: `unit`. taxi-query's progress counts rows and
  /// its rate I/Os.
  std::string rate_unit;
  std::function<std::uint64_t(const run_config&)> progress_total;
  /// The GPU's description (CUDA builds set it; the machine info then names the GPU).
  std::function<gpu_info()> query_gpu;
  /// Extra CSV columns and summary lines of a finished point (may be empty).
  std::function<void(report_inputs&)> decorate;
  std::function<void(std::ostream&, const report_inputs&)> print_extra;
  /// The summary's words on the workload after threads= (report_inputs::workload); unset:
  /// nvm-block-bench's (outstanding, pattern, op, io_size), which other tools' runs do not follow.
  std::function<std::string(const run_config&)> summary_workload;
  /// The tool's own options, each setting a config key.
  std::vector<tool_option> options;
};

/// Parses the command line and runs every point. Returns the exit status
/// (bam/harness/exit_status.hpp): exit_ok; exit_run_failed (a run could not be done: the
/// backend did not open, a run threw, a report could not be written); exit_invalid_input (a
/// rejected configuration or a report.json/report.csv path that cannot be written, before
/// anything ran); exit_io_errors (every run finished and the reports were written, but some
/// point's run_result::io_failed(): I/O errors, timeouts or verify mismatches).
int run_bench_tool(const tool_spec& spec, int argc, char** argv);

/// --sweep KEY=V1,V2,...: the key and its values (each JSON or a bare string).
struct sweep_axis {
  std::string key;
  std::vector<nlohmann::json> values;
};
/// Parses --sweep specifications; config_error ("--sweep") for malformed ones and report keys.
std::vector<sweep_axis> parse_sweeps(const std::vector<std::string>& specs);
/// The cartesian product of the axes over `base` (the first axis outermost), each point parsed
/// and validated: a bad key or value throws config_error naming the key.
std::vector<run_config> expand_sweeps(const run_config& base, const std::vector<sweep_axis>& axes);

}  // namespace bam
