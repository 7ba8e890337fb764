// bam/driver/recovery_options.hpp: API. How a host driver's watchdog treats commands whose wait
// gave up: the host queues' (bam/driver/queue_recovery.hpp) and the GPU-emulated drives'
// (bam/emu/gpu/emulated_drives.hpp, drives_config::recovery).
#pragma once
#include <cstdint>

namespace bam {

struct recovery_options {
  /// The commands' timeout (queues.timeout_ms, command_timeout_ns): an aborted command whose ID
  /// is still abandoned this long after the Abort gets its queue recreated; threads that still
  /// use a failed queue this long after it failed are reported (last_failure).
  std::uint64_t timeout_ns = 1'000'000'000;
  /// How often the watchdog looks at the queues (one load per queue when nothing is abandoned).
  std::uint32_t period_us = 1000;
  /// Recover a queue once more than this fraction of its command IDs are abandoned at once (the
  /// queue fails itself past half).
  double abandoned_limit = 0.25;
};

}  // namespace bam
