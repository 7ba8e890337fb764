// bam/emu/gpu/emulated_drives.hpp: API. N emulated NVMe SSDs whose controllers run on the GPU: each
// drive has its own I/O queues in GPU memory, media, timing model and fault injection; one
// engine kernel of persistent blocks serves all of them. Application kernels drive the queues
// with queue_pair_ref exactly as they would a real controller's (hardware_ref()), or with the
// device-scope shortcut only a controller on the same GPU allows (ref(): an upper bound).
//
// The residency rule: start() launches the engine on its own non-blocking stream and returns
// only once every engine warp runs, so the engine occupies its SMs before any application
// kernel exists; application grids of any size then complete (their blocks wait for SMs, the
// engine's never do). While the engine runs, never call cudaDeviceSynchronize, cudaFree or
// anything else that waits for all device work, launch applications on non-blocking streams
// (or the per-thread default stream), and load every application kernel before start()
// (preload_kernel, or CUDA_MODULE_LOADING=EAGER): a lazily loaded kernel's first launch
// waits for the device to go idle. stop() (after the application's stream is
// synchronised) writes the stop flag and waits for the engine.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "bam/config/enums.hpp"
#include "bam/dma.hpp"
#include "bam/driver/recovery_options.hpp"
#include "bam/emu/fault_injection.hpp"
#include "bam/emu/timing_model.hpp"
#include "bam/queue/doorbell.hpp"
#include "bam/queue/ordering_read.hpp"
#include "bam/queue/queue_set_ref.hpp"
#include "bam/report/recovery_counts.hpp"

namespace bam::emu::gpu {

enum class media_kind : std::uint8_t { pinned_host, device };

/// Largest engine block, in warps (the engine kernel's launch bound; gpu.engine_warps_per_block).
inline constexpr std::uint32_t max_engine_warps_per_block = 16;
/// Drives whose descriptors each engine block keeps in its shared memory (the first ones; the
/// others are read from global memory). 32: a warp's lanes, and the drive counts of the paper's
/// figures (1-10), at 5.25 KiB a block.
inline constexpr std::uint32_t shared_drive_descriptors = 32;
/// The drives' MDTS: the largest transfer one command may ask for.
inline constexpr std::uint64_t max_transfer_bytes = std::uint64_t{2} << 20;
/// Entries of a drive's ordering queue (one extra read in flight per drive: the lock of
/// ordering_read_ref).
inline constexpr std::uint32_t ordering_queue_entries = 8;

/// One emulated drive.
struct drive_config {
  std::uint64_t lbas = 1u << 20;
  std::uint32_t lba_shift = 9;  ///< 9: 512 B LBAs, 12: 4 KiB
  media_kind media = media_kind::pinned_host;
  std::string file;  ///< if set: media loaded from it at construction, written back by flush_media
  emu::timing_model model{};
  emu::fault_config faults{};
};

/// The whole set and its engine.
struct drives_config {
  std::vector<drive_config> drives;
  std::uint32_t queues_per_drive = 128;
  std::uint32_t queue_entries = 1024;  ///< SQ and CQ entries
  std::uint32_t engine_blocks = 8;     ///< persistent blocks (at most one per SM is intended)
  std::uint32_t engine_warps_per_block = 16;
  /// With ordering queues: the warps the application's queues are dealt over; the drives' ordering
  /// queues get the warps after them, one each (serving_order.hpp). 0: every warp the ordering
  /// warps leave. drives_config_of sets it when it adds a block for the ordering warps.
  std::uint32_t engine_app_warps = 0;
  /// Queue handover (docs/gpu-engine.md, "Queue handover"): an engine warp whose turns stay
  /// full gives queues away to warps with time to spare, so that no queue waits on one busy SM
  /// for the whole run. Off: each queue stays with the lane the serving order gives it.
  bool engine_handover = true;
  /// Where the engine's blocks run (gpu.engine_placement). False: where the block scheduler puts
  /// them. True: block b on SM b (the kernel is launched with one block per SM, each asking for
  /// all the shared memory a block may have, so no other block shares its SM; the blocks on the
  /// other SMs return at once). engine_blocks must not exceed the GPU's SMs (refused at
  /// construction), and SMs 0 .. engine_blocks - 1 must be free at start (start's bound says so).
  /// What it changes: docs/gpu-engine.md, "Where the engine's blocks land".
  bool engine_on_first_sms = false;
  /// One more queue pair per drive (ordering_queue_entries entries, served by the engine like
  /// the others) for the §4.4 ordering reads of hardware_ref(); drives_config_of sets it for
  /// storage.protocol hardware.
  bool ordering_queues = false;
  /// The ordering reads' timeout, ns: the run's command timeout (command_timeout_ns, i.e.
  /// queues.timeout_ms resolved; drives_config_of sets it). Required (> 0) with
  /// ordering_queues.
  std::uint64_t ordering_timeout_ns = 0;
  /// What a host driver does about commands that do not come back (lib/src/emu/gpu/
  /// gpu_recovery.hpp has the details): each drive gets an admin queue in host memory that the
  /// engine serves (Abort), the engine holds the commands it keeps without completing (dropped or
  /// delayed by fault injection) so that an Abort finds them, and a host watchdog thread, while the
  /// drives run, sends an Abort for every command whose wait gave up. An aborted command completes
  /// with Command Abort Requested and its ID comes back. A queue whose Abort finds nothing a
  /// timeout long, gets no answer, or has too many IDs abandoned at once, is failed (every
  /// waiter gets sc::host_queue_failed at once) and stays failed until the drives stop: GPU
  /// threads are not counted as a queue's users, so nothing tells the driver that none is
  /// inside it, which recreating it in place would need. drives_config_of turns it on with the
  /// run's command timeout.
  bool recovery = false;
  recovery_options recovery_opts{};

  /// Queue pairs the engine serves: queues_per_drive per drive, plus the ordering queues.
  std::uint64_t engine_queues() const {
    return drives.size() * (std::uint64_t{queues_per_drive} + (ordering_queues ? 1 : 0));
  }
};

/// What an application kernel needs: the drives' queues (in device memory), their LBA size and
/// the smallest namespace. Protocol `emulator`: device-scope doorbells and completion polling,
/// which only a controller on the same GPU allows (an upper bound).
using drives_ref = queue_set_ref<device_doorbell>;
/// The same queues driven as a real controller's (protocol `hardware`): MMIO doorbells (a
/// system-scope fence, then a volatile store), completions polled at system scope, and the §4.4
/// ordering read (ordering_read_ref, on the drive's ordering queue) after every read: the code
/// kmod_gpu_queues runs against a real SSD, but for the ordering read's protocol. The drive's
/// ordering queue serves nothing else, so its lock holder holds it for each read
/// (queue_use::exclusive); kmod_gpu_queues' may share queue 0 and keeps BaM's shared protocol.
using hardware_drives_ref =
    ordered_queue_set<mmio_doorbell, cuda::thread_scope_device, queue_use::exclusive>;
/// The queue set of protocol P.
template <storage_protocol P>
using drives_ref_for =
    std::conditional_t<P == storage_protocol::hardware, hardware_drives_ref, drives_ref>;

/// Per-drive counters the engine reports at stop().
struct drive_stats {
  std::uint64_t completed = 0;  ///< completions posted
  std::uint64_t errors = 0;     ///< of those, with a status other than success
  std::uint64_t dropped = 0;    ///< commands fetched and never completed (fault injection)
  std::uint64_t delayed = 0;    ///< completions delayed by fault injection
  /// §4.4 ordering reads served on the drive's ordering queue (hardware_ref()); not in the
  /// counts above, which are the application's queues'. The ordering queue has no faults.
  std::uint64_t ordering_reads = 0;
  /// Commands an Abort took back (recovery), each completed with Command Abort Requested and
  /// counted in `completed` and `errors` too (a dropped one is in `dropped` as well), except those
  /// the watchdog's last pass at stop() aborted: the engine may stop before posting them.
  std::uint64_t aborted = 0;
};

/// One drive's parameters as the engine holds them in GPU memory (device_parameters()): from
/// start() on, the timing model's times and the fault delay in GPU timer units (the model's
/// times scaled by timer_rate()) and the booking horizon; before the first start(), the model's
/// own times and no horizon.
struct drive_parameters {
  emu::service_table service{};
  std::uint64_t max_ahead_ps = 0;    ///< the engine fetches no more while the pipe is booked
                                     ///< further ahead: max(2 x latency, 32 us), timer units
  std::uint64_t fault_delay_ns = 0;  ///< the delay fault's delay
};

class emulated_drives {
 public:
  /// Allocates queues, media and engine state; throws std::runtime_error on CUDA errors,
  /// std::invalid_argument on impossible configurations and std::logic_error (BAM_EXPECTS) on
  /// values a caller's config layer decides (drives_config_of), e.g. engine_app_warps.
  explicit emulated_drives(const drives_config& cfg);
  ~emulated_drives();
  emulated_drives(const emulated_drives&) = delete;
  emulated_drives& operator=(const emulated_drives&) = delete;

  /// Launches the engine and returns when all its warps run. Queues start empty each time.
  void start();
  /// Stops the engine (after the application's work is synchronised) and collects statistics.
  void stop();
  bool running() const { return running_; }

  /// The queue set of protocol `emulator` (device scope).
  drives_ref ref() const { return ref_; }
  /// The queue set of protocol `hardware` (the same queues); std::logic_error unless the drives
  /// were built with ordering_queues.
  hardware_drives_ref hardware_ref() const;
  template <storage_protocol P>
  drives_ref_for<P> ref_for() const {
    if constexpr (P == storage_protocol::hardware) {
      return hardware_ref();
    } else {
      return ref();
    }
  }
  const std::vector<drive_stats>& stats() const { return stats_; }
  /// What the recovery watchdog did since the drives were built (zeros without
  /// drives_config::recovery); episodes still open when the drives stopped are counted in
  /// recovery_failures. Any time.
  recovery_counts recovery() const;
  /// The message of the last recovery that failed (empty: none).
  std::string recovery_failure() const;
  /// Host pointer to drive `d`'s media (pinned host media: the live bytes; device media: none).
  std::byte* host_media(std::uint32_t d) const;
  /// Drive `d`'s media as this GPU addresses it (device memory, or mapped pinned host memory):
  /// bytes [0, media_bytes(d)), what the engine reads and writes. cudaMemcpy* reach it.
  std::byte* media(std::uint32_t d) const;
  std::uint64_t media_bytes(std::uint32_t d) const;
  /// GPU memory the drives reach by DMA: cudaMalloc'd, bus address = its device address (what
  /// the engine dereferences). Slots of a cache over these drives come from here.
  dma_allocator& dma_memory() const;
  /// Writes file-backed media back to their files (engine stopped).
  void flush_media();
  std::uint32_t engine_warps() const;
  /// The engine's shape as configured: its blocks (one per SM intended) and the warps the
  /// application's queues are dealt over (drives_config::engine_app_warps; 0: all but the
  /// ordering warps).
  std::uint32_t engine_blocks() const;
  std::uint32_t engine_app_warps() const;
  /// Block b on SM b (drives_config::engine_on_first_sms), not where the scheduler puts it.
  bool engine_on_first_sms() const;
  /// Where the last start() put the engine: the warp that took each engine queue
  /// (drives_config::engine_queues() of them: the drives' queues, then the ordering queues;
  /// ~0u: none), and the SM each engine block runs on (%smid). Empty before the first start().
  const std::vector<std::uint32_t>& start_warps() const;
  const std::vector<std::uint32_t>& engine_sms() const;
  /// Queues engine warps gave away (drives_config::engine_handover: put in the pool) in the last
  /// run, read at stop(). Each was taken by a warp with a free lane, which may be the one that gave
  /// it away; a queue still in the pool at stop() is counted too.
  std::uint64_t handovers() const;
  /// GPU %globaltimer nanoseconds per host nanosecond, measured by the last start(); the
  /// timing models' times are scaled by it so that caps and latencies hold in real time.
  double timer_rate() const;
  /// Each drive's parameters read back from GPU memory, where the engine reads them (for tests
  /// and reports; any time, also while the engine runs).
  std::vector<drive_parameters> device_parameters() const;

 private:
  struct impl;
  impl* impl_ = nullptr;
  drives_ref ref_{};
  std::vector<drive_stats> stats_;
  bool running_ = false;
};

}  // namespace bam::emu::gpu
