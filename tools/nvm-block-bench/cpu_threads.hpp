// cpu_threads.hpp: the CPU-thread skeleton that nvm-block-bench's CPU-driven backends share
// (queue pairs on host/nvme, uring, cufile): threads set up, start together, take I/Os until the
// run's I/O count or deadline is reached; and the verify statistics of a run.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bam/config/run_config.hpp"
#include "bam/detail/clock.hpp"
#include "bam/harness/workload.hpp"
#include "bam/report/run_result.hpp"

namespace bam::tools {

/// One run of CPU threads: a start line, the I/O limit and the deadline they share.
class run_gate {
 public:
  /// `limit`: I/Os over all threads (0: no limit).
  explicit run_gate(std::uint64_t limit) : limit_(limit) {}

  /// Takes the next I/O unless the limit or the deadline is reached; its ticket (its number
  /// among all threads' I/Os, 0 without a limit) goes to `ticket`.
  bool claim(std::uint64_t* ticket = nullptr) {
    std::uint64_t k = 0;
    if (limit_ != 0) {
      k = tickets_.fetch_add(1, std::memory_order_relaxed);
      if (k >= limit_) return false;
    }
    const std::uint64_t d = deadline_ns_.load(std::memory_order_relaxed);
    if (d != 0 && now_ns() >= d) return false;
    if (ticket != nullptr) *ticket = k;
    return true;
  }
  /// Every thread calls this once when set up, or when it failed before (a second call from a
  /// thread that fails later is harmless).
  void arrive() { ready_.fetch_add(1); }
  /// Blocks a thread that arrived until all have.
  void wait_start() const {
    while (!go_.load(std::memory_order_acquire))
      std::this_thread::yield();
  }
  /// Runs body(t) for t in [0, threads) on threads of their own; once all arrived, starts the
  /// deadline (duration_s > 0) and releases them; returns when all have finished.
  template <class Body>
  void run(std::uint32_t threads, double duration_s, Body body) {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (std::uint32_t t = 0; t < threads; ++t)
      pool.emplace_back(body, t);
    while (ready_.load() < threads)
      std::this_thread::yield();
    if (duration_s > 0) deadline_ns_ = now_ns() + static_cast<std::uint64_t>(duration_s * 1e9);
    go_.store(true, std::memory_order_release);
    for (std::thread& th : pool)
      th.join();
  }

 private:
  std::uint64_t limit_;
  std::atomic<std::uint64_t> tickets_{0};
  std::atomic<std::uint64_t> deadline_ns_{0};
  std::atomic<std::uint32_t> ready_{0};
  std::atomic<bool> go_{false};
};

/// The workload streams' parameters for `c`'s workload over `ssd_count` SSDs.
inline workload_params workload_params_of(const run_config& c, std::uint32_t ssd_count) {
  const workload_config& w = c.workload;
  workload_params p;
  p.threads = w.threads;
  p.ssd_count = ssd_count;
  p.io_size = w.io_size;
  p.dataset = c.dataset();
  p.sequential = w.pattern == io_pattern::sequential;
  p.op = w.op;
  p.read_ratio = w.read_ratio;
  p.seed = w.seed;
  return p;
}

/// What one CPU thread of a run measured (backends may derive to add their own counts).
struct thread_tally {
  direction_result read, write;
  std::uint64_t start_ns = 0;  ///< when it started issuing (0: never did)
  std::uint64_t end_ns = 0;    ///< its last completion
  std::uint64_t errors = 0;    ///< I/Os that failed (timeouts included)
  std::uint64_t timeouts = 0;  ///< of those, waits that gave up
  std::map<std::string, std::uint64_t> errors_by_status;  ///< by status (or errno) name
  std::string first_io_error;                             ///< what the first failed I/O said
  std::uint64_t verified = 0, verify_errors = 0;
  std::string error;  ///< the thread could not go on (not an I/O's failure)

  /// Counts a failed I/O of direction `d`, its status named `status`; `what` describes it.
  void io_failed(direction_result& d, const std::string& status, bool timeout,
                 const std::string& what) {
    ++errors;
    ++d.drop_ios;
    timeouts += timeout ? 1 : 0;
    ++errors_by_status[status];
    if (first_io_error.empty()) first_io_error = what;
  }
};

struct verify_counts {
  std::uint64_t verified = 0;  ///< reads checked
  std::uint64_t errors = 0;    ///< blocks that differed
};

/// Sums the threads' tallies into `out`: both directions, errors (timeouts and statuses), the
/// first error, and the runtime from the first start to the last completion; the first failed
/// I/O's message goes to tool_stats.first_io_error. Returns the verify counts.
template <class Tally>
verify_counts merge_tallies(const std::vector<Tally>& tallies, run_result& out) {
  std::uint64_t start = ~std::uint64_t{0};
  std::uint64_t end = 0;
  verify_counts v;
  std::string first_io_error;
  for (const thread_tally& r : tallies) {
    out.read.merge(r.read);
    out.write.merge(r.write);
    out.errors += r.errors;
    out.timeouts += r.timeouts;
    for (const auto& [status, n] : r.errors_by_status)
      out.errors_by_status[status] += n;
    if (first_io_error.empty()) first_io_error = r.first_io_error;
    v.verified += r.verified;
    v.errors += r.verify_errors;
    if (r.start_ns != 0) start = std::min(start, r.start_ns);
    end = std::max(end, r.end_ns);
    if (out.error.empty() && !r.error.empty()) out.error = r.error;
  }
  if (!first_io_error.empty()) out.tool_stats["first_io_error"] = first_io_error;
  out.runtime_ns = end > start ? end - start : 0;
  out.read.runtime_ns = out.runtime_ns;
  out.write.runtime_ns = out.runtime_ns;
  return v;
}

/// --verify's statistics (`verified_ios`, `verify_errors`) into `stats`; blocks that differ
/// from the data pattern are the run's verify mismatches (the tool then exits with
/// exit_io_errors).
inline void add_verify_stats(nlohmann::json& stats, run_result& out, const verify_counts& v) {
  stats["verified_ios"] = v.verified;
  stats["verify_errors"] = v.errors;
  out.verify_mismatches += v.errors;
}

}  // namespace bam::tools
