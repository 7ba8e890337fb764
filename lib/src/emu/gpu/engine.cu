// The GPU controller engine: persistent warps that serve emulated drives' I/O queues.
//
// Warp w of W owns queues w, w + W, w + 2W, ... (at most 32: lane j holds queue w + j*W's
// controller state in registers). Each turn of its loop a warp
//   1. reads the SQ tail doorbells of its queues (one lane each), takes up to 32 new entries
//      (no more than it has free pending slots), one lane per entry: fetch, fault decision,
//      emu::process_nvm (the processor shared with the host engine) with a DMA policy that
//      only records what to move;
//   2. asks the drive's timing model for each command's completion time (one reservation of
//      the drive's pipe per batch and drive);
//   3. moves the data of the batch warp-cooperatively, 16-byte chunks spread over all lanes
//      (media <-> the buffer PRP1/PRP2 name; multi-page PRPs through walk_prps), then parks
//      the completions in shared memory;
//   4. posts every parked completion that is due (CQ has room): DW0-2, then DW3 with release.
// Ordering and throttling come from the due times; no thread sleeps for a command.
#include <cuda/atomic>

#include "bam/detail/clock.hpp"
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
struct media_view {
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

__device__ std::uint32_t pack_info(std::uint16_t cid, nvme::status st, std::uint32_t owner) {
  return std::uint32_t{cid} | (std::uint32_t{st.sc} << 16) | (std::uint32_t{st.sct & 7u} << 24) |
         (owner << 27);
}

// The launch bound caps registers so that a block of the largest allowed size always fits on an
// SM (the shared command processor pushed the unbounded kernel to 164 registers, which made
// 16-warp blocks fail to launch).
__global__ void __launch_bounds__(engine_max_warps_per_block * 32) engine_kernel(engine_params p) {
  extern __shared__ std::uint64_t shared[];
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::uint32_t warp_in_block = threadIdx.x / 32;
  const std::uint32_t warps_per_block = blockDim.x / 32;
  const std::uint32_t warp = blockIdx.x * warps_per_block + warp_in_block;
  const std::uint32_t W = p.total_warps;

  std::uint64_t* due = shared + warp_in_block * pending_per_warp;
  auto* info = reinterpret_cast<std::uint32_t*>(shared + warps_per_block * pending_per_warp) +
               warp_in_block * pending_per_warp;
  auto* add = reinterpret_cast<std::uint32_t*>(shared + warps_per_block * pending_per_warp) +
              warps_per_block * pending_per_warp + warp_in_block * 32;
  for (std::uint32_t i = lane; i < pending_per_warp; i += 32)
    due[i] = empty_slot;
  add[lane] = 0;

  // This lane's queue (if any) and its controller state.
  const std::uint32_t q = warp + static_cast<std::uint32_t>(lane) * W;
  const bool have = q < p.n_queues;
  engine_queue Q{};
  if (have) Q = p.queues[q];
  std::uint32_t sq_head = 0;       // slot
  std::uint64_t sq_fetched = 0;    // virtual: fault-injection key
  std::uint64_t cq_tail = 0;       // virtual
  std::uint32_t cq_head_slot = 0;  // from the CQ head doorbell
  engine_queue_stats st{0, 0, 0, 0};
  std::uint32_t parked = 0;  // pending slots in use (warp-uniform)

  __syncwarp();
  if (lane == 0) atomicAdd(p.started, 1u);

  for (std::uint32_t turn = 0;; ++turn) {
    if ((turn & 255) == 0) {
      const std::uint32_t stop = shfl(lane == 0 ? *p.stop : 0u, 0);
      if (stop != 0) break;
    }
    bool idle = true;

    // ---- 1. fetch -----------------------------------------------------------------------------
    std::uint32_t avail = 0;
    if (have) {
      const std::uint32_t tail =
          cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(*Q.sq_doorbell)
              .load(cuda::memory_order_relaxed);
      if (tail < Q.sq_entries)
        avail = tail >= sq_head ? tail - sq_head : tail + Q.sq_entries - sq_head;
      // A drive takes commands only as far ahead as its pipe is booked (its internal queue):
      // the rest wait in the SQ, so parked commands of a busy drive never fill the pending table
      // that this warp shares with other drives' queues.
      const engine_drive& md = p.drives[Q.drive];
      if (avail != 0 && md.service.throttled) {
        const std::uint64_t busy =
            cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(md.clock->busy_until_ps)
                .load(cuda::memory_order_relaxed);
        if (busy > (bam::now_ns() - p.timer_base) * 1000 + md.max_ahead_ps) avail = 0;
      }
    }
    const std::uint32_t room = pending_per_warp - parked;
    const std::uint32_t cap = room < 32 ? room : 32;
    std::uint32_t take = avail < 32 ? avail : 32;
    std::uint32_t incl = take;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const std::uint32_t v = __shfl_up_sync(full, incl, o);
      if (lane >= o) incl += v;
    }
    const std::uint32_t excl = incl - take;
    take = excl >= cap ? 0 : (take < cap - excl ? take : cap - excl);
    const std::uint32_t all = shfl(incl, 31);
    const std::uint32_t total = all < cap ? all : cap;

    if (total > 0) {
      idle = false;
      // The doorbells were read relaxed: one fence orders the entry loads after them, and the
      // warp barrier extends that to the lanes that load entries of other lanes' queues.
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
      __syncwarp();
      // Lane i < total handles entry i of the batch: find its queue's lane.
      int owner = 0;
      std::uint32_t first = 0;
      for (std::uint32_t m = __ballot_sync(full, take > 0); m != 0; m &= m - 1) {
        const int l = __ffs(m) - 1;
        const std::uint32_t e = shfl(excl, l), t = shfl(take, l);
        if (static_cast<std::uint32_t>(lane) >= e && static_cast<std::uint32_t>(lane) < e + t) {
          owner = l;
          first = e;
        }
      }
      const std::uint32_t o_head = shfl(sq_head, owner);
      const std::uint64_t o_fetched = shfl64(sq_fetched, owner);
      nvme::command* const o_sq = shfl_ptr(Q.sq, owner);
      const std::uint32_t o_sqn = shfl(Q.sq_entries, owner);
      const std::uint32_t o_drive = shfl(static_cast<std::uint32_t>(Q.drive), owner);
      const std::uint32_t o_q = shfl(q, owner);
      const bool mine = static_cast<std::uint32_t>(lane) < total;

      nvme::command c{};
      nvme::status status = nvme::sc::success;
      emu::fault_action fate = emu::fault_action::none;
      piece_record rec{};
      const engine_drive* D = p.drives + o_drive;
      const bool moves = D->moves_data;
      if (mine) {
        std::uint32_t slot = o_head + (lane - first);
        if (slot >= o_sqn) slot -= o_sqn;
        const auto* src = reinterpret_cast<const uint4*>(o_sq + slot);
        uint4 w[4];
#pragma unroll
        for (int k = 0; k < 4; ++k)
          w[k] = __ldcg(src + k);
        memcpy(&c, w, sizeof c);
        fate = D->faults.decide((std::uint64_t{o_q} << 40) ^ (o_fetched + (lane - first)));
        if (fate == emu::fault_action::error) {
          status = D->faults.error_status;  // the drive fails it: nothing is moved
        } else if (fate != emu::fault_action::drop) {
          // The shared command processor validates the command and walks its PRPs; the data
          // movement it asks for is only recorded here and done by the whole warp below.
          media_view media{D->media};
          status = emu::process_nvm(c, D->nvm, media, recording_dma{&rec});
        }
      }
      if (take > 0) {
        sq_head += take;
        if (sq_head >= Q.sq_entries) sq_head -= Q.sq_entries;
        sq_fetched += take;
      }
      const bool is_write = static_cast<nvme::nvm_opcode>(c.opcode) == nvme::nvm_opcode::write;
      const std::uint64_t io_bytes =
          status.ok() && rec.copies != 0 ? std::uint64_t{c.nlb()} << D->nvm.lba_log2 : 0;

      // ---- 2. timing ----------------------------------------------------------------------------
      // Booked at fetch, before the data moves: the pipe is reserved by the same turn that
      // passed the booking-horizon check, so a warp busy copying a large batch (4 KiB reads
      // over PCIe take tens of microseconds) never leaves its drive idle meanwhile. A copy that
      // outlasts the due time only delays the post (step 4 runs after the copy).
      const bool keep = mine && fate != emu::fault_action::drop;
      std::uint64_t when = 0;
      const bool throttled = mine && D->service.throttled;
      const std::uint32_t throttled_mask = __ballot_sync(full, throttled);
      if (throttled) {
        const std::uint64_t cost =
            D->service.cost_ps(is_write, static_cast<std::uint32_t>(io_bytes));
        const std::uint32_t group = __match_any_sync(throttled_mask, o_drive);
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
        if (lane == leader)
          start = emu::reserve(*D->clock, (bam::now_ns() - p.timer_base) * 1000, sum);
        start = __shfl_sync(group, static_cast<unsigned long long>(start), leader);
        when = p.timer_base + emu::due_ns(D->service, start + prefix);
      }
      if (fate == emu::fault_action::delay)
        when = (when == 0 ? bam::now_ns() : when) + D->faults.delay_ns;

      // ---- 3. data ------------------------------------------------------------------------------
      // One 16-byte-aligned piece (a buffer within one memory page, the usual case): all lanes
      // copy chunk g of the batch's concatenated pieces, g = lane, lane + 32, ...
      const bool work = mine && moves && status.ok();  // errors and drops recorded nothing
      const bool fast = work && rec.copies == 1 && rec.zeros == 0 &&
                        ((reinterpret_cast<std::uintptr_t>(rec.dst) |
                          reinterpret_cast<std::uintptr_t>(rec.src) | rec.n) &
                         15) == 0 &&
                        rec.n < (1u << 24);
      const bool slow = work && !fast && (rec.copies != 0 || rec.zeros != 0);
      std::uint32_t chunks = fast ? static_cast<std::uint32_t>(rec.n / 16) : 0;
      std::uint32_t cincl = chunks;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const std::uint32_t v = __shfl_up_sync(full, cincl, o);
        if (lane >= o) cincl += v;
      }
      const std::uint32_t all_chunks = shfl(cincl, 31);
      constexpr int unroll = 4;
      for (std::uint32_t base = 0; base < all_chunks; base += 32 * unroll) {
        uint4 v[unroll];
        uint4* dst[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
          const std::uint32_t g = base + 32 * u + lane;
          // Owner command: the first lane whose inclusive chunk count exceeds g.
          int lo = 0;
#pragma unroll
          for (int step = 16; step > 0; step >>= 1) {
            const std::uint32_t v_at = __shfl_sync(full, cincl, lo + step - 1);
            if (v_at <= g) lo += step;
          }
          const std::uint32_t start = __shfl_sync(full, cincl - chunks, lo);
          auto* const d_base = reinterpret_cast<uint4*>(shfl_ptr(rec.dst, lo));
          const auto* const s_base = reinterpret_cast<const uint4*>(shfl_ptr(rec.src, lo));
          dst[u] = nullptr;
          if (g < all_chunks) {
            dst[u] = d_base + (g - start);
            v[u] = __ldcg(s_base + (g - start));
          }
        }
#pragma unroll
        for (int u = 0; u < unroll; ++u)
          if (dst[u] != nullptr) __stcg(dst[u], v[u]);
      }
      // Everything else (several pieces: multi-page PRPs; unaligned buffers; Write Zeroes,
      // Dataset Management): the warp runs the shared processor again for that one command,
      // with every lane doing a share of each copy.
      for (std::uint32_t m = __ballot_sync(full, slow); m != 0; m &= m - 1) {
        const int l = __ffs(m) - 1;
        nvme::command cl{};
        auto* words = reinterpret_cast<std::uint32_t*>(&cl);
        const auto* mine_words = reinterpret_cast<const std::uint32_t*>(&c);
#pragma unroll
        for (int k = 0; k < 16; ++k)
          words[k] = __shfl_sync(full, mine_words[k], l);
        media_view media{shfl_ptr(D->media, l)};
        const engine_drive* Dl = p.drives + __shfl_sync(full, o_drive, l);
        const nvme::status st = emu::process_nvm(cl, Dl->nvm, media, warp_dma{lane});
        __syncwarp();
        if (lane == l) status = st;
      }
      // Data before completions: every lane fences its own copies (device scope: the waiters
      // are threads of this GPU), the barrier orders them before any lane's DW3 store.
      __syncwarp();
      cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
      __syncwarp();

      // ---- park ---------------------------------------------------------------------------------
      const std::uint32_t keep_mask = __ballot_sync(full, keep);
      const std::uint32_t rank = __popc(keep_mask & lanemask_lt());
      std::uint32_t assigned = 0;
      for (std::uint32_t k = 0; k < pending_per_warp / 32 && assigned < __popc(keep_mask); ++k) {
        const std::uint32_t free_bits = __ballot_sync(full, due[k * 32 + lane] == empty_slot);
        const std::uint32_t n = __popc(free_bits);
        if (keep && rank >= assigned && rank < assigned + n) {
          const std::uint32_t s = k * 32 + __fns(free_bits, 0, rank - assigned + 1);
          info[s] = pack_info(c.cid, status, static_cast<std::uint32_t>(owner));
          due[s] = when;
        }
        assigned += n;
      }
      parked += __popc(keep_mask);
      // Per-queue counters: the owner lane adds its entries' outcomes.
      const bool dropped = mine && fate == emu::fault_action::drop;
      const bool delayed = keep && fate == emu::fault_action::delay;
      for (std::uint32_t m = __ballot_sync(full, dropped || delayed); m != 0; m &= m - 1) {
        const int l = __ffs(m) - 1;
        const int o = __shfl_sync(full, owner, l);
        const bool d = __shfl_sync(full, static_cast<int>(dropped), l) != 0;
        if (lane == o) (d ? st.dropped : st.delayed) += 1;
      }
      __syncwarp();
    }

    // ---- 4. post due completions
    // ------------------------------------------------------------------
    if (parked > 0) {
      // Refresh the CQ head of queues whose CQ looks nearly full.
      if (have) {
        const std::uint32_t used_slot_tail = static_cast<std::uint32_t>(cq_tail % Q.cq_entries);
        std::uint32_t used = used_slot_tail >= cq_head_slot
                                 ? used_slot_tail - cq_head_slot
                                 : used_slot_tail + Q.cq_entries - cq_head_slot;
        if (Q.cq_entries - 1 - used < 64)
          cq_head_slot = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(*Q.cq_doorbell)
                             .load(cuda::memory_order_acquire) %
                         Q.cq_entries;
      }
      std::uint32_t cq_free = 0;
      if (have) {
        const std::uint32_t t = static_cast<std::uint32_t>(cq_tail % Q.cq_entries);
        const std::uint32_t used =
            t >= cq_head_slot ? t - cq_head_slot : t + Q.cq_entries - cq_head_slot;
        cq_free = Q.cq_entries - 1 - used;
      }
      const std::uint64_t now = bam::now_ns();
      for (std::uint32_t k = 0; k < pending_per_warp / 32; ++k) {
        const std::uint32_t s = k * 32 + lane;
        const std::uint64_t d = due[s];
        const bool ready = d != empty_slot && d <= now;
        const std::uint32_t ready_mask = __ballot_sync(full, ready);
        if (ready_mask == 0) continue;
        const std::uint32_t inf = info[s];
        const int o = ready ? static_cast<int>(inf >> 27) : lane;
        const std::uint64_t tail = shfl64(cq_tail, o);
        const std::uint32_t o_free = __shfl_sync(full, cq_free, o);
        nvme::completion* const o_cq = shfl_ptr(Q.cq, o);
        const std::uint32_t o_cqn = __shfl_sync(full, Q.cq_entries, o);
        const std::uint32_t o_sqhd = __shfl_sync(full, sq_head, o);
        const std::uint16_t o_qid =
            static_cast<std::uint16_t>(__shfl_sync(full, static_cast<std::uint32_t>(Q.qid), o));
        std::uint32_t group = 0, rank = 0;
        if (ready) {
          group = __match_any_sync(ready_mask, o);
          rank = __popc(group & lanemask_lt());
        }
        const bool post = ready && rank < o_free;
        if (post) {
          const std::uint64_t v = tail + rank;
          const auto slot = static_cast<std::uint32_t>(v % o_cqn);
          const bool phase = ((v / o_cqn) & 1) == 0;
          const nvme::status status{static_cast<std::uint8_t>((inf >> 24) & 7u),
                                    static_cast<std::uint8_t>((inf >> 16) & 0xffu)};
          std::uint32_t* const words = reinterpret_cast<std::uint32_t*>(o_cq + slot);
          __stcg(reinterpret_cast<uint2*>(words), make_uint2(0, 0));
          __stcg(words + 2, std::uint32_t{o_sqhd} | (std::uint32_t{o_qid} << 16));
          // Relaxed: the release fence after the data copy already ordered everything before.
          // DW0-2 were stored just above by this lane: order them before DW3.
          cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
          cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(words[3]).store(
              nvme::completion::make_dw3(static_cast<std::uint16_t>(inf & 0xffffu), phase, status),
              cuda::memory_order_relaxed);
          due[s] = empty_slot;
          // Count per queue: the group's lowest lane reports how many of its group posted.
          if (rank == 0) {
            const std::uint32_t posted = __popc(group) < o_free ? __popc(group) : o_free;
            add[o] = posted;
          }
        }
        const std::uint32_t posted_mask = __ballot_sync(full, post);
        parked -= __popc(posted_mask);
        const bool err = post && ((inf >> 16) & 0x7ffu) != 0;
        for (std::uint32_t m = __ballot_sync(full, err); m != 0; m &= m - 1) {
          const int l = __ffs(m) - 1;
          const int ol = __shfl_sync(full, o, l);
          if (lane == ol) ++st.errors;
        }
        __syncwarp();
        const std::uint32_t a = add[lane];
        if (a != 0) {
          cq_tail += a;
          cq_free -= a;
          st.completed += a;
          add[lane] = 0;
        }
        __syncwarp();
        idle = idle && posted_mask == 0;
      }
    }
    if (idle) __nanosleep(64);
  }
  if (have) p.stats[q] = st;
}

__global__ void timer_probe(std::uint64_t* out) {
  *out = bam::now_ns();
}

}  // namespace

cudaError_t launch_timer_probe(std::uint64_t* out, cudaStream_t stream) {
  timer_probe<<<1, 1, 0, stream>>>(out);
  return cudaGetLastError();
}

cudaError_t launch_engine(const engine_params& p, std::uint32_t blocks,
                          std::uint32_t warps_per_block, cudaStream_t stream) {
  const std::size_t shared = engine_shared_bytes_per_warp * warps_per_block;
  cudaError_t e = cudaFuncSetAttribute(engine_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(shared));
  if (e != cudaSuccess) return e;
  engine_kernel<<<blocks, warps_per_block * 32, shared, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace bam::emu::gpu::detail
