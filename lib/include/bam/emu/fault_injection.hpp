// bam/emu/fault_injection.hpp: API of the emulated SSDs' fault injection, host and device.
// Per drive, a fraction of commands fails with a chosen status, is delayed, or is never
// completed. Decisions are a pure function of (seed, command key): reproducible and lock-free.
#pragma once
#include <cstdint>

#include "bam/detail/hash.hpp"
#include "bam/detail/macros.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::emu {

/// What a drive does wrong, as fractions of its commands (0 .. 1, summing to at most 1).
struct fault_config {
  double error_fraction = 0;  ///< complete with `error_status` instead of moving data
  nvme::status error_status = nvme::sc::unrecovered_read_error;
  double delay_fraction = 0;  ///< complete `delay_ns` later than the model says
  std::uint64_t delay_ns = 0;
  double drop_fraction = 0;  ///< never complete
  std::uint64_t seed = 0;
};

enum class fault_action : std::uint8_t { none, error, delay, drop };

/// The key a command's fate is decided by: its queue's index (the GPU engine's queue number,
/// ssd * queues_per_ssd + queue; a host emulated controller's fault_queue_base + qid - 1) and
/// its position among the commands fetched from that queue since the queue was created. The
/// GPU engine and the host emulated controllers use the same key, so a seed means the same on
/// both.
BAM_HD constexpr std::uint64_t fault_key(std::uint64_t queue, std::uint64_t position) {
  return (queue << 40) ^ position;
}

/// A fault_config as integer thresholds on a 64-bit hash (the device form).
struct fault_plan {
  std::uint64_t drop_below = 0, error_below = 0, delay_below = 0;
  std::uint64_t delay_ns = 0, seed = 0;
  nvme::status error_status = nvme::sc::unrecovered_read_error;
  bool any = false;

  /// The fate of the command identified by `key` (e.g. queue and virtual SQ position).
  BAM_HD constexpr fault_action decide(std::uint64_t key) const {
    if (!any) return fault_action::none;
    const std::uint64_t u = mix64(key ^ seed);
    if (u < drop_below) return fault_action::drop;
    if (u < error_below) return fault_action::error;
    if (u < delay_below) return fault_action::delay;
    return fault_action::none;
  }
};

/// Thresholds for `c`: drop in [0, d), error in [d, d+e), delay in [d+e, d+e+y).
inline fault_plan make_fault_plan(const fault_config& c) {
  auto scale = [](double f) {
    if (f <= 0) return std::uint64_t{0};
    if (f >= 1) return ~std::uint64_t{0};
    return static_cast<std::uint64_t>(f * 18446744073709551616.0);
  };
  fault_plan p;
  p.drop_below = scale(c.drop_fraction);
  p.error_below = scale(c.drop_fraction + c.error_fraction);
  p.delay_below = scale(c.drop_fraction + c.error_fraction + c.delay_fraction);
  p.delay_ns = c.delay_ns;
  p.seed = c.seed;
  p.error_status = c.error_status;
  p.any = p.delay_below != 0;
  return p;
}

}  // namespace bam::emu
