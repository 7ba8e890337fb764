// cache-bench: one run, the same for every backend: a fresh cache, the fill pass (--verify),
// the warm pass (hot), the timed pass, flush, the check pass (--verify), and the run_result
// with the cache statistics. Backends provide a cache_rig that runs each pass on their threads.
#pragma once
#include <cstdint>

#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/harness/backend.hpp"
#include "bench_thread.hpp"

namespace bam::tools {

/// The geometry of a run, derived from the config.
struct bench_shape {
  std::uint64_t elements = 0;  ///< dataset elements (8 B)
  std::uint64_t lines = 0;     ///< dataset lines
  std::uint64_t slots = 0;     ///< cache slots
  std::uint32_t line_bytes = 0;
  cache_error_mode on_error = cache_error_mode::flag;  ///< cache.on_error
};
bench_shape shape_of(const run_config& c);
bench_params params_of(const run_config& c, bool verify);

/// Element writes of the measured pass `p`. A mixed pass is replayed on the host, one hash per
/// owner and iteration (5.4 G for 32M threads x 160 iterations, about a minute on one core);
/// `workers` host threads share it (0: the host's cores when there are over 2^24 replays).
std::uint64_t write_accesses(const bench_params& p, std::uint32_t workers = 0);

/// cache-bench's own checks of a (statically valid) config; throws config_error.
void validate_cache_bench(const run_config& c);

/// A backend's threads over a cache it owns. Every pass waits for its threads.
class cache_rig {
 public:
  virtual ~cache_rig() = default;
  /// Drops the current cache (if any) and builds an empty one of `slots` slots over `lines`
  /// dataset lines of `line_bytes`, failing accesses as `on_error` says.
  virtual void new_cache(const bench_shape& s) = 0;
  /// Every element i := initial_value(i), through the cache.
  virtual void fill(const bench_shape& s) = 0;
  /// Reads the first element of every dataset line.
  virtual void warm(const bench_shape& s) = 0;
  /// The measured pass; returns its wall time in seconds.
  virtual double measure(const bench_params& p, bench_counters& out) = 0;
  /// Every element checked (check_element; elements that could not be read are counted by the
  /// cache, not as bad).
  virtual bench_counters check(const bench_shape& s) = 0;
  virtual bool flush() = 0;
  virtual cache_stats stats() = 0;
  virtual void reset_stats() = 0;
};

/// Runs one point on `rig`. `media_dirty`: the SSDs may hold values other than initial_value
/// (a previous run wrote); set when this run wrote.
run_result run_cache_bench(cache_rig& rig, const run_config& c, const run_hooks& hooks,
                           bool& media_dirty);

}  // namespace bam::tools
