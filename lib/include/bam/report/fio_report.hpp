// bam/report/fio_report.hpp: API. The reports of a run, all derived from one run_result: fio's
// json+ shape (jobs[], read/write/trim with clat_ns/lat_ns percentiles and bins, plus a
// `bamkit` key with the effective config, machine, ceilings and tool statistics), a CSV row for
// sweeps, and a human summary.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/config/run_config.hpp"
#include "bam/report/machine_info.hpp"
#include "bam/report/run_result.hpp"

namespace bam {

/// `bamkit.schema_version` of every report this code writes. 2: `bamkit.ceilings` in one shape
/// for every tool and backend (bam/harness/ceilings.hpp). Reports without the key are version 1
/// (each tool named its ceilings its own way); scripts/pylib/reports.py reads both.
inline constexpr int report_schema_version = 2;

struct report_inputs {
  std::string tool;  ///< e.g. "nvm-block-bench" (fio's jobname)
  const run_config* config = nullptr;
  const run_result* result = nullptr;
  const machine_info* machine = nullptr;
  nlohmann::json ceilings;  ///< null unless measured
  /// Repeated runs (--repeat N): `result` is the run with the median IOPS; these say how the N
  /// runs spread (CSV columns repeats, iops_min, iops_max; bamkit.repeat in the JSON).
  std::uint32_t repeats = 1;
  std::vector<double> repeat_iops;  ///< IOPS of each run, in run order (empty when repeats = 1)
  /// Each run's latency, both directions together, in run order (empty when repeats = 1, or
  /// when not every run measured latency): bamkit.repeat.lat_us gives their percentiles, written
  /// only when there is one per run; for a job of one direction, the spread around its own
  /// percentiles (the median run's).
  std::vector<latency_histogram> repeat_latency;
  /// Tool-specific CSV columns (name, value), appended after the shared ones.
  std::vector<std::pair<std::string, std::string>> extra_columns;
  /// The summary's words on the workload after threads= (tool_spec::summary_workload); unset:
  /// nvm-block-bench's (outstanding, pattern, op, io_size).
  std::optional<std::string> workload;
};

/// fio's --output-format=json+ document for one job (its `bamkit` holds the schema version, the
/// tool, config, machine, ceilings and statistics). The job's fio "error" is an errno: 1 when
/// the run failed, EIO when I/Os failed or timed out, EILSEQ (fio's verify error) when only data
/// read back differed; `bamkit.io_errors` holds errors, timeouts, verify_mismatches, by_status
/// (errors by status name) and io_failed.
nlohmann::json fio_jsonplus(const report_inputs& in);
/// One json+ document with a job per input (a sweep: one per point). Each job carries its own
/// `bamkit` object (config, ceilings, stats, repeat); the top-level `bamkit` holds the schema
/// version, the tool, the machine, the number of jobs and the first job's config.
nlohmann::json fio_jsonplus_multi(const std::vector<report_inputs>& ins);
/// The read/write/trim object of fio's json for one direction.
nlohmann::json fio_direction(const direction_result& d);

/// The CSV header and one row (no trailing newline). The shared columns end with timeouts,
/// verify_mismatches and errors_by_status ("Status Name=count" joined by ';').
std::string csv_header();
/// The header with `in`'s extra columns.
std::string csv_header(const report_inputs& in);
std::string csv_row(const report_inputs& in);
/// Appends a row to `path`, writing the header first when the file is new or empty. Throws
/// std::runtime_error when the file cannot be written.
void append_csv(const std::string& path, const report_inputs& in);

/// Writes `j` (pretty) to `path`; throws std::runtime_error on failure.
void write_json_file(const std::string& path, const nlohmann::json& j);

/// Human summary (a few lines per direction).
void print_summary(std::ostream& os, const report_inputs& in);

}  // namespace bam
