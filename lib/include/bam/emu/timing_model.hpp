// bam/emu/timing_model.hpp: API of the emulated SSDs' timing models, host and device.
// A model says when a command may complete: a minimum latency after a throughput pipe whose
// per-command service time comes from read/write IOPS caps (by I/O size) and a bandwidth cap.
#pragma once
#include <cstdint>

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"

namespace bam::emu {

/// A drive's performance envelope. A cap of 0 means "no cap". Times in picoseconds keep the
/// service time of a 5 M IOPS drive (200 ns) exact to 0.001%.
struct timing_model {
  std::uint64_t min_latency_ns = 0;  ///< added to every command after the pipe
  double read_iops_512 = 0;          ///< read IOPS cap at 512 B
  double read_iops_4k = 0;           ///< read IOPS cap at 4 KiB
  double write_iops_512 = 0;         ///< write IOPS cap at 512 B
  double write_iops_4k = 0;          ///< write IOPS cap at 4 KiB
  double read_bandwidth = 0;         ///< bytes/s, the drive's own link (reads)
  double write_bandwidth = 0;        ///< bytes/s (writes)
  bool moves_data = true;            ///< false: the `null` drive, completes without data
};

/// Per-command cost in picoseconds of the throughput pipe, precomputed from a model so that the
/// device side needs no floating point per command.
struct service_table {
  std::uint64_t read_512_ps = 0, read_4k_ps = 0, write_512_ps = 0, write_4k_ps = 0;
  std::uint64_t read_ps_per_kib = 0, write_ps_per_kib = 0;  ///< bandwidth cap, per 1024 B
  std::uint64_t min_latency_ns = 0;
  bool throttled = false;  ///< false: every cost is 0 and nothing is reserved (`ideal`, `null`)

  /// Whether a command completes later than at once: a pipe to book, or a latency on its own
  /// (a model with only min_latency_ns completes each command that long after its fetch).
  BAM_HD bool timed() const { return throttled || min_latency_ns != 0; }

  /// Service time of one command of `bytes` (a multiple of 512).
  BAM_HD std::uint64_t cost_ps(bool write, std::uint32_t bytes) const {
    const std::uint64_t c512 = write ? write_512_ps : read_512_ps;
    const std::uint64_t c4k = write ? write_4k_ps : read_4k_ps;
    std::uint64_t iops_cost;
    if (bytes <= 512) {
      iops_cost = c512;
    } else if (bytes < 4096) {                      // linear between the two measured points
      const std::uint64_t k = (bytes - 512) / 512;  // 1..6
      iops_cost = c4k >= c512 ? c512 + (c4k - c512) * k / 7 : c512 - (c512 - c4k) * k / 7;
    } else {  // beyond 4 KiB the drive moves 4 KiB units
      iops_cost = c4k * ((bytes + 4095) / 4096);
    }
    const std::uint64_t bw_cost = (write ? write_ps_per_kib : read_ps_per_kib) * bytes / 1024;
    return iops_cost > bw_cost ? iops_cost : bw_cost;
  }
};

/// Converts a model to its cost table (host side).
inline service_table make_service_table(const timing_model& m) {
  auto per_op = [](double iops) {
    return iops > 0 ? static_cast<std::uint64_t>(1e12 / iops + 0.5) : std::uint64_t{0};
  };
  auto per_kib = [](double bw) {
    return bw > 0 ? static_cast<std::uint64_t>(1024.0 * 1e12 / bw + 0.5) : std::uint64_t{0};
  };
  service_table t;
  t.read_512_ps = per_op(m.read_iops_512);
  t.read_4k_ps = per_op(m.read_iops_4k);
  t.write_512_ps = per_op(m.write_iops_512);
  t.write_4k_ps = per_op(m.write_iops_4k);
  t.read_ps_per_kib = per_kib(m.read_bandwidth);
  t.write_ps_per_kib = per_kib(m.write_bandwidth);
  t.min_latency_ns = m.min_latency_ns;
  t.throttled = t.read_512_ps | t.read_4k_ps | t.write_512_ps | t.write_4k_ps | t.read_ps_per_kib |
                t.write_ps_per_kib;
  return t;
}

/// The drive's virtual clock: the time (ps) at which its pipe is free. Shared by every engine
/// warp that serves the drive.
struct drive_clock {
  std::uint64_t busy_until_ps = 0;
};

/// Reserves `cost_ps` of the pipe for commands that arrived at `now_ps`; returns the start of
/// the reservation (the pipe never runs ahead of real time, and never banks idle time).
/// Commands of the batch complete at start + (their inclusive cost prefix), plus the latency.
BAM_HD inline std::uint64_t reserve(drive_clock& clock, std::uint64_t now_ps,
                                    std::uint64_t cost_ps) {
  device_atomic_ref<std::uint64_t> busy(clock.busy_until_ps);
  std::uint64_t old = busy.load(relaxed);
  for (;;) {
    const std::uint64_t start = old > now_ps ? old : now_ps;
    if (busy.compare_exchange_weak(old, start + cost_ps, relaxed, relaxed)) return start;
  }
}

/// Completion time (ns) of a command whose pipe reservation ends at `end_ps`; on a drive that
/// books no pipe time (not throttled), `end_ps` is the command's fetch time: the latency alone.
BAM_HD inline std::uint64_t due_ns(const service_table& t, std::uint64_t end_ps) {
  return (end_ps + 999) / 1000 + t.min_latency_ns;
}

}  // namespace bam::emu
