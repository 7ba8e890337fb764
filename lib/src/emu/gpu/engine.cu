// The GPU controller engine: persistent warps that serve emulated drives' I/O queues.
//
// Warp w of W owns the queues at places w, w + W, w + 2W, ... of the serving order (at most 32,
// bam/emu/gpu/serving_order.hpp: lane j holds the controller state of the queue at place w + j*W
// in registers, `warp_state`). Each turn of its loop (`engine_kernel`) a warp
//   claim_entries     reads the SQ tail doorbells of its queues (one lane each) and takes up to 32
//                     new entries, no more than it has free pending slots, the queues in turn
//                     (the first moves on by one every turn; when not all fit, each queue first
//                     takes up to an equal share);
//   1. fetch_batch    one lane per entry: fetch, fault decision, emu::process_nvm (the processor
//                     shared with the host engine) with a DMA policy that only records what to
//                     move;
//   2. book_time      asks the drive's timing model for each command's completion time (one
//                     reservation of the drive's pipe per batch and drive);
//   3. move_data      moves the data of the batch warp-cooperatively, 16-byte chunks spread over
//                     all lanes (media <-> the buffer PRP1/PRP2 name; multi-page PRPs through
//                     walk_prps); park_completions then parks the completions in shared memory;
//   4. post_due       posts every parked completion that is due (CQ has room): DW0-2, then DW3.
// A turn that took a single command due at once with nothing parked (QD1 on an untimed drive)
// posts it in its queue's lane instead of parking it (post_single: the same stores and per-queue
// counts as post_due), and skips move_data when it moves no data.
// Every 256 turns a warp also reads the stop flag and completes the commands an Abort took back
// (serve_aborts); warp 0 serves the drives' admin queues (serve_admin: Abort), when the drives
// were built with recovery. With queue handover on (engine_handover: note_turn, hand_over), a warp
// whose turns stay full gives a queue away through a pool that warps with time to spare take
// from, so the serving order above is where each queue starts, not where it stays.
// Ordering and throttling come from the due times; no thread sleeps for a command. The steps are
// __forceinline__: the kernel is one function after inlining, as when it was written as one
// (registers, stack and instruction count are compared in the commit that split it).
#include <cuda_pipeline_primitives.h>
#include <cuda/annotated_ptr>
#include <cuda/atomic>
#include <cuda/ptx>

#include "bam/detail/clock.hpp"
#include "bam/detail/sm_id.hpp"
#include "bam/emu/gpu/serving_order.hpp"
#include "bam/emu/nvm_processor.hpp"
#include "bam/nvme/prp.hpp"
#include "engine.cuh"

namespace bam::emu::gpu::detail {
namespace {

constexpr std::uint32_t full = 0xffffffffu;
constexpr std::uint64_t empty_slot = ~std::uint64_t{0};

__device__ std::uint32_t lanemask_lt() {
  std::uint32_t m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

template <class T>
__device__ T shfl(T v, int src) {
  return __shfl_sync(full, v, src);
}
__device__ std::uint64_t shfl64(std::uint64_t v, int src) {
  return __shfl_sync(full, static_cast<unsigned long long>(v), src);
}
template <class T>
__device__ T* shfl_ptr(T* p, int src) {
  return reinterpret_cast<T*>(shfl64(reinterpret_cast<std::uintptr_t>(p), src));
}

/// The L2 policy of what the engine touches once: the SQ entries it fetches, and what its
/// single-piece copies store (a read's data into the application's buffer, a write's into the
/// media). Evict-first (libcu++'s access_property::streaming), meant to let them leave the L2
/// before the queues' other state (the intent; the L2's hits were not measured). A cache hint
/// only: what orders these accesses is the fences around them. A real drive's reads of its flash
/// do not go through the GPU's memory system; the engine's reads of pinned media do, and lines
/// missing the L2 beside them slow them. Issue 19's table went from 0.94 to 0.98 of the
/// direct-read ceiling at 512 B over 4 GiB and from 0.88 to 0.92 over 10 GiB
/// (docs/gpu-engine.md, "What each ring's size costs").
__device__ __forceinline__ std::uint64_t streaming_policy() {
  return static_cast<std::uint64_t>(cuda::access_property(cuda::access_property::streaming{}));
}

/// Warp-cooperative copy of one contiguous piece (16-byte aligned, multiple of 16 bytes).
__device__ void copy_piece(std::byte* dst, const std::byte* src, std::uint64_t bytes, int lane) {
  const auto* s = reinterpret_cast<const uint4*>(src);
  auto* d = reinterpret_cast<uint4*>(dst);
  const std::uint64_t n = bytes / 16;
  constexpr int unroll = 8;
  std::uint64_t i = lane;
  for (; i + 32 * (unroll - 1) < n; i += 32 * unroll) {
    uint4 v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      v[u] = __ldcg(s + i + 32 * u);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      __stcg(d + i + 32 * u, v[u]);
  }
  for (; i < n; i += 32)
    __stcg(d + i, __ldcg(s + i));
}

/// The emulated drive's media as the shared processor sees it. Writes are durable when stored
/// (flush_media writes file-backed media back), so flush has nothing to do.
struct media_ref {
  std::byte* base;
  __device__ std::uint8_t* data() const { return reinterpret_cast<std::uint8_t*>(base); }
  __device__ void flush() {}
};

/// Bus addresses of emulated drives are virtual addresses (identity DMA window); 0 is refused.
__device__ std::uint8_t* identity_map(std::uint64_t bus) {
  return bus == 0 ? nullptr : reinterpret_cast<std::uint8_t*>(bus);
}

/// What process_nvm asked to move, recorded by one lane: the first copy and the counts.
struct piece_record {
  std::uint8_t* dst = nullptr;
  const std::uint8_t* src = nullptr;
  std::uint64_t n = 0;
  std::uint32_t copies = 0, zeros = 0;
};
struct recording_dma {
  piece_record* r;
  __device__ std::uint8_t* map(std::uint64_t bus, std::uint64_t) const { return identity_map(bus); }
  __device__ void copy(void* d, const void* s, std::uint64_t n) const {
    if (!__isGlobal(d)) {  // the processor's own small buffers (Dataset Management ranges)
      memcpy(d, s, n);
      return;
    }
    if (r->copies++ == 0) {
      r->dst = static_cast<std::uint8_t*>(d);
      r->src = static_cast<const std::uint8_t*>(s);
      r->n = n;
    }
  }
  __device__ void zero(void*, std::uint64_t) const { ++r->zeros; }
};

/// Every lane of the warp runs the processor with the same command; each copy is shared out.
/// A destination in local memory (the processor's own small buffers) is every lane's own.
struct warp_dma {
  int lane;
  __device__ std::uint8_t* map(std::uint64_t bus, std::uint64_t) const { return identity_map(bus); }
  __device__ void copy(void* d, const void* s, std::uint64_t n) const {
    if (!__isGlobal(d)) {
      memcpy(d, s, n);
      return;
    }
    if (((reinterpret_cast<std::uintptr_t>(d) | reinterpret_cast<std::uintptr_t>(s) | n) & 15) ==
        0) {
      copy_piece(static_cast<std::byte*>(d), static_cast<const std::byte*>(s), n, lane);
      return;
    }
    for (std::uint64_t i = lane; i < n; i += 32)
      static_cast<std::uint8_t*>(d)[i] = static_cast<const std::uint8_t*>(s)[i];
  }
  __device__ void zero(void* d, std::uint64_t n) const {
    for (std::uint64_t i = lane; i < n; i += 32)
      static_cast<std::uint8_t*>(d)[i] = 0;
  }
};

/// Inclusive prefix sum of x over the warp's lanes (all lanes take part).
__device__ __forceinline__ std::uint32_t inclusive_sum(std::uint32_t x, int lane) {
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const std::uint32_t v = __shfl_up_sync(full, x, o);
    if (lane >= o) x += v;
  }
  return x;
}

__device__ std::uint32_t pack_info(std::uint16_t cid, nvme::status st, std::uint32_t owner) {
  return std::uint32_t{cid} | (std::uint32_t{st.sc} << 16) | (std::uint32_t{st.sct & 7u} << 24) |
         (owner << 27);
}

/// One lane's view of its warp across turns: the queue the lane serves (if any) with that queue's
/// controller state in registers, and the warp's pending-completion table in shared memory.
struct warp_state {
  int lane;
  std::uint64_t* due;   ///< [pending_per_warp] due time of each parked completion; empty_slot: free
  std::uint32_t* info;  ///< [pending_per_warp] CID, status and owner lane of each (pack_info)
  /// [32] completions posted per owner lane in one round of post_due; then the warp's queue
  /// handover state (hand_over): [handover_full] full turns in a row, [handover_releasing] the lane
  /// whose queue is being given away + 1 (0: none), [handover_last] the last turn's entries,
  /// [handover_since] handover_clock() at the warp's last give or take
  std::uint32_t* add;
  /// [pending_per_warp / 32] bit s % 32 of word s / 32: slot s holds a completion whose command
  /// is also in its queue's held table (a delayed command, recovery on), with token tokens[s]
  std::uint32_t* held_rows;
  std::uint32_t* tokens;  ///< [pending_per_warp]
  uint4* stage;           ///< [32 * engine_copy_depth] data-movement staging (move_data)
  std::uint32_t q;        ///< this lane's queue: served_queue(warp + lane * total_warps)
  bool have;              ///< q < n_queues
  engine_queue Q;
  std::uint32_t sq_head;       ///< slot
  std::uint64_t sq_fetched;    ///< virtual: fault-injection key
  std::uint64_t cq_tail;       ///< virtual
  std::uint32_t cq_head_slot;  ///< from the CQ head doorbell
  engine_queue_stats st;
  std::uint32_t parked;  ///< pending slots in use (warp-uniform)
  /// Lanes 0 .. serving-1 may have a queue, the others have none (warp-uniform); after a
  /// handover a lane below it may have none (it takes nothing).
  std::uint32_t serving;
  std::uint32_t lead;  ///< the lane whose queue is taken from first next turn (warp-uniform)
};

/// Places of the handover state in warp_state::add (shared memory, not registers: the hot loop
/// is at its register cap, and these are read once a turn).
constexpr std::uint32_t handover_full = 32, handover_releasing = 33, handover_last = 34,
                        handover_since = 35;
static_assert(handover_since < 32 + engine_handover_words);

/// engine_handover's clock (handover_tick_shift).
__device__ __forceinline__ std::uint32_t handover_clock() {
  return static_cast<std::uint32_t>(bam::now_ns() >> handover_tick_shift);
}

/// The entries a turn takes: `take` from this lane's own queue, the first of them at index `excl`
/// of the batch; `total` over the warp (warp-uniform).
struct claim {
  std::uint32_t take, excl, total;
};

/// One turn's batch: lane i < total carries entry i, fetched from the queue of lane `owner`.
struct batch {
  int owner;
  std::uint32_t o_drive;  ///< the owner queue's drive
  bool mine;              ///< this lane carries an entry
  /// Non-zero: its command is in the queue's held table with this token, its completion parked
  std::uint32_t hold_token;
  nvme::command c;
  nvme::status status;
  emu::fault_action fate;
  piece_record rec;  ///< the copies process_nvm asked for
  const engine_drive* D;
  bool moves;          ///< the drive moves data (D->moves_data, read before the processor runs)
  std::uint64_t when;  ///< due time (timer ns); 0: at once
};

/// The block's copy of the first engine_shared_drives drives' descriptors (static shared memory:
/// a constant address). Raw words: a __shared__ variable cannot have engine_drive's default
/// member initializers.
__shared__ __align__(16) std::uint64_t drive_copy[engine_shared_drives * sizeof(engine_drive) / 8];
static_assert(sizeof drive_copy == engine_static_shared_bytes && alignof(engine_drive) <= 16,
              "emulated_drives counts engine_static_shared_bytes against the per-block limit");

/// Drive `d`'s descriptor: the block's copy in shared memory for the first engine_shared_drives
/// drives, global memory for the rest.
__device__ __forceinline__ const engine_drive* drive_at(const engine_params& p, std::uint32_t d) {
  return d < engine_shared_drives ? reinterpret_cast<const engine_drive*>(drive_copy) + d
                                  : p.drives + d;
}

/// Copies the first engine_shared_drives drives' descriptors into the block's shared memory
/// (drive_at). The host writes the table before the launch and not while the engine runs.
__device__ void load_drive_table(const engine_params& p) {
  const std::uint32_t n = p.n_drives < engine_shared_drives ? p.n_drives : engine_shared_drives;
  const auto* src = reinterpret_cast<const std::uint64_t*>(p.drives);
  const std::uint32_t words = n * static_cast<std::uint32_t>(sizeof(engine_drive) / 8);
  for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
    drive_copy[i] = src[i];
  __syncthreads();
}

/// Lays out the warp's pending table, loads the lane's queue, and counts the warp as started.
__device__ __forceinline__ warp_state start_warp(const engine_params& p, std::uint32_t block,
                                                 std::uint32_t blocks) {
  extern __shared__ __align__(16) std::uint64_t shared[];
  warp_state w;
  w.lane = static_cast<int>(threadIdx.x % 32);
  const std::uint32_t warp_in_block = threadIdx.x / 32;
  const std::uint32_t warps_per_block = blockDim.x / 32;
  // Warps are numbered across the blocks first (warp w: block w % blocks), so that the first
  // places of the serving order, which every configuration has, are spread over all the
  // engine's SMs.
  const std::uint32_t warp = warp_in_block * blocks + block;

  // The block's shared memory: every warp's due times, then its 32-bit arrays (info, add,
  // held_rows, tokens: each array for all warps in turn), then its staging slots.
  constexpr std::uint32_t add_words = 32 + engine_handover_words;
  constexpr std::uint32_t words_per_warp =
      pending_per_warp + add_words + pending_per_warp / 32 + pending_per_warp;
  static_assert(pending_per_warp * sizeof(std::uint64_t) + words_per_warp * sizeof(std::uint32_t) ==
                    engine_table_bytes_per_warp,
                "engine_table_bytes_per_warp must be this layout's size");
  std::uint32_t* const words =
      reinterpret_cast<std::uint32_t*>(shared + warps_per_block * pending_per_warp);
  w.due = shared + warp_in_block * pending_per_warp;
  w.info = words + warp_in_block * pending_per_warp;
  w.add = words + warps_per_block * pending_per_warp + warp_in_block * add_words;
  w.held_rows = words + warps_per_block * (pending_per_warp + add_words) +
                warp_in_block * (pending_per_warp / 32);
  w.tokens = words + warps_per_block * (pending_per_warp + add_words + pending_per_warp / 32) +
             warp_in_block * pending_per_warp;
  w.stage = reinterpret_cast<uint4*>(words + warps_per_block * words_per_warp) +
            warp_in_block * (32 * engine_copy_depth);
  for (std::uint32_t i = w.lane; i < pending_per_warp; i += 32)
    w.due[i] = empty_slot;
  w.add[w.lane] = 0;
  // The handover words start at 0, but the last give or take is a gap ago: a warp may give its
  // first queue away at once (one store per word: no lane writes a word another lane writes).
  if (static_cast<std::uint32_t>(w.lane) < engine_handover_words)
    w.add[32 + w.lane] =
        32 + static_cast<std::uint32_t>(w.lane) == handover_since && p.handover.records != nullptr
            ? handover_clock() - p.handover.give_gap_ticks
            : 0;
  if (static_cast<std::uint32_t>(w.lane) < pending_per_warp / 32) w.held_rows[w.lane] = 0;

  // Place warp + lane * total_warps of the serving order (bam/emu/gpu/serving_order.hpp).
  w.q = served_queue(warp + static_cast<std::uint32_t>(w.lane) * p.total_warps, p.n_drives,
                     p.queues_per_drive, p.total_warps,
                     p.n_queues - p.n_drives * p.queues_per_drive, p.app_warps);
  w.have = w.q < p.n_queues;
  w.Q = engine_queue{};
  if (w.have) {
    w.Q = p.queues[w.q];
    p.start_warp_of[w.q] = warp;
  }
  if (threadIdx.x == 0 && p.blocks_on_first_sms == 0) p.block_sm[block] = bam::detail::sm_id();
  w.sq_head = 0;
  w.sq_fetched = 0;
  w.cq_tail = 0;
  w.cq_head_slot = 0;
  w.st = engine_queue_stats{0, 0, 0, 0};
  w.parked = 0;
  w.serving = static_cast<std::uint32_t>(__popc(__ballot_sync(full, w.have)));
  w.lead = 0;
  if (!w.have) w.q = ~0u;  // no queue: no held table, no abort ring

  __syncwarp();
  if (w.lane == 0) {
    // The warp's start_warp_of and block_sm writes (every lane's, ordered by the __syncwarp)
    // before the count start() waits for and then reads them after.
    __threadfence();
    atomicAdd(p.started, 1u);
  }
  return w;
}

/// Entries waiting in this lane's SQ that its drive will take now.
__device__ __forceinline__ std::uint32_t new_entries(const engine_params& p, const warp_state& w) {
  std::uint32_t avail = 0;
  if (w.have) {
    const std::uint32_t tail =
        cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(*w.Q.sq_doorbell)
            .load(cuda::memory_order_relaxed);
    if (tail < w.Q.sq_entries)
      avail = tail >= w.sq_head ? tail - w.sq_head : tail + w.Q.sq_entries - w.sq_head;
    // A drive takes commands only as far ahead as its pipe is booked (its internal queue):
    // the rest wait in the SQ, so parked commands of a busy drive never fill the pending table
    // that this warp shares with other drives' queues.
    const engine_drive& md = *drive_at(p, w.Q.drive);
    if (avail != 0 && md.service.throttled) {
      const std::uint64_t busy =
          cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(md.clock->busy_until_ps)
              .load(cuda::memory_order_relaxed);
      if (busy > (bam::now_ns() - p.timer_base) * 1000 + md.max_ahead_ps) avail = 0;
    }
  }
  return avail;
}

/// Up to 32 entries over the warp's queues, no more than the pending table has free slots for
/// (the cap), the queues in turn (a rotating priority, like NVMe's round-robin arbitration): the
/// queue first in the order moves on by one lane every turn that takes anything. When the cap
/// holds every entry the queues show, each queue takes all of its own. When it does not, each
/// queue with entries first takes up to an equal share of the cap (at least one entry while the
/// cap lasts, in that order), and what is left goes in that order: an arbitration burst of cap /
/// queues with entries. Why: with the first queue taking up to the whole cap, a backlog served
/// each queue in bulk about one turn in as many as the warp has queues; at the 10-SSD 1 GiB
/// point with the engine on the first SMs the commands slower than 1.5 ms spent 83-91 % of their
/// mean time before the claim that took them (docs/gpu-engine.md, "Where the tail waits", "A
/// fair claim").
__device__ __forceinline__ claim claim_entries(const engine_params& p, warp_state& w) {
  const std::uint32_t avail = new_entries(p, w);
  const std::uint32_t room = pending_per_warp - w.parked;
  const std::uint32_t cap = room < 32 ? room : 32;
  // A queue being handed over takes nothing more.
  const bool releasing = static_cast<std::uint32_t>(w.lane) + 1 == w.add[handover_releasing];
  const std::uint32_t want = releasing ? 0 : (avail < 32 ? avail : 32);
  // Lanes 0 .. n-1 serve queues; this turn's order starts at lane `lead`: position i is lane
  // (lead + i) mod n (lanes without a queue keep their place and take nothing).
  const auto lane = static_cast<std::uint32_t>(w.lane);
  const std::uint32_t n = w.serving, lead = w.lead;
  const std::uint32_t at_pos = lane < n ? (lane + lead < n ? lane + lead : lane + lead - n) : lane;
  const std::uint32_t pos = lane < n ? (lane >= lead ? lane - lead : lane + n - lead) : lane;
  // This lane's inclusive prefix of x over the positions (lane i reads the value of position i,
  // then its own prefix at its position); `all_of`: the sum over every position.
  const auto by_position = [&](std::uint32_t x, std::uint32_t& all_of) {
    const std::uint32_t incl_at_pos = inclusive_sum(shfl(x, static_cast<int>(at_pos)), w.lane);
    all_of = shfl(incl_at_pos, 31);
    return shfl(incl_at_pos, static_cast<int>(pos));
  };
  // x, of which no more than `limit` minus what the positions before took (`before`).
  const auto fit = [](std::uint32_t x, std::uint32_t before, std::uint32_t limit) {
    return before >= limit ? 0u : (x < limit - before ? x : limit - before);
  };
  std::uint32_t take = want;
  if (__reduce_add_sync(full, want) > cap) {  // warp-uniform
    const auto active = static_cast<std::uint32_t>(__popc(__ballot_sync(full, want != 0)));
    const std::uint32_t share = cap / active != 0 ? cap / active : 1;
    std::uint32_t all1 = 0, unused = 0;
    std::uint32_t first = want < share ? want : share;
    first = fit(first, by_position(first, all1) - first, cap);
    const std::uint32_t used = all1 < cap ? all1 : cap;
    std::uint32_t rest = want - first;
    rest = fit(rest, by_position(rest, unused) - rest, cap - used);
    take = first + rest;
  }
  std::uint32_t all = 0;
  const std::uint32_t excl = by_position(take, all) - take;
  // Took something (which a cap of 0 never does: every fit above is then 0).
  if (all != 0 && n > 1) w.lead = lead + 1 == n ? 0 : lead + 1;
  return {take, excl, all};
}

/// Recovery on: puts command `cid` of queue `q`, fetched as the queue's command number `fetched`,
/// in the queue's held table; returns its token (0: recovery off, or an ID outside the pool,
/// which no Abort can name). Out of line: the fault path stays out of the hot loop's registers.
__device__ __noinline__ std::uint32_t hold(abort_tables t, std::uint32_t q, std::uint32_t cid,
                                           std::uint64_t fetched) {
  std::uint32_t* const held = t.held(q);
  if (held == nullptr || cid >= t.cid_count) return 0;
  const auto token = static_cast<std::uint32_t>(fetched % 0x7fffffffu) + 1;
  atomicExch(held + cid, token);
  return token;
}

/// 1. Fetch: lane i < total loads entry i of the batch, decides its fault and runs the shared
/// command processor on it with a DMA policy that only records what to move.
__device__ __forceinline__ void fetch_batch(const engine_params& p, warp_state& w, const claim& k,
                                            batch& b) {
  const int lane = w.lane;
  // The doorbells were read relaxed: one fence orders the entry loads after them, and the
  // warp barrier extends that to the lanes that load entries of other lanes' queues.
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
  __syncwarp();
  // Lane i < total handles entry i of the batch: find its queue's lane.
  b.owner = 0;
  std::uint32_t first = 0;
  for (std::uint32_t m = __ballot_sync(full, k.take > 0); m != 0; m &= m - 1) {
    const int l = __ffs(m) - 1;
    const std::uint32_t e = shfl(k.excl, l), t = shfl(k.take, l);
    if (static_cast<std::uint32_t>(lane) >= e && static_cast<std::uint32_t>(lane) < e + t) {
      b.owner = l;
      first = e;
    }
  }
  const std::uint32_t o_head = shfl(w.sq_head, b.owner);
  const std::uint64_t o_fetched = shfl64(w.sq_fetched, b.owner);
  nvme::command* const o_sq = shfl_ptr(w.Q.sq, b.owner);
  const std::uint32_t o_sqn = shfl(w.Q.sq_entries, b.owner);
  b.o_drive = shfl(static_cast<std::uint32_t>(w.Q.drive), b.owner);
  const std::uint32_t o_q = shfl(w.q, b.owner);
  const bool o_ordering = shfl(static_cast<std::uint32_t>(w.Q.ordering), b.owner) != 0;
  b.mine = static_cast<std::uint32_t>(lane) < k.total;
  b.hold_token = 0;

  b.c = nvme::command{};
  b.status = nvme::sc::success;
  b.fate = emu::fault_action::none;
  b.rec = piece_record{};
  b.D = drive_at(p, b.o_drive);
  b.moves = b.D->moves_data;
  if (b.mine) {
    std::uint32_t slot = o_head + (lane - first);
    if (slot >= o_sqn) slot -= o_sqn;
    const auto* src = reinterpret_cast<const uint4*>(o_sq + slot);
    uint4 e[4];
    // Read once: not allocated in L1, evict-first in the L2 (the entry is dead once fetched).
    // The acquire fence above is what makes the load see the client's entry.
    const std::uint64_t pol = streaming_policy();
#pragma unroll
    for (int i = 0; i < 4; ++i)
      e[i] = cuda::ptx::ld_L1_no_allocate_L2_cache_hint(cuda::ptx::space_global, src + i, pol);
    memcpy(&b.c, e, sizeof b.c);
    // Faults are drawn for the application's commands only: an ordering read never fails, so
    // the counts a run reports follow the fractions it asked for.
    if (!o_ordering)
      b.fate = b.D->faults.decide((std::uint64_t{o_q} << 40) ^ (o_fetched + (lane - first)));
    // Recovery on: a command the drive keeps (dropped, or delayed) is held, so that an Abort
    // finds it.
    if (b.fate == emu::fault_action::drop || b.fate == emu::fault_action::delay) {
      const std::uint32_t token = hold(p.aborts, o_q, b.c.cid, o_fetched + (lane - first));
      if (b.fate == emu::fault_action::delay) b.hold_token = token;
    }
    if (b.fate == emu::fault_action::error) {
      b.status = b.D->faults.error_status;  // the drive fails it: nothing is moved
    } else if (b.fate != emu::fault_action::drop) {
      // The shared command processor validates the command and walks its PRPs; the data
      // movement it asks for is only recorded here and done by the whole warp in move_data.
      media_ref media{b.D->media};
      b.status = emu::process_nvm(b.c, b.D->nvm, media, recording_dma{&b.rec});
    }
  }
  if (k.take > 0) {
    w.sq_head += k.take;
    if (w.sq_head >= w.Q.sq_entries) w.sq_head -= w.Q.sq_entries;
    w.sq_fetched += k.take;
  }
}

/// 2. Timing: each command's due time from its drive's timing model, one reservation of the
/// drive's pipe per batch and drive (a model with a latency and no caps books nothing: its
/// commands are due the latency after they arrived); a delay fault adds its delay. `seen_ns`:
/// the timer when the turn's claim saw the entries, their arrival: the model's time counts from
/// there, so the entry's fetch and processing are inside the model's latency, as a real drive's
/// fetch of its SQ entry is inside its own (docs/gpu-engine.md, "Timing models").
__device__ __forceinline__ void book_time(const engine_params& p, const warp_state& w, batch& b,
                                          std::uint64_t seen_ns) {
  const int lane = w.lane;
  const engine_drive* D = b.D;
  const bool is_write = static_cast<nvme::nvm_opcode>(b.c.opcode) == nvme::nvm_opcode::write;
  const std::uint64_t io_bytes =
      b.status.ok() && b.rec.copies != 0 ? std::uint64_t{b.c.nlb()} << D->nvm.lba_log2 : 0;
  // Booked at fetch, before the data moves: the pipe is reserved by the same turn that
  // passed the booking-horizon check, so a warp busy copying a large batch (4 KiB reads
  // over PCIe take tens of microseconds) never leaves its drive idle meanwhile. A copy that
  // outlasts the due time only delays the post (post_due runs after the copy).
  b.when = 0;
  const bool throttled = b.mine && D->service.throttled;
  const std::uint32_t throttled_mask = __ballot_sync(full, throttled);
  if (throttled) {
    const std::uint64_t cost = D->service.cost_ps(is_write, static_cast<std::uint32_t>(io_bytes));
    const std::uint32_t group = __match_any_sync(throttled_mask, b.o_drive);
    std::uint64_t prefix = 0, sum = 0;
    for (std::uint32_t m = group; m != 0; m &= m - 1) {
      const int l = __ffs(m) - 1;
      const std::uint64_t cl = __shfl_sync(group, static_cast<unsigned long long>(cost), l);
      sum += cl;
      if (l <= lane) prefix += cl;
    }
    const int leader = __ffs(group) - 1;
    std::uint64_t start = 0;
    // Virtual time in ps since the engine started (the timer itself, often Unix-epoch ns,
    // would overflow 64 bits in ps).
    if (lane == leader) start = emu::reserve(*D->clock, (seen_ns - p.timer_base) * 1000, sum);
    start = __shfl_sync(group, static_cast<unsigned long long>(start), leader);
    b.when = p.timer_base + emu::due_ns(D->service, start + prefix);
  } else if (b.mine && D->service.timed()) {
    // Latency alone (no caps): nothing to book; due the latency after the arrival.
    b.when = p.timer_base + emu::due_ns(D->service, (seen_ns - p.timer_base) * 1000);
  }
  if (b.fate == emu::fault_action::delay)
    b.when = (b.when == 0 ? bam::now_ns() : b.when) + D->faults.delay_ns;
}

/// Lane of the command that holds chunk g of the batch's concatenated pieces: the first lane
/// whose inclusive chunk count `cincl` exceeds g (a binary search over the lanes by shuffle).
__device__ __forceinline__ int chunk_owner(std::uint32_t cincl, std::uint32_t g) {
  int lo = 0;
#pragma unroll
  for (int step = 16; step > 0; step >>= 1)
    if (__shfl_sync(full, cincl, lo + step - 1) <= g) lo += step;
  return lo;
}

/// The batch's single-piece commands: one 16-byte-aligned piece each (a buffer within one memory
/// page, the usual case); all lanes copy chunk g of the concatenated pieces, g = lane, lane + 32...
/// Each lane keeps engine_copy_depth 16-byte loads in flight as asynchronous copies (cp.async.cg:
/// cached in L2 only, as the plain loads were) into its slots of the warp's staging area, so no
/// registers are held while they fly, then stores them; each pass finds a chunk's command again by
/// shuffle. A lane reads back only its own slots: waiting for its own copies is enough.
__device__ __forceinline__ void copy_single_pieces(const warp_state& w, const batch& b, bool fast) {
  const int lane = w.lane;
  std::uint32_t chunks = fast ? static_cast<std::uint32_t>(b.rec.n / 16) : 0;
  const std::uint32_t cincl = inclusive_sum(chunks, lane);
  const std::uint32_t cexcl = cincl - chunks;
  const std::uint32_t all_chunks = shfl(cincl, 31);
  const std::uint64_t pol = streaming_policy();
  for (std::uint32_t base = 0; base < all_chunks; base += 32 * engine_copy_depth) {
#pragma unroll
    for (std::uint32_t u = 0; u < engine_copy_depth; ++u) {
      const std::uint32_t g = base + 32 * u + lane;
      const int lo = chunk_owner(cincl, g);
      const std::uint32_t start = __shfl_sync(full, cexcl, lo);
      const auto* const s_base = reinterpret_cast<const uint4*>(shfl_ptr(b.rec.src, lo));
      if (g < all_chunks)
        __pipeline_memcpy_async(w.stage + 32 * u + lane, s_base + (g - start), 16);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
#pragma unroll
    for (std::uint32_t u = 0; u < engine_copy_depth; ++u) {
      const std::uint32_t g = base + 32 * u + lane;
      const int lo = chunk_owner(cincl, g);
      const std::uint32_t start = __shfl_sync(full, cexcl, lo);
      auto* const d_base = reinterpret_cast<uint4*>(shfl_ptr(b.rec.dst, lo));
      if (g < all_chunks)
        cuda::ptx::st_L2_cache_hint(cuda::ptx::space_global, d_base + (g - start),
                                    w.stage[32 * u + lane], pol);
    }
  }
}

/// Everything else (several pieces: multi-page PRPs; unaligned buffers; Write Zeroes, Dataset
/// Management): the warp runs the shared processor again for each such command, with every lane
/// doing a share of each copy.
__device__ __forceinline__ void rerun_by_warp(const engine_params& p, const warp_state& w, batch& b,
                                              bool slow) {
  const int lane = w.lane;
  for (std::uint32_t m = __ballot_sync(full, slow); m != 0; m &= m - 1) {
    const int l = __ffs(m) - 1;
    nvme::command cl{};
    auto* words = reinterpret_cast<std::uint32_t*>(&cl);
    const auto* mine_words = reinterpret_cast<const std::uint32_t*>(&b.c);
#pragma unroll
    for (int k = 0; k < 16; ++k)
      words[k] = __shfl_sync(full, mine_words[k], l);
    media_ref media{shfl_ptr(b.D->media, l)};
    const engine_drive* Dl = drive_at(p, __shfl_sync(full, b.o_drive, l));
    const nvme::status st = emu::process_nvm(cl, Dl->nvm, media, warp_dma{lane});
    __syncwarp();
    if (lane == l) b.status = st;
  }
}

/// 3. Data: moves what fetch_batch recorded, warp-cooperatively, then orders it before any
/// completion.
__device__ __forceinline__ void move_data(const engine_params& p, const warp_state& w, batch& b) {
  const piece_record& rec = b.rec;
  const bool work = b.mine && b.moves && b.status.ok();  // errors, drops recorded nothing
  const bool fast = work && rec.copies == 1 && rec.zeros == 0 &&
                    ((reinterpret_cast<std::uintptr_t>(rec.dst) |
                      reinterpret_cast<std::uintptr_t>(rec.src) | rec.n) &
                     15) == 0 &&
                    rec.n < (1u << 24);
  const bool slow = work && !fast && (rec.copies != 0 || rec.zeros != 0);
  // No early return when no lane moved data (a `null` drive's batch, errors, drops), although the
  // fence then orders nothing: on an H200 the branch alone, never taken where every batch moves
  // data, made Figure 4's 1K-thread reads at 8-10 SSDs 5-17 % slower (and QD1 1-3 us faster);
  // docs/gpu-engine.md, "The engine's early return". (The turn skips this call for a single
  // command that moves nothing, with its express post: Figure 4's 1- and 10-SSD points, 3
  // processes each, read 1.0005 / 1.0007 of before on the rates' geometric mean, and the 10-SSD
  // point 0.992 in a noisier call: docs/gpu-engine.md, "The engine's express post".)
  copy_single_pieces(w, b, fast);
  rerun_by_warp(p, w, b, slow);
  // Data before completions: every lane fences its own copies (device scope: the waiters
  // are threads of this GPU), the barrier orders them before any lane's DW3 store.
  __syncwarp();
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
  __syncwarp();
}

/// Parks each kept completion with its due time in a free slot of the pending table, and counts
/// drops and delays per queue.
__device__ __forceinline__ void park_completions(warp_state& w, const batch& b) {
  const int lane = w.lane;
  const bool keep = b.mine && b.fate != emu::fault_action::drop;
  const std::uint32_t keep_mask = __ballot_sync(full, keep);
  const std::uint32_t rank = __popc(keep_mask & lanemask_lt());
  std::uint32_t assigned = 0;
  for (std::uint32_t k = 0; k < pending_per_warp / 32 && assigned < __popc(keep_mask); ++k) {
    const std::uint32_t free_bits = __ballot_sync(full, w.due[k * 32 + lane] == empty_slot);
    const std::uint32_t n = __popc(free_bits);
    if (keep && rank >= assigned && rank < assigned + n) {
      const std::uint32_t s = k * 32 + __fns(free_bits, 0, rank - assigned + 1);
      w.info[s] = pack_info(b.c.cid, b.status, static_cast<std::uint32_t>(b.owner));
      w.due[s] = b.when;
      if (b.hold_token != 0) {
        w.tokens[s] = b.hold_token;
        atomicOr(w.held_rows + k, 1u << (s % 32));
      }
    }
    assigned += n;
  }
  w.parked += __popc(keep_mask);
  // Per-queue counters: the owner lane adds its entries' outcomes.
  const bool dropped = b.mine && b.fate == emu::fault_action::drop;
  const bool delayed = keep && b.fate == emu::fault_action::delay;
  for (std::uint32_t m = __ballot_sync(full, dropped || delayed); m != 0; m &= m - 1) {
    const int l = __ffs(m) - 1;
    const int o = __shfl_sync(full, b.owner, l);
    const bool d = __shfl_sync(full, static_cast<int>(dropped), l) != 0;
    if (lane == o) (d ? w.st.dropped : w.st.delayed) += 1;
  }
  __syncwarp();
}

/// Free CQ entries of this lane's queue; re-reads the CQ head doorbell when the CQ looks nearly
/// full.
__device__ __forceinline__ std::uint32_t cq_room(warp_state& w) {
  if (w.have) {
    const std::uint32_t used_slot_tail = static_cast<std::uint32_t>(w.cq_tail % w.Q.cq_entries);
    std::uint32_t used = used_slot_tail >= w.cq_head_slot
                             ? used_slot_tail - w.cq_head_slot
                             : used_slot_tail + w.Q.cq_entries - w.cq_head_slot;
    if (w.Q.cq_entries - 1 - used < 64)
      w.cq_head_slot = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(*w.Q.cq_doorbell)
                           .load(cuda::memory_order_acquire) %
                       w.Q.cq_entries;
  }
  std::uint32_t cq_free = 0;
  if (w.have) {
    const std::uint32_t t = static_cast<std::uint32_t>(w.cq_tail % w.Q.cq_entries);
    const std::uint32_t used =
        t >= w.cq_head_slot ? t - w.cq_head_slot : t + w.Q.cq_entries - w.cq_head_slot;
    cq_free = w.Q.cq_entries - 1 - used;
  }
  return cq_free;
}

/// Writes the completion at virtual CQ position `v` of `cq` (`entries` entries): DW0-2, then a
/// release fence (ordering them and, through the warp's last barrier, its fetches and copies
/// before the post), then DW3 with the CID and status (both from `inf`, pack_info) and the pass's
/// phase.
__device__ __forceinline__ void write_completion(nvme::completion* cq, std::uint32_t entries,
                                                 std::uint64_t v, std::uint32_t inf,
                                                 std::uint32_t sqhd, std::uint16_t qid) {
  const auto slot = static_cast<std::uint32_t>(v % entries);
  const bool phase = ((v / entries) & 1) == 0;
  const nvme::status status{static_cast<std::uint8_t>((inf >> 24) & 7u),
                            static_cast<std::uint8_t>((inf >> 16) & 0xffu)};
  std::uint32_t* const words = reinterpret_cast<std::uint32_t*>(cq + slot);
  __stcg(reinterpret_cast<uint2*>(words), make_uint2(0, 0));
  __stcg(words + 2, sqhd | (std::uint32_t{qid} << 16));
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(words[3]).store(
      nvme::completion::make_dw3(static_cast<std::uint16_t>(inf & 0xffffu), phase, status),
      cuda::memory_order_relaxed);
}

/// Whether this turn's batch is one command due at once with nothing parked (QD1 on an untimed
/// drive; warp-uniform): its completion can be posted now (post_single), without the pending
/// table, and when it moves no data, without move_data's barriers and fence.
__device__ __forceinline__ bool single_now(const warp_state& w, const claim& k, const batch& b) {
  if (k.total != 1 || w.parked != 0) return false;
  const bool now = b.mine && b.when == 0 && b.fate == emu::fault_action::none && b.hold_token == 0;
  return __shfl_sync(full, static_cast<std::uint32_t>(now), 0) != 0;
}

/// Whether any lane of the batch has data to move (move_data's work).
__device__ __forceinline__ bool moves_any(const batch& b) {
  return __any_sync(full,
                    b.mine && b.moves && b.status.ok() && (b.rec.copies != 0 || b.rec.zeros != 0));
}

/// Posts the completion of a single_now batch (its entry is lane 0's) from its queue's lane,
/// without the pending table (park_completions, post_due). False, posting nothing, when the CQ
/// is full: the caller parks it as any other.
__device__ __forceinline__ bool post_single(warp_state& w, const batch& b) {
  const int lane = w.lane;
  const int o = __shfl_sync(full, b.owner, 0);
  const std::uint32_t inf = __shfl_sync(full, pack_info(b.c.cid, b.status, 0), 0);
  const std::uint32_t cq_free = cq_room(w);
  // The entry's fetch (lane 0) and any copies (move_data, whose lanes fenced) before the post.
  __syncwarp();
  const bool post = lane == o && cq_free != 0;
  if (post) {
    write_completion(w.Q.cq, w.Q.cq_entries, w.cq_tail, inf, w.sq_head, w.Q.qid);
    w.cq_tail += 1;
    w.st.completed += 1;
    if (((inf >> 16) & 0x7ffu) != 0) ++w.st.errors;
  }
  return __any_sync(full, post);
}

/// Row `k` of the pending table has slots of held commands (`hr`, warp-uniform): each due one
/// takes its command back from its queue's held table (`held`: this lane's queue's, shuffled to
/// the slot's owner) by its token; if an Abort took it first, the Abort's completion is the
/// command's, and the parked one is dropped. Returns bit 0: this lane's slot is still ready to
/// post; bits 8..: the slots dropped (warp-uniform). Out of line, by value: the fault path stays
/// out of the hot loop's registers.
__device__ __noinline__ std::uint32_t claim_held(int lane, std::uint32_t k, std::uint32_t hr,
                                                 bool ready, std::uint64_t* due,
                                                 const std::uint32_t* info,
                                                 const std::uint32_t* tokens,
                                                 std::uint32_t* held_rows, abort_tables t,
                                                 std::uint32_t q) {
  const bool mine = ready && ((hr >> lane) & 1u) != 0;
  const std::uint32_t inf = info[k * 32 + lane];
  std::uint32_t* const held = t.held(shfl(q, mine ? static_cast<int>(inf >> 27) : lane));
  bool lost = false;
  if (mine) {
    const std::uint32_t token = tokens[k * 32 + lane];
    lost = atomicCAS(held + (inf & 0xffffu), token, 0u) != token;
    if (lost) due[k * 32 + lane] = empty_slot;
  }
  const std::uint32_t claimed = __ballot_sync(full, mine);
  const std::uint32_t dropped = __popc(__ballot_sync(full, lost));
  __syncwarp();
  if (lane == 0) held_rows[k] = hr & ~claimed;
  __syncwarp();
  return (ready && !lost ? 1u : 0u) | (dropped << 8);
}

/// 4. Post: every parked completion that is due and whose CQ has room, row by row of the pending
/// table: DW0-2, then DW3 with its phase. Returns whether any was posted.
__device__ __forceinline__ bool post_due(warp_state& w, const abort_tables& aborts) {
  const int lane = w.lane;
  std::uint32_t cq_free = cq_room(w);
  bool posted_any = false;
  const std::uint64_t now = bam::now_ns();
  for (std::uint32_t k = 0; k < pending_per_warp / 32; ++k) {
    const std::uint32_t s = k * 32 + lane;
    const std::uint64_t d = w.due[s];
    bool ready = d != empty_slot && d <= now;
    if (const std::uint32_t hr = w.held_rows[k]; hr != 0) {
      const std::uint32_t r =
          claim_held(lane, k, hr, ready, w.due, w.info, w.tokens, w.held_rows, aborts, w.q);
      ready = (r & 1u) != 0;
      w.parked -= r >> 8;
    }
    const std::uint32_t ready_mask = __ballot_sync(full, ready);
    if (ready_mask == 0) continue;
    const std::uint32_t inf = w.info[s];
    const int o = ready ? static_cast<int>(inf >> 27) : lane;
    const std::uint64_t tail = shfl64(w.cq_tail, o);
    const std::uint32_t o_free = __shfl_sync(full, cq_free, o);
    nvme::completion* const o_cq = shfl_ptr(w.Q.cq, o);
    const std::uint32_t o_cqn = __shfl_sync(full, w.Q.cq_entries, o);
    const std::uint32_t o_sqhd = __shfl_sync(full, w.sq_head, o);
    const std::uint16_t o_qid =
        static_cast<std::uint16_t>(__shfl_sync(full, static_cast<std::uint32_t>(w.Q.qid), o));
    std::uint32_t group = 0, rank = 0;
    if (ready) {
      group = __match_any_sync(ready_mask, o);
      rank = __popc(group & lanemask_lt());
    }
    const bool post = ready && rank < o_free;
    if (post) {
      // The lane's release fence orders what the warp did before its last barrier: the entries'
      // fetch and the data copies (whose lanes also fenced, move_data, when the batch moved data).
      write_completion(o_cq, o_cqn, tail + rank, inf, o_sqhd, o_qid);
      w.due[s] = empty_slot;
      // Count per queue: the group's lowest lane reports how many of its group posted.
      if (rank == 0) {
        const std::uint32_t posted = __popc(group) < o_free ? __popc(group) : o_free;
        w.add[o] = posted;
      }
    }
    const std::uint32_t posted_mask = __ballot_sync(full, post);
    w.parked -= __popc(posted_mask);
    const bool err = post && ((inf >> 16) & 0x7ffu) != 0;
    for (std::uint32_t m = __ballot_sync(full, err); m != 0; m &= m - 1) {
      const int l = __ffs(m) - 1;
      const int ol = __shfl_sync(full, o, l);
      if (lane == ol) ++w.st.errors;
    }
    __syncwarp();
    const std::uint32_t a = w.add[lane];
    if (a != 0) {
      w.cq_tail += a;
      cq_free -= a;
      w.st.completed += a;
      w.add[lane] = 0;
    }
    __syncwarp();
    posted_any = posted_any || posted_mask != 0;
  }
  return posted_any;
}

/// The stop flag, read by lane 0 every 256 turns and shared with the warp.
__device__ __forceinline__ bool stop_requested(const engine_params& p, int lane) {
  return shfl(lane == 0 ? *p.stop : 0u, 0) != 0;
}

/// Whether an abort ring (see engine_queue::aborts) holds an ID; the next one (its owner lane
/// only, after has_abort said so).
__device__ __noinline__ bool has_abort(std::uint32_t* aborts) {
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> tail(aborts[0]), head(aborts[1]);
  return tail.load(cuda::memory_order_acquire) != head.load(cuda::memory_order_relaxed);
}
__device__ __noinline__ std::uint32_t take_abort(std::uint32_t* aborts) {
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> head(aborts[1]);
  const std::uint32_t h = head.load(cuda::memory_order_relaxed);
  const std::uint32_t cid = aborts[2 + h % abort_ring_entries];
  head.store(h + 1, cuda::memory_order_release);
  return cid;
}

/// Parks a Command Abort Requested completion, due at once, for each ID an Abort took back from
/// this warp's queues (`aborts`: this lane's queue's ring): one per lane and round, as many
/// lanes as the pending table has free slots (the rest wait for a later round, which a busy
/// warp still gets: it needs only one free slot). Returns the pending slots in use. Out of line,
/// by value.
__device__ __noinline__ std::uint32_t serve_aborts(int lane, std::uint32_t* aborts,
                                                   std::uint64_t* due, std::uint32_t* info,
                                                   std::uint32_t parked) {
  for (int round = 0; round < 8 && parked < pending_per_warp; ++round) {
    const bool want = aborts != nullptr && has_abort(aborts);
    const std::uint32_t wanting = __ballot_sync(full, want);
    if (wanting == 0) break;
    const std::uint32_t room = pending_per_warp - parked;
    const bool mine = want && static_cast<std::uint32_t>(__popc(wanting & lanemask_lt())) < room;
    if (mine) {
      const std::uint32_t cid = take_abort(aborts);
      // A free slot: there is one for every lane taking part, and each lane claims its own.
      for (std::uint32_t s = static_cast<std::uint32_t>(lane);; s = (s + 1) % pending_per_warp) {
        if (atomicCAS(reinterpret_cast<unsigned long long*>(due + s), empty_slot, 0ull) ==
            empty_slot) {
          info[s] = pack_info(static_cast<std::uint16_t>(cid), nvme::sc::abort_requested,
                              static_cast<std::uint32_t>(lane));
          break;
        }
      }
    }
    parked += __popc(__ballot_sync(full, mine));
    __syncwarp();
  }
  return parked;
}

/// Takes command `cid` of drive `d`'s queue `sqid` back from its held table for an Abort, and
/// hands it to the queue's owner lane. False: not held (completed, never fetched, or not this
/// drive's to abort), or the queue's abort ring is full.
__device__ bool abort_command(abort_tables tables, std::uint32_t queues_per_drive, std::uint32_t d,
                              std::uint32_t sqid, std::uint32_t cid) {
  if (sqid == 0 || sqid > queues_per_drive || cid >= tables.cid_count) return false;
  const std::uint32_t q = d * queues_per_drive + sqid - 1;
  std::uint32_t* const held = tables.held(q);
  std::uint32_t* const ring = tables.ring(q);
  if (held == nullptr) return false;
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> tail(ring[0]), head(ring[1]);
  const std::uint32_t t = tail.load(cuda::memory_order_relaxed);  // this lane's alone
  if (t - head.load(cuda::memory_order_acquire) >= abort_ring_entries) return false;
  // Only a command whose waiter gave up: the Abort's command may have completed while the
  // Abort was on its way and its ID gone to a new command that a thread still waits for.
  const std::uint32_t st =
      cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(tables.boxes[q][cid].state)
          .load(cuda::memory_order_acquire);
  if ((st & box_abandoned) == 0 || (st & box_ready) != 0) return false;
  if (atomicExch(held + cid, 0u) == 0) return false;
  ring[2 + t % abort_ring_entries] = cid;
  tail.store(t + 1, cuda::memory_order_release);
  return true;
}

/// Serves drive `d`'s admin queue: every entry its SQ tail doorbell shows, while its CQ has
/// room. The rings live in host memory (system scope).
__device__ __noinline__ void serve_admin_queue(engine_admin* admin, abort_tables tables,
                                               std::uint32_t queues_per_drive, std::uint32_t d) {
  engine_admin& A = admin[d];
  using sys_ref = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>;
  const std::uint32_t tail =
      sys_ref(*const_cast<std::uint32_t*>(A.sq_doorbell)).load(cuda::memory_order_acquire);
  if (tail >= A.entries) return;  // not a slot: ignored, as a controller would fail it
  std::uint32_t head = A.sq_head;
  std::uint64_t ct = A.cq_tail;
  // Acquire: the host's reads of the CQ slots it gave back come before they are written again.
  const std::uint32_t cq_head =
      sys_ref(*const_cast<std::uint32_t*>(A.cq_doorbell)).load(cuda::memory_order_acquire);
  while (head != tail) {
    const auto t_slot = static_cast<std::uint32_t>(ct % A.entries);
    const std::uint32_t used = t_slot >= cq_head ? t_slot - cq_head : t_slot + A.entries - cq_head;
    if (used + 1 >= A.entries) break;  // CQ full: the rest at a later turn
    const nvme::command c = A.sq[head];
    nvme::status st = nvme::sc::success;
    std::uint32_t dw0 = 0;
    if (static_cast<nvme::admin_opcode>(c.opcode) == nvme::admin_opcode::abort) {
      const bool found = abort_command(tables, queues_per_drive, d, nvme::decode::abort_sqid(c),
                                       nvme::decode::abort_cid(c));
      dw0 = found ? 0u : 1u;  // bit 0: not aborted
      if (found) ++A.aborted;
    } else {
      st = nvme::sc::invalid_opcode;
    }
    head = head + 1 == A.entries ? 0 : head + 1;
    auto* words = reinterpret_cast<std::uint32_t*>(A.cq + t_slot);
    words[0] = dw0;
    words[1] = 0;
    words[2] = head;  // SQHD; SQID 0
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
    sys_ref(words[3]).store(nvme::completion::make_dw3(c.cid, ((ct / A.entries) & 1) == 0, st),
                            cuda::memory_order_relaxed);
    ++ct;
  }
  A.sq_head = head;
  A.cq_tail = ct;
}

/// Queue handover: puts queue `q` (its owner lane's state `r` and counters `st`) in the pool.
/// One lane. Out of line, by value: the handover stays out of the hot loop's registers.
__device__ __noinline__ void put_in_pool(engine_handover h, engine_queue_stats* stats,
                                         std::uint32_t q, engine_queue_record r,
                                         engine_queue_stats st) {
  engine_queue_record& rec = h.records[q];
  rec.sq_fetched = r.sq_fetched;
  rec.cq_tail = r.cq_tail;
  rec.sq_head = r.sq_head;
  rec.cq_head_slot = r.cq_head_slot;
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(rec.released_ns)
      .store(bam::now_ns(), cuda::memory_order_relaxed);
  stats[q] = st;
  h.pool.put(q);  // release: the record and counters above before the entry that names them
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*h.given).fetch_add(
      1, cuda::memory_order_relaxed);
}

/// What a lane takes over with a queue from the pool.
struct taken_queue {
  std::uint32_t q;  ///< ~0u: none
  engine_queue Q;
  engine_queue_record r;
  engine_queue_stats st;
};

/// Queue handover: the oldest queue in the pool if it has waited at least `min_age_ns`, taken out
/// with its descriptor, state and counters; q ~0u: none. One lane. Out of line: what it loads
/// stays out of the hot loop's registers.
__device__ __noinline__ taken_queue take_queue(const engine_handover h, const engine_queue* queues,
                                               const engine_queue_stats* stats,
                                               std::uint32_t min_age_ns) {
  taken_queue t{};
  std::uint32_t at = 0;
  t.q = h.pool.oldest(&at);  // acquire: the record and counters put_in_pool wrote
  if (t.q == ~0u) return t;
  const std::uint64_t released =
      cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(h.records[t.q].released_ns)
          .load(cuda::memory_order_relaxed);
  if ((min_age_ns != 0 && bam::now_ns() - released < min_age_ns) || !h.pool.take(at)) {
    t.q = ~0u;
    return t;
  }
  t.Q = queues[t.q];
  t.r = h.records[t.q];
  t.st = stats[t.q];
  return t;
}

/// Queue handover: sets the lane whose queue is being given away (+1; 0: none); lane 0 writes it
/// between barriers, so every lane reads the same.
__device__ __forceinline__ void set_releasing(const warp_state& w, std::uint32_t lane_plus_1) {
  __syncwarp();
  if (w.lane == 0) w.add[handover_releasing] = lane_plus_1;
  __syncwarp();
}

/// Lanes 0 .. serving-1 may have a queue: one past the highest lane of `haves`.
__device__ __forceinline__ std::uint32_t serving_of(std::uint32_t haves) {
  return 32 - static_cast<std::uint32_t>(__clz(haves));
}

/// Queue handover, after each claim (handover on): counts the warp's full turns; after
/// handover_full_turns of them, unless the pool holds handover_pool_limit queues or the warp gave
/// or took a queue less than engine_handover::give_gap_ticks ago, picks the queue it takes most
/// from this turn (never an ordering queue, never below engine_handover::keep queues) to give
/// away.
__device__ __forceinline__ void note_turn(const engine_params& p, const warp_state& w,
                                          const claim& k) {
  const int lane = w.lane;
  const engine_handover& h = p.handover;
  std::uint32_t run = k.total >= handover_full_batch ? w.add[handover_full] + 1 : 0;
  std::uint32_t give = 0;  // lane + 1
  if (run >= handover_full_turns) {
    run = 0;
    if (w.add[handover_releasing] == 0) {
      const std::uint32_t haves = __ballot_sync(full, w.have);
      const std::uint32_t key = w.have && !w.Q.ordering ? k.take + 1 : 0;
      const std::uint32_t most = __reduce_max_sync(full, key);
      const std::uint32_t in_pool = shfl(lane == 0 ? h.pool.size() : 0u, 0);
      if (static_cast<std::uint32_t>(__popc(haves)) > h.keep && most > 0 &&
          in_pool < handover_pool_limit)
        give = static_cast<std::uint32_t>(__ffs(__ballot_sync(full, key == most)));
    }
  }
  __syncwarp();
  if (lane == 0) {
    w.add[handover_full] = run;
    w.add[handover_last] = k.total;
    if (give != 0 && handover_clock() - w.add[handover_since] >= h.give_gap_ticks)
      w.add[handover_releasing] = give;
  }
  __syncwarp();
}

/// Queue handover, at the end of each turn (handover on): the queue being given away goes to the
/// pool once the warp has posted every completion it parked for it (it keeps the queue if one is
/// due handover_drain_ns or more later); else, every handover_poll_turns turns, a warp with a free
/// lane takes a queue from the pool: any queue if its last turn took fewer than
/// handover_light_batch entries, one that waited handover_force_ns if it was not full, one that
/// waited handover_force_any_ns else; never a warp that serves an ordering queue.
__device__ __forceinline__ void hand_over(const engine_params& p, warp_state& w,
                                          std::uint32_t turn) {
  const int lane = w.lane;
  const engine_handover& h = p.handover;
  if (const std::uint32_t giving = w.add[handover_releasing]; giving != 0) {
    const int r = static_cast<int>(giving) - 1;
    const std::uint64_t late = bam::now_ns() + handover_drain_ns;
    bool parked_for_it = false, due_late = false;
    for (std::uint32_t k = 0; k < pending_per_warp / 32; ++k) {
      const std::uint32_t s = k * 32 + static_cast<std::uint32_t>(lane);
      const std::uint64_t d = w.due[s];
      const bool its = d != empty_slot && static_cast<int>(w.info[s] >> 27) == r;
      parked_for_it = parked_for_it || its;
      due_late = due_late || (its && d > late);
    }
    if (__any_sync(full, due_late)) {  // keeps it
      set_releasing(w, 0);
      return;
    }
    if (__any_sync(full, parked_for_it)) return;
    if (lane == r) {
      put_in_pool(h, p.stats, w.q,
                  engine_queue_record{w.sq_fetched, w.cq_tail, w.sq_head, w.cq_head_slot, 0}, w.st);
      w.have = false;
      w.q = ~0u;
    }
    if (lane == 0) w.add[handover_since] = handover_clock();
    w.serving = serving_of(__ballot_sync(full, w.have));
    if (w.lead >= w.serving) w.lead = 0;
    set_releasing(w, 0);
    return;
  }
  if (turn % handover_poll_turns != 0) return;
  const std::uint32_t haves = __ballot_sync(full, w.have);
  // A warp that serves an ordering queue takes no other: every read of its drive waits for the
  // ordering read, which would wait for turns that move the taken queue's data.
  if (haves == full || __any_sync(full, w.have && w.Q.ordering)) return;
  const int f = __ffs(~haves) - 1;
  bool took = false;
  if (lane == f) {
    const std::uint32_t last = w.add[handover_last];
    const taken_queue t = take_queue(h, p.queues, p.stats,
                                     last < handover_light_batch  ? 0
                                     : last < handover_full_batch ? handover_force_ns
                                                                  : handover_force_any_ns);
    if (t.q != ~0u) {
      took = true;
      w.q = t.q;
      w.have = true;
      w.Q = t.Q;
      w.sq_head = t.r.sq_head;
      w.sq_fetched = t.r.sq_fetched;
      w.cq_tail = t.r.cq_tail;
      w.cq_head_slot = t.r.cq_head_slot;
      w.st = t.st;
    }
  }
  if (!__any_sync(full, took)) return;
  w.serving = serving_of(haves | (1u << f));
  if (lane == 0) w.add[handover_since] = handover_clock();
}

// The launch bound caps registers so that a block of the largest allowed size always fits on an
// SM (the shared command processor pushed the unbounded kernel to 164 registers, which made
// 16-warp blocks fail to launch). Its shared memory (engine_shared_bytes_per_warp a warp: 98 KiB
// for 16 warps, and the drive table's copy, 5.25 KiB) is checked against the GPU's per-block
// limit by emulated_drives.
__global__ void __launch_bounds__(engine_max_warps_per_block * 32) engine_kernel(engine_params p) {
  // The engine's block: the scheduler's, or its SM's (one block per SM: the blocks on the SMs
  // past the engine's count return, as would a second block on an SM, which one block per SM's
  // shared memory rules out). Thread 0 reads the SM once for the whole block, in the first word of
  // the dynamic shared memory, which start_warp lays out only after load_drive_table's barrier.
  std::uint32_t block = blockIdx.x, blocks = gridDim.x;
  if (p.blocks_on_first_sms != 0) {
    extern __shared__ __align__(16) std::uint64_t shared[];
    if (threadIdx.x == 0) {
      const std::uint32_t sm = bam::detail::sm_id();
      const bool mine = sm < p.blocks_on_first_sms && atomicCAS(&p.block_sm[sm], ~0u, sm) == ~0u;
      shared[0] = mine ? sm : ~std::uint64_t{0};
    }
    __syncthreads();
    if (shared[0] == ~std::uint64_t{0}) return;
    block = static_cast<std::uint32_t>(shared[0]);
    blocks = p.blocks_on_first_sms;
  }
  load_drive_table(p);
  warp_state w = start_warp(p, block, blocks);
  const bool admin_server = p.admin != nullptr && block == 0 && threadIdx.x < 32;
  for (std::uint32_t turn = 0;; ++turn) {
    if ((turn & 255) == 0) {
      if (stop_requested(p, w.lane)) break;
      if (admin_server) {
        for (std::uint32_t d = static_cast<std::uint32_t>(w.lane); d < p.n_drives; d += 32)
          serve_admin_queue(p.admin, p.aborts, p.queues_per_drive, d);
        __syncwarp();
      }
      if (p.aborts.words != nullptr)  // recovery on
        w.parked = serve_aborts(w.lane, p.aborts.ring(w.q), w.due, w.info, w.parked);
    }
    bool idle = true;
    const claim k = claim_entries(p, w);
    if (p.handover.records != nullptr) note_turn(p, w, k);
    if (k.total > 0) {
      idle = false;
      batch b;
      const std::uint64_t seen_ns = bam::now_ns();  // the entries' arrival (book_time)
      fetch_batch(p, w, k, b);
      book_time(p, w, b, seen_ns);
      // One command due at once (QD1 on an untimed drive) is posted in this turn, and without
      // move_data when it moves nothing: QD1 `null` about 1 us shorter in the emulator protocol
      // and 2 us in the hardware one, whose reads are two commands (H200; docs/gpu-engine.md,
      // "The engine's express post").
      const bool single = single_now(w, k, b);
      if (!single || moves_any(b)) move_data(p, w, b);
      if (!single || !post_single(w, b)) park_completions(w, b);
    }
    if (w.parked > 0 && post_due(w, p.aborts)) idle = false;
    if (p.handover.records != nullptr) hand_over(p, w, turn);
    if (idle) __nanosleep(w.serving == 0 ? engine_unserving_sleep_ns : engine_idle_sleep_ns);
  }
  if (w.have) p.stats[w.q] = w.st;
}

__global__ void timer_probe(std::uint64_t* out) {
  *out = bam::now_ns();
}

}  // namespace

cudaError_t launch_timer_probe(std::uint64_t* out, cudaStream_t stream) {
  timer_probe<<<1, 1, 0, stream>>>(out);
  return cudaGetLastError();
}

cudaError_t launch_engine(const engine_params& p, std::uint32_t grid, std::uint32_t warps_per_block,
                          std::size_t shared, cudaStream_t stream) {
  cudaError_t e = cudaFuncSetAttribute(engine_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(shared));
  if (e != cudaSuccess) return e;
  engine_kernel<<<grid, warps_per_block * 32, shared, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace bam::emu::gpu::detail
