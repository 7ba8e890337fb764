// bam/report/recovery_counts.hpp: API. What the host's queue recovery (bam/driver/
// queue_recovery.hpp) did during a run, as plain data for run_result and the reports.
#pragma once
#include <cstdint>

namespace bam {

struct recovery_counts {
  std::uint64_t aborts_sent = 0;     ///< Abort commands sent for commands whose wait gave up
  std::uint64_t aborts_found = 0;    ///< of those, the controller found and aborted the command
  std::uint64_t abort_failures = 0;  ///< Aborts that got no completion (admin timeout)
  /// Recovery episodes begun: a queue failed (or too many of its IDs were abandoned) and the
  /// watchdog set out to recreate it. Each ends once: in queue_recreations or recovery_failures,
  /// so recoveries = queue_recreations + recovery_failures + episodes still open.
  std::uint64_t recoveries = 0;
  std::uint64_t queue_recreations = 0;  ///< episodes that ended with the queue created again
  /// Episodes that ended with the queue left failed: an admin command of the recovery failed,
  /// or threads still used the queue when the watchdog stopped.
  std::uint64_t recovery_failures = 0;
  /// Time from the start of each episode that ended in a recreation to the recreation, summed
  /// (ns): mostly the wait for the queue's threads to leave it.
  std::uint64_t recovery_ns = 0;

  bool any() const { return aborts_sent != 0 || abort_failures != 0 || recoveries != 0; }
  /// What was counted since `before` (an earlier snapshot of the same counts).
  recovery_counts since(const recovery_counts& before) const {
    recovery_counts d;
    d.aborts_sent = aborts_sent - before.aborts_sent;
    d.aborts_found = aborts_found - before.aborts_found;
    d.abort_failures = abort_failures - before.abort_failures;
    d.recoveries = recoveries - before.recoveries;
    d.queue_recreations = queue_recreations - before.queue_recreations;
    d.recovery_failures = recovery_failures - before.recovery_failures;
    d.recovery_ns = recovery_ns - before.recovery_ns;
    return d;
  }
  void merge(const recovery_counts& o) {
    aborts_sent += o.aborts_sent;
    aborts_found += o.aborts_found;
    abort_failures += o.abort_failures;
    recoveries += o.recoveries;
    queue_recreations += o.queue_recreations;
    recovery_failures += o.recovery_failures;
    recovery_ns += o.recovery_ns;
  }
};

}  // namespace bam
