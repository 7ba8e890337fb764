// The GPU controller engine of emulated drives (internal): parameters shared by the host owner
// (emulated_drives.cu) and the kernel (engine.cu).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "bam/emu/fault_injection.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/emu/gpu/handover_pool.hpp"
#include "bam/emu/nvm_processor.hpp"
#include "bam/emu/timing_model.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam::emu::gpu::detail {

/// Controller side of one I/O queue pair.
struct engine_queue {
  nvme::command* sq;
  nvme::completion* cq;
  std::uint32_t* sq_doorbell;
  std::uint32_t* cq_doorbell;
  std::uint32_t sq_entries, cq_entries;
  std::uint16_t qid;
  std::uint16_t drive;
  bool ordering;  ///< the drive's ordering queue (§4.4 reads): exempt from fault injection
};

/// IDs an Abort took back and the owner lane has not completed yet, per queue; an Abort that
/// finds the ring full answers "not aborted" (the driver tries again).
inline constexpr std::uint32_t abort_ring_entries = 64;

/// One drive's admin queue as the engine serves it (recovery on): rings and doorbells in mapped
/// pinned host memory, where the host driver's queue_pair reads and writes them, and the
/// engine's own positions. Only Abort is implemented; other opcodes get Invalid Opcode.
struct engine_admin {
  const nvme::command* sq;
  nvme::completion* cq;
  const std::uint32_t* sq_doorbell;
  const std::uint32_t* cq_doorbell;
  std::uint32_t entries;
  std::uint32_t sq_head;       ///< slot
  std::uint64_t cq_tail;       ///< virtual
  unsigned long long aborted;  ///< Aborts that found their command
};

/// One drive as the engine sees it.
struct engine_drive {
  std::byte* media;     ///< device-accessible (mapped pinned host or device memory)
  emu::nvm_config nvm;  ///< namespace size, LBA size, MPS, MDTS
  emu::service_table service;
  emu::fault_plan faults;
  emu::drive_clock* clock;
  std::uint64_t max_ahead_ps;  ///< fetch no more while the pipe is booked further ahead than this
  bool moves_data;
};

/// Per-queue counters, written by the owning warp when the engine stops.
struct engine_queue_stats {
  unsigned long long completed, errors, dropped, delayed;
};

/// Recovery on: per application queue q (q < app_queues), queue_words words at
/// words + q * queue_words: its held table [cid_count], then its abort ring
/// [2 + abort_ring_entries]. Kept out of engine_queue, so that the hot loop's per-lane queue
/// state does not carry it; passed by value to the (out-of-line) fault paths.
///
/// Held table: entry cid non-zero means the drive holds the command with that ID without
/// completing it (a dropped command, or a delayed one whose completion is parked), so that an
/// Abort finds it; the value is the command's token (its fetch number + 1), which its parked
/// completion also keeps. Whoever takes the token completes the command: the Abort (Command
/// Abort Requested), or the post of its parked completion (a compare-and-swap with its own
/// token, so a later command that reused the ID is never taken for it).
///
/// Abort ring: [0] tail (the admin server's), [1] head (the owner lane's), then the IDs an Abort
/// took back, for the queue's owning lane to complete.
struct abort_tables {
  std::uint32_t* words = nullptr;  ///< null: recovery off
  std::uint32_t queue_words = 0;
  std::uint32_t app_queues = 0;
  std::uint32_t cid_count = 0;  ///< command IDs of an application queue
  /// Per application queue, its driver-side completion boxes (GPU memory): an Abort takes a
  /// command only while its box says its waiter gave up on it.
  completion_box* const* boxes = nullptr;

  /// Queue q's held table, or null (recovery off, or an ordering queue).
  __host__ __device__ std::uint32_t* held(std::uint32_t q) const {
    return words == nullptr || q >= app_queues ? nullptr : words + std::size_t{q} * queue_words;
  }
  /// Queue q's abort ring, or null.
  __host__ __device__ std::uint32_t* ring(std::uint32_t q) const {
    std::uint32_t* const h = held(q);
    return h == nullptr ? nullptr : h + cid_count;
  }
};

/// A queue's controller state while no engine lane holds it (queue handover).
struct engine_queue_record {
  std::uint64_t sq_fetched;    ///< virtual: fault-injection key
  std::uint64_t cq_tail;       ///< virtual
  std::uint32_t sq_head;       ///< slot
  std::uint32_t cq_head_slot;  ///< the owner's last read of the CQ head doorbell
  /// %globaltimer when it was put in the pool; written and read atomically (a taker reads it to
  /// decide before it takes, while an earlier taker may be giving the queue away again)
  std::uint64_t released_ns;
};

/// Queue handover (docs/gpu-engine.md, "Queue handover"): a warp whose turns stay full gives
/// one of its queues away, and a warp with time to spare, or any warp with a free lane once the
/// queue has waited handover_force_ns, takes it. A queue keeps one owner lane at a time: the
/// owner stops fetching from it, posts what it parked for it, writes its state to `records` and
/// its counters to engine_params::stats, and puts it in the pool; the taker reads them back.
struct engine_handover {
  engine_queue_record* records = nullptr;  ///< [n_queues]; null: handover off
  handover_pool_ref pool;                  ///< the queues given away, n_queues slots or more
  unsigned long long* given = nullptr;     ///< queues put in the pool so far
  /// A warp keeps at least this many queues (half its share of the queues, at least 1): a warp
  /// on a slow SM sheds part of its load, and no queue travels for ever.
  std::uint32_t keep = 1;
  /// A warp gives a queue away at most once per this many handover_clock() ticks, and not
  /// within as many after it took one: total_warps / handover_max_rate seconds.
  std::uint32_t give_gap_ticks = 0;
};

/// A turn that takes at least this many entries is full ...
inline constexpr std::uint32_t handover_full_batch = 24;
/// ... and a warp gives a queue away after this many full turns in a row (then counts again).
inline constexpr std::uint32_t handover_full_turns = 16;
/// A warp takes a queue from the pool when its last turn took fewer entries than this (checked
/// every handover_poll_turns turns) ...
inline constexpr std::uint32_t handover_light_batch = 8;
inline constexpr std::uint32_t handover_poll_turns = 8;
/// ... or, when its last turn was not full, once the queue has waited in the pool this long ...
inline constexpr std::uint32_t handover_force_ns = 200'000;
/// ... or, whatever its load, once it has waited this long (a queue is never left without an
/// owner: the warp that gave it away takes it back if no other does).
inline constexpr std::uint32_t handover_force_any_ns = 2'000'000;
/// A warp keeps a queue it was giving away when one of the completions it parked for it is due
/// this much later (a delay fault's): the queue would wait as long without an owner.
inline constexpr std::uint64_t handover_drain_ns = 1'000'000;
/// A warp gives nothing away while the pool holds this many queues.
inline constexpr std::uint32_t handover_pool_limit = 8;
/// Queues given away a second, all warps together, at most once every warp has given one
/// (engine_handover::give_gap_ticks; a warp's first give may come at once). Without a bound the
/// handover at times ran away: 23-33 K queues given away a second, and at 16 x 16 4-5 % less
/// rate (likely queues taken with the backlog they gathered in the pool and given away again
/// 16 full turns later; not measured per queue: docs/gpu-engine.md, "The handover's runaway").
inline constexpr std::uint32_t handover_max_rate = 4000;
/// The handover's clock: %globaltimer in ticks of 1,024 ns (32 bits: 73 minutes a lap; only
/// differences are used).
inline constexpr std::uint32_t handover_tick_shift = 10;

struct engine_params {
  const engine_queue* queues;
  std::uint32_t n_queues;
  const engine_drive* drives;
  engine_queue_stats* stats;  ///< [n_queues]
  const volatile std::uint32_t* stop;
  std::uint32_t* started;  ///< warps running
  std::uint32_t total_warps;
  /// The warps the application's queues are dealt over when the ordering queues have warps of
  /// their own beside them (served_queue's `apps`; 0: every warp the ordering warps leave).
  std::uint32_t app_warps;
  std::uint64_t timer_base;  ///< %globaltimer at start: virtual time (ps) counts from here
  /// Recovery on: [n_drives] admin queues, served by warp 0; else null.
  engine_admin* admin;
  std::uint32_t n_drives;
  std::uint32_t queues_per_drive;  ///< application queues per drive (SQID i + 1: queue i)
  abort_tables aborts;             ///< recovery on: the held tables and abort rings; else empty
  engine_handover handover;        ///< handover on: its records and pool; else empty
  /// Where the engine started (written once at start, for tests and reports): [n_queues] the
  /// warp that took each queue (~0u: none), [blocks] the SM each block runs on.
  std::uint32_t* start_warp_of;
  std::uint32_t* block_sm;
  /// 0: the block scheduler placed the engine (blockIdx.x is the engine's block). Else the
  /// engine's block count, block b on SM b (drives_config::engine_on_first_sms): the kernel was
  /// launched with one block per SM, and the blocks on the SMs past this count return at once
  /// (block_sm starts all ~0u: a block claims its SM's entry).
  std::uint32_t blocks_on_first_sms;
};

/// A warp's sleep after a turn that took and posted nothing. A warp that serves no queue (more
/// warps than queues, as at QD1 or one SSD's 128 queue pairs on 256 warps) only looks at the
/// handover pool and the stop flag: it sleeps longer, leaving its SM's issue slots to the warps
/// that serve queues (QD1 `null` 0.7 us shorter in the hardware protocol, 0.1-0.6 us in the
/// emulator one: docs/gpu-engine.md, "QD1's short steps"). The warp that serves the admin queues
/// (warp 0) always serves queue 0 (place 0 of the serving order; a warp keeps at least one queue
/// in a handover), so it never sleeps this long.
inline constexpr unsigned engine_idle_sleep_ns = 64;
inline constexpr unsigned engine_unserving_sleep_ns = 2048;

/// Pending completions per engine warp (shared memory).
inline constexpr std::uint32_t pending_per_warp = 128;
/// Largest engine block: the kernel's launch bound (registers are capped to fit it on an SM).
inline constexpr std::uint32_t engine_max_warps_per_block = max_engine_warps_per_block;

/// 16-byte loads each lane of an engine warp keeps in flight while it moves data: they land in
/// the warp's staging area in shared memory (asynchronous copies), not in registers.
inline constexpr std::uint32_t engine_copy_depth = 8;
/// Words of the warp's queue-handover state, after its per-lane counts (engine.cu, warp_state).
inline constexpr std::uint32_t engine_handover_words = 4;
/// The pending table's bytes per warp (due times, infos, per-lane counts and handover state, held
/// rows, tokens).
inline constexpr std::size_t engine_table_bytes_per_warp =
    pending_per_warp * (sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
    (32 + engine_handover_words) * sizeof(std::uint32_t) +
    pending_per_warp / 32 * sizeof(std::uint32_t) + pending_per_warp * sizeof(std::uint32_t);
/// The data-movement staging area per warp: engine_copy_depth 16-byte slots per lane.
inline constexpr std::size_t engine_stage_bytes_per_warp = std::size_t{32} * engine_copy_depth * 16;
static_assert(engine_table_bytes_per_warp % 16 == 0, "the staging area must be 16-byte aligned");
inline constexpr std::size_t engine_shared_bytes_per_warp =
    engine_table_bytes_per_warp + engine_stage_bytes_per_warp;
/// Drives whose descriptors each engine block copies into its shared memory at start (the
/// drives after them are read from global memory). Read from global memory after a busy turn's
/// acquire fence, the descriptor reads of fetch, the fault decision, the command processor and
/// booking cost QD1 1.1 us (docs/gpu-engine.md, "The drive table in shared memory"): likely an
/// L2 round trip each, the fence leaving the SM's L1 to be filled again (what the hardware does
/// for a device-scope acquire; PTX does not promise it).
inline constexpr std::uint32_t engine_shared_drives = shared_drive_descriptors;
static_assert(sizeof(engine_drive) % 8 == 0, "the drive table is copied 8 bytes at a time");
/// Static shared memory of an engine block: the drive table's copy.
inline constexpr std::size_t engine_static_shared_bytes =
    engine_shared_drives * sizeof(engine_drive);
/// Dynamic shared memory of an engine block of `warps_per_block` warps (launch_engine's;
/// emulated_drives checks it with the static part against the GPU's per-block limit).
inline constexpr std::size_t engine_shared_bytes(std::uint32_t warps_per_block) {
  return engine_shared_bytes_per_warp * warps_per_block;
}

/// Reads the GPU's %globaltimer into *out (one thread), on `stream`.
cudaError_t launch_timer_probe(std::uint64_t* out, cudaStream_t stream);

/// Launches the engine kernel (does not wait): `grid` blocks of `warps_per_block` warps with
/// `shared` bytes of dynamic shared memory each (at least engine_shared_bytes(warps_per_block);
/// with p.blocks_on_first_sms, one block per SM, each with all a block may have).
cudaError_t launch_engine(const engine_params& p, std::uint32_t grid, std::uint32_t warps_per_block,
                          std::size_t shared, cudaStream_t stream);

}  // namespace bam::emu::gpu::detail
