// bam/emu/options.hpp: API. Configuration of a host emulated NVMe controller: what it reports in
// CAP and Identify, its namespace and media, and its thread count.
#pragma once
#include <cstdint>
#include <string>

#include "bam/emu/fault_injection.hpp"
#include "bam/emu/timing_model.hpp"

namespace bam::emu {

/// Where the namespace's blocks live.
enum class media_kind {
  memory,  ///< anonymous host memory, zero at start, lost at destruction
  file,    ///< a file mapped MAP_SHARED; flush (and stop) msync it, so data persists
};

struct controller_options {
  std::uint32_t max_queue_entries = 1024;   ///< CAP.MQES + 1, 2..65536
  std::uint32_t doorbell_stride = 0;        ///< CAP.DSTRD: doorbells are 4 << dstrd bytes apart
  std::uint32_t timeout_500ms = 20;         ///< CAP.TO, in 500 ms units
  std::uint32_t max_io_queue_pairs = 128;   ///< I/O SQs and CQs the controller can allocate
  std::uint32_t lba_size = 512;             ///< 512 or 4096
  std::uint64_t namespace_lbas = 1u << 18;  ///< NSZE
  std::uint32_t mdts = 5;                   ///< 2^MDTS pages of CAP.MPSMIN (4 KiB) per command
  std::uint32_t worker_threads = 1;         ///< threads serving I/O queues (>= 1)
  std::string model = "bamkit emulated NVMe controller";
  std::string serial = "BAMEMU0001";
  std::string firmware = "0.1";
  media_kind media = media_kind::memory;
  std::string media_path;  ///< the file, for media_kind::file (created if missing)
  /// Faults of the I/O commands (none by default). Each command's fate is decided at fetch by
  /// fault_plan::decide(fault_key(fault_queue_base + qid - 1, position in its SQ)): an error
  /// completes at once with faults.error_status and moves no data; a delayed command is
  /// executed (its data moved) and completed faults.delay_ns later, without holding up the
  /// commands behind it; a dropped one is never completed, unless an Abort or the deletion of
  /// its SQ completes it. Admin commands are never faulted.
  fault_config faults{};
  /// Index of this controller's first I/O queue in the fault key: ssd * queues per SSD gives
  /// the queue numbers the GPU engine uses for the same seed.
  std::uint32_t fault_queue_base = 0;
  /// false: every Abort finds nothing (Abort DW0 bit 0 set), as a controller answers for a
  /// command it is already executing: the held command stays held until its SQ is deleted (for
  /// tests of the recovery that follows a failed Abort).
  bool abort_finds_commands = true;
  /// The drive's timing model (bam/emu/timing_model.hpp, as the GPU engine books it): a read or
  /// write reserves its service time in the drive's pipe and completes when the pipe and
  /// min_latency_ns say it is due (its data moved at fetch). Default: no cap, at once.
  timing_model timing{};
};

}  // namespace bam::emu
