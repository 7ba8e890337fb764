// bam/report/recovery_counts.hpp: API. What the host's queue recovery (bam/driver/
// queue_recovery.hpp) did during a run, as plain data for run_result and the reports.
#pragma once
#include <cstdint>

namespace bam {

struct recovery_counts {
  std::uint64_t aborts_sent = 0;        ///< Abort commands sent for commands whose wait gave up
  std::uint64_t aborts_found = 0;       ///< of those, the controller found and aborted the command
  std::uint64_t abort_failures = 0;     ///< Aborts that got no completion (admin timeout)
  std::uint64_t queue_recreations = 0;  ///< queues failed, deleted and created again
  std::uint64_t recovery_failures = 0;  ///< recoveries that could not finish (queue left failed)

  bool any() const {
    return aborts_sent != 0 || abort_failures != 0 || queue_recreations != 0 ||
           recovery_failures != 0;
  }
  /// What was counted since `before` (an earlier snapshot of the same counts).
  recovery_counts since(const recovery_counts& before) const {
    recovery_counts d;
    d.aborts_sent = aborts_sent - before.aborts_sent;
    d.aborts_found = aborts_found - before.aborts_found;
    d.abort_failures = abort_failures - before.abort_failures;
    d.queue_recreations = queue_recreations - before.queue_recreations;
    d.recovery_failures = recovery_failures - before.recovery_failures;
    return d;
  }
  void merge(const recovery_counts& o) {
    aborts_sent += o.aborts_sent;
    aborts_found += o.aborts_found;
    abort_failures += o.abort_failures;
    queue_recreations += o.queue_recreations;
    recovery_failures += o.recovery_failures;
  }
};

}  // namespace bam
