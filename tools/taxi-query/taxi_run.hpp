// What every taxi-query backend shares: an implementation's outcome, the run's result (the
// reports' run_result, with every implementation's time, bytes moved and needed, amplification
// and results), the check against the long-double reference (--verify), the `qN rows value`
// lines and the --results file.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/cache/cache_stats.hpp"
#include "bam/config/config_io.hpp"
#include "bam/report/run_result.hpp"
#include "bam/table/taxi_query.hpp"
#include "taxi_table.hpp"

namespace bam::tools {

/// What one implementation did.
struct taxi_outcome {
  std::string impl;               ///< "bam", "tiled (ssd)", "tiled (page cache)"
  double seconds = 0;             ///< the query's time (data placement excluded)
  std::uint64_t bytes_moved = 0;  ///< from storage (SSD commands' bytes, or file bytes)
  std::uint64_t commands = 0;     ///< I/Os (NVMe commands or file reads)
  taxi::query_results results{};
  nlohmann::json details = nlohmann::json::object();  ///< cache statistics, pipeline, ...
  /// Storage reads that failed (bam: the cache's line reads; timeouts included), an I/O each.
  std::uint64_t failed_reads = 0;
  std::uint64_t timeouts = 0;  ///< of failed_reads, waits that gave up
  std::map<std::string, std::uint64_t> failed_reads_by_status;
  /// Element accesses that got no data (bam: a line that could not be read, or no slot).
  std::uint64_t failed_accesses = 0;
};

/// A bam run's failures from its cache's statistics: the failed line reads (by status) and the
/// failed element accesses, each in its own counter.
void add_cache_failures(const cache_stats& s, taxi_outcome& o);

/// The blocks' sums in block order, as results.
taxi::query_results results_of(const std::vector<taxi::block_sums>& blocks);

/// Bytes the queries need at least: the distance column, and for each row of S the numerator
/// columns its deepest query reads.
std::uint64_t taxi_bytes_needed(std::uint64_t rows, std::uint64_t s_rows, int deepest);

/// A cache's statistics for the report (bytes read summed over the SSDs).
nlohmann::json cache_json(const cache_stats& s, std::uint64_t line_bytes);

/// Implementations a config asks for, in the order they run.
std::vector<taxi_impl> taxi_impls(const run_config& c);

/// The run's result: each outcome in tool_stats.taxi.impls (and the totals in read.*; errors,
/// timeouts and errors_by_status: the failed reads; tool_stats.taxi.failed_accesses: the failed
/// accesses, which fail the run (error) when no read failed: the results lack data), checked
/// against the reference when `verify` (relative error <= 1e-12: verify_mismatches count the
/// queries beyond), implementations compared with each other; prints the first outcome's
/// `qN rows value` lines on stdout and writes taxi.results. Throws std::runtime_error when the
/// results file cannot be written.
run_result taxi_result(const run_config& c, const taxi_table& t,
                       const std::vector<taxi_outcome>& outcomes, bool verify);

}  // namespace bam::tools
