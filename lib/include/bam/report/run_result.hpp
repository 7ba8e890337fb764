// bam/report/run_result.hpp: API. What one benchmark run measured, as plain data: per direction
// bytes, I/Os, runtime and the latency histogram, plus the tool's own statistics. Every report
// (fio json+, CSV, the human summary) is derived from this.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/report/latency_histogram.hpp"
#include "bam/report/recovery_counts.hpp"

namespace bam {

/// One direction (read, write or trim) of a run.
struct direction_result {
  std::uint64_t io_bytes = 0;
  std::uint64_t ios = 0;        ///< completed I/Os
  std::uint64_t short_ios = 0;  ///< completed with fewer bytes than asked
  std::uint64_t drop_ios = 0;   ///< not completed (errors)
  std::uint64_t runtime_ns = 0;
  latency_histogram lat{};  ///< submission to completion, ns (fio's clat and lat)

  double iops() const { return runtime_ns == 0 ? 0.0 : double(ios) * 1e9 / double(runtime_ns); }
  double bytes_per_s() const {
    return runtime_ns == 0 ? 0.0 : double(io_bytes) * 1e9 / double(runtime_ns);
  }
  void merge(const direction_result& o);
};

struct run_result {
  direction_result read;
  direction_result write;
  direction_result trim;
  std::uint64_t runtime_ns = 0;         ///< wall time of the measured phase
  std::uint64_t errors = 0;             ///< completions with an error status (timeouts included)
  std::uint64_t timeouts = 0;           ///< of those, waits that gave up (sc::host_timeout)
  std::uint64_t verify_mismatches = 0;  ///< data read back that differs from what was written
  /// errors by status, named as bam::nvme::status_name prints them (e.g. "Unrecovered Read Error")
  std::map<std::string, std::uint64_t> errors_by_status;
  /// What the host queues' recovery did (Aborts, queue recreations): zero where nothing timed
  /// out, and on the GPU, whose queues have none (docs/gpu-engine.md).
  recovery_counts recovery;
  std::vector<std::uint64_t> per_ssd_ios;                ///< I/Os completed per SSD
  nlohmann::json tool_stats = nlohmann::json::object();  ///< queue/cache/verify statistics
  std::string error;  ///< non-empty: the run failed (message), results are partial

  /// The run finished but not every I/O did what it should: the tools exit with exit_io_errors.
  bool io_failed() const { return errors != 0 || timeouts != 0 || verify_mismatches != 0; }
  std::uint64_t total_ios() const { return read.ios + write.ios + trim.ios; }
  std::uint64_t total_bytes() const { return read.io_bytes + write.io_bytes + trim.io_bytes; }
  double iops() const {
    return runtime_ns == 0 ? 0.0 : double(total_ios()) * 1e9 / double(runtime_ns);
  }
  /// Both directions' latencies together.
  latency_histogram all_latency() const;
  /// The I/Os in flight on the mean over the run, by Little's law: completed I/Os per second x
  /// their mean latency (all_latency's). 0 where no latency was measured or no time passed.
  double in_flight_mean() const;
};

}  // namespace bam
