// bam/harness/backend.hpp: API. What a benchmark backend is to the tools: it opens (allocates,
// starts controllers), reports its capabilities (checked against the config before anything
// runs), runs the configured workload and returns a run_result with the merged latency
// histograms. Backends: host (CPU threads on host emulated controllers), uring (CPU baseline),
// and the GPU backends, which plug in through the same interface.
#pragma once
#include <atomic>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "bam/config/config_io.hpp"
#include "bam/report/run_result.hpp"

namespace bam {

/// What the tool passes to a run.
struct run_hooks {
  /// Incremented by the backend as I/Os complete (progress line); may be updated coarsely.
  std::atomic<std::uint64_t>* ios_done = nullptr;
  /// Check every read against the data pattern (bam/harness/data_pattern.hpp); mismatches are
  /// counted in tool_stats.verify_errors and make the run fail.
  bool verify = false;
};

class backend {
 public:
  virtual ~backend() = default;
  /// Prepares everything the run needs. Throws config_error for settings the backend cannot
  /// honour, std::runtime_error for failures.
  virtual void open(const run_config& c) = 0;
  /// Known after open().
  virtual backend_caps capabilities() const = 0;
  /// Runs the workload of `c` (the config open() saw, validated against capabilities()).
  virtual run_result run(const run_config& c, const run_hooks& hooks) = 0;
  /// bamkit.ceilings: the machine's limits relevant to this backend (null when not supported).
  virtual nlohmann::json measure_ceilings(const run_config&) { return nullptr; }
};

}  // namespace bam
