// gpu_io.cu: nvm-block-bench's GPU kernels (emulated drives, zero-copy) and their host drivers.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/detail/clock.hpp"
#include "bam/detail/cuda.hpp"
#include "bam/harness/data_pattern.hpp"
#include "bam/nvme/prp.hpp"
#include "bam/queue/block_io.hpp"
#include "bam/queue/read_ordering.hpp"
#include "gpu_io.hpp"

namespace bam::tools {
namespace {

constexpr std::uint32_t block_threads = 256;
/// Global histograms per direction; block b merges into slot b % hist_slots.
constexpr std::uint32_t hist_slots = 64;
/// SSDs counted per block in shared memory (the GPU backends' limit).
constexpr std::uint32_t counted_ssds = 64;
/// Status codes counted (SCT < 8, SC < 256: SCT << 8 | SC).
constexpr std::uint32_t status_codes = 8 * 256;
/// Counters in device memory: reads, writes, errors, verified, verify errors, start stamp, the
/// blocks running now and the most that ran at once, I/Os per SSD, failed commands per status
/// code.
enum counter : std::uint32_t {
  c_reads,
  c_writes,
  c_errors,
  c_verified,
  c_bad,
  c_start,
  c_running,
  c_peak_running,
  c_ssd = 8,
  c_status = c_ssd + counted_ssds
};
static_assert(c_peak_running < c_ssd, "the counters before the per-SSD counts");
constexpr std::uint32_t counter_words = c_status + status_codes;
constexpr std::uint64_t page = 4096;

/// Bytes between two threads' buffers: a power of two up to a page (a buffer never crosses a
/// page, so PRP1 alone names it), whole pages above.
std::uint64_t buffer_stride(std::uint64_t io_size) {
  return io_size <= page ? std::bit_ceil(io_size) : (io_size + page - 1) / page * page;
}
bool needs_list(std::uint64_t io_size) {
  return io_size > 2 * page;
}

struct kernel_args {
  workload_params w{};
  std::uint64_t ios = 0;
  std::uint64_t duration_ns = 0;
  std::uint64_t timeout_ns = 0;
  std::uint32_t lba_shift = 9;
  bool verify = false;
  gpu_queue_mapping mapping = gpu_queue_mapping::warp;
  std::uint32_t outstanding = 1;
  std::byte* buffers = nullptr;
  std::uint64_t stride = 0;
  std::uint64_t* lists = nullptr;  ///< one PRP list page (512 entries) per thread
  std::byte* const* media = nullptr;
  latency_histogram* hists = nullptr;  ///< [2][hist_slots]: reads, then writes
  std::uint64_t* counters = nullptr;
};

struct block_state {
  latency_histogram lat[2];  ///< reads, writes
  std::uint32_t per_ssd[counted_ssds];
};

template <class T>
using dev_ref = cuda::atomic_ref<T, cuda::thread_scope_device>;
template <class T>
using block_ref = cuda::atomic_ref<T, cuda::thread_scope_block>;

/// Clears the block's counts and counts the block as running (block_end stops counting it), so
/// that the run reports the most blocks resident at once.
__device__ void block_begin(block_state& s, const kernel_args& a) {
  if (threadIdx.x == 0) {
    const std::uint64_t running =
        dev_ref<std::uint64_t>(a.counters[c_running]).fetch_add(1, relaxed);
    dev_ref<std::uint64_t>(a.counters[c_peak_running]).fetch_max(running + 1, relaxed);
  }
  auto* words = reinterpret_cast<std::uint32_t*>(&s);
  for (std::uint32_t i = threadIdx.x; i < sizeof(block_state) / 4; i += blockDim.x)
    words[i] = 0;
  __syncthreads();
  if (threadIdx.x == 0) s.lat[0].min = s.lat[1].min = ~std::uint64_t{0};
  __syncthreads();
}

/// Merges the block's histograms and SSD counts into the global ones, and the thread's counts.
__device__ void block_end(block_state& s, const kernel_args& a, std::uint64_t reads,
                          std::uint64_t writes, std::uint64_t errors, std::uint64_t verified,
                          std::uint64_t bad) {
  const std::uint64_t mine[5] = {reads, writes, errors, verified, bad};
  for (int k = 0; k < 5; ++k) {
    std::uint64_t v = mine[k];
    for (int o = 16; o > 0; o /= 2)
      v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0 && v != 0)
      dev_ref<std::uint64_t>(a.counters[k]).fetch_add(v, relaxed);
  }
  __syncthreads();
  const std::uint32_t slot = blockIdx.x % hist_slots;
  for (int d = 0; d < 2; ++d) {
    const latency_histogram& h = s.lat[d];
    if (h.count == 0) continue;  // uniform: read after the barrier
    latency_histogram& g = a.hists[d * hist_slots + slot];
    for (std::uint32_t i = threadIdx.x; i < latency_histogram::bucket_count; i += blockDim.x)
      if (h.buckets[i] != 0) dev_ref<std::uint64_t>(g.buckets[i]).fetch_add(h.buckets[i], relaxed);
    if (threadIdx.x == 0) {
      dev_ref<std::uint64_t>(g.count).fetch_add(h.count, relaxed);
      dev_ref<std::uint64_t>(g.sum).fetch_add(h.sum, relaxed);
      const std::uint64_t old = dev_ref<std::uint64_t>(g.sum_sq.lo).fetch_add(h.sum_sq.lo, relaxed);
      const std::uint64_t carry = old + h.sum_sq.lo < old ? 1u : 0u;
      if (h.sum_sq.hi + carry != 0)
        dev_ref<std::uint64_t>(g.sum_sq.hi).fetch_add(h.sum_sq.hi + carry, relaxed);
      dev_ref<std::uint64_t>(g.min).fetch_min(h.min, relaxed);
      dev_ref<std::uint64_t>(g.max).fetch_max(h.max, relaxed);
    }
  }
  for (std::uint32_t i = threadIdx.x; i < counted_ssds; i += blockDim.x)
    if (s.per_ssd[i] != 0)
      dev_ref<std::uint64_t>(a.counters[c_ssd + i]).fetch_add(s.per_ssd[i], relaxed);
  if (threadIdx.x == 0) dev_ref<std::uint64_t>(a.counters[c_running]).fetch_sub(1, relaxed);
}

/// I/Os of thread t (all of them share a.ios; none when a.ios = 0: the duration decides).
__device__ std::uint64_t share_of(const kernel_args& a, std::uint32_t t) {
  if (t >= a.w.threads) return 0;
  if (a.ios == 0) return ~std::uint64_t{0};
  return a.ios / a.w.threads + (t < a.ios % a.w.threads ? 1u : 0u);
}

/// The run's start (the first thread to ask sets it): duration runs stop relative to it.
__device__ std::uint64_t run_start(const kernel_args& a) {
  std::uint64_t expected = 0;
  const std::uint64_t now = now_ns();
  dev_ref<std::uint64_t> r(a.counters[c_start]);
  return r.compare_exchange_strong(expected, now, relaxed) ? now : expected;
}

__device__ bool time_left(const kernel_args& a, std::uint64_t start) {
  return a.duration_ns == 0 || now_ns() - start < a.duration_ns;
}

/// Over the queue set of either protocol (block_io runs the ordering read after every read of
/// a hardware_drives_ref, before the data is checked or counted).
/// The PRPs of buffer slot `slot` (its own PRP list page when the I/O needs one).
__device__ nvme::prp_pair slot_prps(const kernel_args& a, std::uint64_t slot) {
  std::byte* buf = a.buffers + slot * a.stride;
  nvme::prp_pair prp{reinterpret_cast<std::uintptr_t>(buf), 0};
  if (a.w.io_size > page) {
    std::uint64_t* list = a.lists + slot * (page / 8);
    const auto base = reinterpret_cast<std::uintptr_t>(buf);
    const auto list_bus = reinterpret_cast<std::uintptr_t>(list);
    nvme::build_prps(
        a.w.io_size, 12, [&](std::uint64_t off) { return std::uint64_t{base} + off; },
        [&](std::uint32_t) {
          return nvme::prp_list_page{list, list_bus};
        },
        prp);
  }
  return prp;
}

/// Thread t with a.outstanding commands in flight: submits up to that many (each on its own
/// buffer slot), then waits for them newest first (even threads) or from a rotating start (odd
/// threads), so completions are taken in every order.
/// After a timeout: waits up to `timeout_ns` for the queue to let go of the command ID (its late
/// completion claimed, or the queue reset); false when it still holds it.
/// `Use` exclusive: the thread is alone on its queue, which passes the late completion only while
/// someone waits on it, so it moves the head itself (poll). The shared kernel keeps its code (its
/// PTX measured as is): a thread alone on its queue there (gpu.queue_access shared) stops.
template <queue_use Use, class Queue>
__device__ bool released(const Queue& q, std::uint16_t cid, std::uint64_t timeout_ns) {
  const std::uint64_t deadline = now_ns() + timeout_ns;
  while (q.abandoned(cid)) {
    if (now_ns() >= deadline) return false;
    if (Use == queue_use::shared || !q.poll()) __nanosleep(1000);
  }
  return true;
}

template <class QueueSet>
__device__ void deep_io(const QueueSet& v, const kernel_args& a, block_state& s, io_stream& stream,
                        std::uint32_t t, std::uint64_t my, std::uint64_t start, std::uint32_t unit,
                        std::uint32_t queue, std::uint64_t& reads, std::uint64_t& writes,
                        std::uint64_t& errors, std::uint64_t& verified, std::uint64_t& bad) {
  const std::uint32_t depth = a.outstanding;
  const std::uint64_t lba_size = std::uint64_t{1} << v.lba_shift();
  const auto nlb = static_cast<std::uint32_t>(a.w.io_size >> v.lba_shift());
  bool stop = false;
  for (std::uint64_t i = 0; i < my && !stop && time_left(a, start); i += depth) {
    const auto n = static_cast<std::uint32_t>(my - i < depth ? my - i : depth);
    std::uint16_t cids[max_gpu_outstanding];
    std::uint64_t lbas[max_gpu_outstanding], t0[max_gpu_outstanding], marks[max_gpu_outstanding];
    std::uint32_t ssds[max_gpu_outstanding];
    bool is_read[max_gpu_outstanding];
    for (std::uint32_t j = 0; j < n; ++j) {
      const io_request r = stream.next(i + j);
      const std::uint64_t slot = std::uint64_t{t} * depth + j;
      ssds[j] = a.w.sequential ? r.ssd : unit % v.ssds();
      lbas[j] = r.offset >> v.lba_shift();
      is_read[j] = r.read;
      if (!r.read && a.verify)
        fill_pattern(a.buffers + slot * a.stride, lba_size, pattern_seed, ssds[j], lbas[j], nlb);
      const nvme::prp_pair prp = slot_prps(a, slot);
      nvme::command c =
          r.read ? nvme::read(1, lbas[j], nlb, prp) : nvme::write(1, lbas[j], nlb, prp);
      marks[j] = 0;
      if (r.read) marks[j] = read_mark(v, ssds[j]);  // this read covers those before it
      t0[j] = now_ns();
      cids[j] = v.queue(ssds[j], queue).submit(c, a.timeout_ns);
    }
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t j = t % 2 == 0 ? n - 1 - k : (t / 2 + i / depth + k) % n;
      const nvme::completion c = v.queue(ssds[j], queue).wait_for(cids[j], a.timeout_ns);
      const nvme::status st = c.status();
      if (!st.ok()) {
        ++errors;
        dev_ref<std::uint64_t>(a.counters[c_status + (st.code() % status_codes)])
            .fetch_add(1, relaxed);
        constexpr nvme::status timed_out = nvme::sc::host_timeout;
        if (st == timed_out &&
            !released<queue_use::shared>(v.queue(ssds[j], queue), c.cid, a.timeout_ns))
          stop = true;  // the controller may still write into that buffer: this thread stops
        continue;
      }
      if constexpr (ordered_reads<QueueSet>) {
        // Protocol hardware: the §4.4 ordering read; when it got no completion, the data may
        // not be visible and the read fails (Host Timeout).
        if (is_read[j] && !read_ordered(v, ssds[j], marks[j])) {
          ++errors;
          constexpr nvme::status timed_out = nvme::sc::host_timeout;
          dev_ref<std::uint64_t>(a.counters[c_status + (timed_out.code() % status_codes)])
              .fetch_add(1, relaxed);
          continue;
        }
      }
      const std::uint64_t t1 = now_ns();
      s.lat[is_read[j] ? 0 : 1].add_atomic<cuda::thread_scope_block>(t1 - t0[j]);
      if (ssds[j] < counted_ssds)
        block_ref<std::uint32_t>(s.per_ssd[ssds[j]]).fetch_add(1, relaxed);
      ++(is_read[j] ? reads : writes);
      if (a.verify && is_read[j]) {
        ++verified;
        const std::byte* buf = a.buffers + (std::uint64_t{t} * depth + j) * a.stride;
        bad += check_pattern(buf, lba_size, pattern_seed, ssds[j], lbas[j], nlb) != 0 ? 1u : 0u;
      }
    }
  }
}

/// What a thread of the shared kernel holds: nothing.
struct no_hold {};
/// The hold of a thread alone on queue `queue` of SSD `ssd` (Use exclusive), else nothing.
template <queue_use Use, class QueueSet>
__device__ auto hold_of(const QueueSet& v, std::uint32_t ssd, std::uint32_t queue) {
  if constexpr (Use == queue_use::exclusive)
    return queue_hold(v.queue(ssd, queue));
  else
    return no_hold{};
}

// At least one block per SM, said explicitly: with the queue protocol's batches in registers
// (queue_pair_ref's holders) ptxas, left to choose, held the kernel to 128 registers and spilled
// about 700 bytes, which ran 4-19 % slower than one block per SM at about 200 registers, no spills
// (H200, docs/gpu-engine.md, "Holders in registers").
/// `Use`: exclusive where every thread is its queue pair's only user (gpu_io_params::exclusive:
/// it holds its queue, queue_hold), a kernel of its own so that the shared protocol's kernel
/// keeps its code.
template <class QueueSet, queue_use Use>
__global__ void __launch_bounds__(block_threads, 1) emulated_kernel(QueueSet v, kernel_args a) {
  __shared__ alignas(16) unsigned char raw[sizeof(block_state)];
  block_state& s = *reinterpret_cast<block_state*>(raw);
  block_begin(s, a);
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint64_t my = share_of(a, t);
  std::uint64_t reads = 0, writes = 0, errors = 0, verified = 0, bad = 0;
  if (my != 0) {
    std::byte* buf = a.buffers + std::uint64_t{t} * a.outstanding * a.stride;
    nvme::prp_pair prp{reinterpret_cast<std::uintptr_t>(buf), 0};
    const std::uint64_t bytes = a.w.io_size;
    if (bytes > page) {
      std::uint64_t* list = a.lists + std::uint64_t{t} * (page / 8);
      const auto base = reinterpret_cast<std::uintptr_t>(buf);
      const auto list_bus = reinterpret_cast<std::uintptr_t>(list);
      nvme::build_prps(
          bytes, 12, [&](std::uint64_t off) { return std::uint64_t{base} + off; },
          [&](std::uint32_t) {
            return nvme::prp_list_page{list, list_bus};
          },
          prp);
    }
    const std::uint32_t unit = a.mapping == gpu_queue_mapping::thread ? t : t / 32;
    const std::uint32_t queue = (unit / v.ssds()) % v.queues_per_ssd();
    const std::uint64_t lba_size = std::uint64_t{1} << v.lba_shift();
    const auto nlb = static_cast<std::uint32_t>(bytes >> v.lba_shift());
    io_stream stream(a.w, t);
    const std::uint64_t start = a.duration_ns != 0 ? run_start(a) : 0;
    if (a.outstanding > 1) {
      deep_io(v, a, s, stream, t, my, start, unit, queue, reads, writes, errors, verified, bad);
      my = 0;  // done: skip the one-at-a-time loop
    }
    // Exclusive: the thread's one queue (sequential I/O only with one SSD: the host's choice).
    [[maybe_unused]] auto hold = hold_of<Use>(v, unit % v.ssds(), queue);
    for (std::uint64_t i = 0; i < my && time_left(a, start); ++i) {
      const io_request r = stream.next(i);
      const std::uint32_t ssd = a.w.sequential ? r.ssd : unit % v.ssds();
      const std::uint64_t lba = r.offset >> v.lba_shift();
      if (!r.read && a.verify) fill_pattern(buf, lba_size, pattern_seed, ssd, lba, nlb);
      const std::uint64_t t0 = now_ns();
      nvme::completion c{};
      if constexpr (Use == queue_use::exclusive)
        c = block_io(v, ssd, hold, !r.read, lba, nlb, prp, a.timeout_ns);
      else
        c = block_io(v, ssd, queue, !r.read, lba, nlb, prp, a.timeout_ns);
      const std::uint64_t t1 = now_ns();
      const nvme::status st = c.status();
      if (!st.ok()) {
        ++errors;
        dev_ref<std::uint64_t>(a.counters[c_status + (st.code() % status_codes)])
            .fetch_add(1, relaxed);
        constexpr nvme::status timed_out = nvme::sc::host_timeout;
        if (st == timed_out && !released<Use>(v.queue(ssd, queue), c.cid, a.timeout_ns))
          break;  // the controller may still write into the buffer: this thread stops
        continue;
      }
      s.lat[r.read ? 0 : 1].add_atomic<cuda::thread_scope_block>(t1 - t0);
      if (ssd < counted_ssds) block_ref<std::uint32_t>(s.per_ssd[ssd]).fetch_add(1, relaxed);
      ++(r.read ? reads : writes);
      if (a.verify && r.read) {
        ++verified;
        bad += check_pattern(buf, lba_size, pattern_seed, ssd, lba, nlb) != 0 ? 1u : 0u;
      }
    }
  }
  block_end(s, a, reads, writes, errors, verified, bad);
}

/// Zero-copy: the lanes of a warp copy their I/Os together, 8 16-byte words in flight per lane,
/// consecutive lanes on consecutive words of one I/O. Latency of an I/O = its warp's round.
__global__ void __launch_bounds__(block_threads) zerocopy_kernel(kernel_args a) {
  __shared__ alignas(16) unsigned char raw[sizeof(block_state)];
  block_state& s = *reinterpret_cast<block_state*>(raw);
  block_begin(s, a);
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint64_t my = share_of(a, t);
  std::uint64_t reads = 0, writes = 0, verified = 0, bad = 0;
  std::byte* buf = a.buffers + std::uint64_t{t} * a.stride;
  const std::uint64_t bytes = a.w.io_size;
  const std::uint64_t words = bytes / 16;
  const std::uint64_t lba_size = std::uint64_t{1} << a.lba_shift;
  const auto nlb = static_cast<std::uint32_t>(bytes >> a.lba_shift);
  io_stream stream(a.w, t < a.w.threads ? t : 0);
  const std::uint32_t warp = t / 32;
  const std::uint64_t start = a.duration_ns != 0 ? run_start(a) : 0;
  for (std::uint64_t i = 0;; ++i) {
    const bool want = i < my && time_left(a, start);
    const std::uint32_t mask = __ballot_sync(0xffffffffu, want);
    if (mask == 0) break;
    io_request r{};
    std::uint32_t ssd = 0;
    const uint4* src = nullptr;
    uint4* dst = nullptr;
    if (want) {
      r = stream.next(i);
      ssd = a.w.sequential ? r.ssd : warp % a.w.ssd_count;
      std::byte* at = a.media[ssd] + r.offset;
      if (!r.read && a.verify)
        fill_pattern(buf, lba_size, pattern_seed, ssd, r.offset >> a.lba_shift, nlb);
      src = reinterpret_cast<const uint4*>(r.read ? at : buf);
      dst = reinterpret_cast<uint4*>(r.read ? buf : at);
    }
    const std::uint64_t t0 = now_ns();
    const std::uint64_t flat = 32 * words;
    for (std::uint64_t f0 = 0; f0 < flat; f0 += 32 * 8) {
      uint4 val[8];
      uint4* to[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const std::uint64_t f = f0 + lane + 32u * k;
        const auto j = static_cast<std::uint32_t>((f / words) % 32);
        const std::uint64_t w = f % words;
        const auto from = reinterpret_cast<const uint4*>(
            __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(src), j));
        to[k] = reinterpret_cast<uint4*>(
            __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(dst), j));
        const bool live = f < flat && ((mask >> j) & 1u) != 0;
        if (!live) to[k] = nullptr;
        if (live) val[k] = __ldcg(from + w);
        if (live) to[k] += w;
      }
#pragma unroll
      for (int k = 0; k < 8; ++k)
        if (to[k] != nullptr) __stcg(to[k], val[k]);
    }
    __syncwarp();
    const std::uint64_t t1 = now_ns();
    if (want) {
      s.lat[r.read ? 0 : 1].add_atomic<cuda::thread_scope_block>(t1 - t0);
      if (ssd < counted_ssds) block_ref<std::uint32_t>(s.per_ssd[ssd]).fetch_add(1, relaxed);
      ++(r.read ? reads : writes);
      if (a.verify && r.read) {
        ++verified;
        bad += check_pattern(buf, lba_size, pattern_seed, ssd, r.offset >> a.lba_shift, nlb) != 0
                   ? 1u
                   : 0u;
      }
    }
  }
  block_end(s, a, reads, writes, 0, verified, bad);
}

}  // namespace

std::uint64_t gpu_free_memory() {
  std::size_t free = 0, total = 0;
  cuda_check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return free;
}

void pinned_deleter::operator()(std::byte* p) const {
  cudaFreeHost(p);
}

pinned_ptr alloc_pinned(std::uint64_t bytes) {
  void* p = nullptr;
  cuda_check(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable),
             "cudaHostAlloc media");
  return pinned_ptr(static_cast<std::byte*>(p));
}

std::byte* device_pointer(std::byte* pinned) {
  void* d = nullptr;
  cuda_check(cudaHostGetDevicePointer(&d, pinned, 0), "cudaHostGetDevicePointer");
  return static_cast<std::byte*>(d);
}

std::vector<queue_totals> read_queue_totals(const queue_set_params& v) {
  std::vector<queue_pointers> qs(std::size_t{v.ssds} * v.queues_per_ssd);
  cuda_check(
      cudaMemcpy(qs.data(), v.queues, qs.size() * sizeof(queue_pointers), cudaMemcpyDeviceToHost),
      "copy queue pointers");
  std::vector<queue_totals> out(v.ssds);
  for (std::size_t i = 0; i < qs.size(); ++i) {
    queue_counters c{};
    cuda_check(cudaMemcpy(&c, qs[i].counters, sizeof c, cudaMemcpyDeviceToHost),
               "copy queue counters");
    queue_totals& o = out[i / v.queues_per_ssd];
    o.sq_doorbell_writes += c.sq_doorbell_writes;
    o.cq_doorbell_writes += c.cq_doorbell_writes;
    o.timeouts += c.timeouts;
    o.late_completions += c.late_completions;
    o.queue_commands += c.sq_ticket;
    o.queue_commands_min = std::min(o.queue_commands_min, c.sq_ticket);
    o.queue_commands_max = std::max(o.queue_commands_max, c.sq_ticket);
  }
  return out;
}

struct gpu_io_runner::impl {
  std::uint32_t max_threads = 0;
  std::uint64_t io_size = 0;
  int gpu_sms = 0;                    ///< read once, at construction
  std::byte* buffer_block = nullptr;  ///< cudaMalloc'd; buffers/lists are page-aligned inside
  std::byte* list_block = nullptr;
  std::byte* buffers = nullptr;
  std::uint64_t* lists = nullptr;
  std::byte** media = nullptr;  ///< device array of counted_ssds pointers
  latency_histogram* hists = nullptr;
  std::uint64_t* counters = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t begin = nullptr, end = nullptr;
  // Pinned host copies: clearing and reading back are plain DMA on the runner's stream, nothing
  // that could wait for the device to go idle while an engine runs.
  latency_histogram* fresh = nullptr;  ///< 2 * hist_slots empty histograms
  latency_histogram* back = nullptr;
  std::uint64_t* back_counters = nullptr;

  ~impl() {
    if (stream != nullptr) cudaStreamSynchronize(stream);
    cudaFree(buffer_block);
    cudaFree(list_block);
    cudaFree(media);
    cudaFree(hists);
    cudaFree(counters);
    cudaFreeHost(fresh);
    cudaFreeHost(back);
    cudaFreeHost(back_counters);
    if (begin != nullptr) cudaEventDestroy(begin);
    if (end != nullptr) cudaEventDestroy(end);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }

  static std::byte* page_align(std::byte* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return p + ((page - a % page) % page);
  }

  /// The kernel's arguments for run `p` with LBAs of 2^lba_shift bytes and the runner's
  /// io_size.
  kernel_args args(const gpu_io_params& p, std::uint32_t lba_shift) {
    if (p.w.threads > max_threads) {
      throw std::logic_error("gpu_io_runner: run larger than the runner was sized for");
    }
    cuda_check(cudaMemcpyAsync(hists, fresh, 2 * hist_slots * sizeof(latency_histogram),
                               cudaMemcpyHostToDevice, stream),
               "clear histograms");
    cuda_check(cudaMemsetAsync(counters, 0, counter_words * sizeof(std::uint64_t), stream),
               "clear counters");
    kernel_args a;
    a.w = p.w;
    a.w.io_size = io_size;
    a.ios = p.ios;
    a.duration_ns = p.duration_ns;
    a.timeout_ns = p.timeout_ns;
    a.lba_shift = lba_shift;
    a.verify = p.verify;
    a.mapping = p.mapping;
    a.outstanding = p.outstanding;
    if (p.outstanding < 1 || p.outstanding > max_gpu_outstanding ||
        std::uint64_t{p.w.threads} * p.outstanding > max_threads) {
      throw std::logic_error("gpu_io_runner: outstanding outside the runner's buffer slots");
    }
    a.buffers = buffers;
    a.stride = buffer_stride(io_size);
    a.lists = lists;
    a.media = media;
    a.hists = hists;
    a.counters = counters;
    return a;
  }

  template <class QueueSet>
  gpu_io_result run_emulated(const QueueSet& drives, const gpu_io_params& p) {
    const kernel_args a = args(p, drives.lba_shift());
    const std::uint32_t grid = (p.w.threads + block_threads - 1) / block_threads;
    cuda_check(cudaEventRecord(begin, stream), "record");
    if (p.exclusive && p.outstanding != 1)
      throw std::logic_error("gpu_io_runner: a held queue carries one command at a time");
    if (p.exclusive)
      emulated_kernel<QueueSet, queue_use::exclusive>
          <<<grid, block_threads, 0, stream>>>(drives, a);
    else
      emulated_kernel<QueueSet, queue_use::shared><<<grid, block_threads, 0, stream>>>(drives, a);
    return finish(p);
  }

  gpu_io_result finish(const gpu_io_params& p) {
    cuda_check(cudaGetLastError(), "launch");
    cuda_check(cudaEventRecord(end, stream), "record");
    cuda_check(cudaMemcpyAsync(back, hists, 2 * hist_slots * sizeof(latency_histogram),
                               cudaMemcpyDeviceToHost, stream),
               "copy histograms");
    cuda_check(cudaMemcpyAsync(back_counters, counters, counter_words * sizeof(std::uint64_t),
                               cudaMemcpyDeviceToHost, stream),
               "copy counters");
    cuda_check(cudaStreamSynchronize(stream), "kernel");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, begin, end), "elapsed");
    gpu_io_result r;
    for (std::uint32_t i = 0; i < hist_slots; ++i) {
      r.read_lat.merge(back[i]);
      r.write_lat.merge(back[hist_slots + i]);
    }
    const std::uint64_t* c = back_counters;
    r.reads = c[c_reads];
    r.writes = c[c_writes];
    r.errors = c[c_errors];
    r.verified = c[c_verified];
    r.verify_errors = c[c_bad];
    const std::uint32_t n = std::min(p.w.ssd_count, counted_ssds);
    r.per_ssd.assign(c + c_ssd, c + c_ssd + n);
    for (std::uint32_t code = 0; code < status_codes; ++code) {
      if (c[c_status + code] != 0)
        r.errors_by_code[static_cast<std::uint16_t>(code)] = c[c_status + code];
    }
    r.kernel_s = double(ms) * 1e-3;
    r.peak_resident_threads =
        std::min<std::uint64_t>(c[c_peak_running] * block_threads, p.w.threads);
    r.gpu_sms = gpu_sms;
    return r;
  }
};

std::uint64_t gpu_io_runner::bytes_needed(std::uint32_t max_threads, std::uint64_t io_size) {
  return std::uint64_t{max_threads} * (buffer_stride(io_size) + (needs_list(io_size) ? page : 0)) +
         2 * page + 2 * hist_slots * sizeof(latency_histogram);
}

gpu_io_runner::gpu_io_runner(std::uint32_t max_threads, std::uint64_t io_size)
    : impl_(std::make_unique<impl>()) {
  impl& m = *impl_;
  m.max_threads = max_threads;
  m.io_size = io_size;
  m.gpu_sms = cuda_sm_count();
  const std::uint64_t stride = buffer_stride(io_size);
  cuda_check(cudaMalloc(&m.buffer_block, std::uint64_t{max_threads} * stride + page),
             "cudaMalloc I/O buffers");
  m.buffers = impl::page_align(m.buffer_block);
  if (needs_list(io_size)) {
    cuda_check(cudaMalloc(&m.list_block, std::uint64_t{max_threads} * page + page),
               "cudaMalloc PRP lists");
    m.lists = reinterpret_cast<std::uint64_t*>(impl::page_align(m.list_block));
  }
  cuda_check(cudaMalloc(&m.media, counted_ssds * sizeof(std::byte*)), "cudaMalloc media table");
  cuda_check(cudaMemset(m.media, 0, counted_ssds * sizeof(std::byte*)), "clear media table");
  const std::size_t hist_bytes = 2 * hist_slots * sizeof(latency_histogram);
  cuda_check(cudaMalloc(&m.hists, hist_bytes), "cudaMalloc histograms");
  cuda_check(cudaMalloc(&m.counters, counter_words * sizeof(std::uint64_t)), "cudaMalloc counters");
  cuda_check(cudaMallocHost(&m.fresh, hist_bytes), "cudaMallocHost");
  cuda_check(cudaMallocHost(&m.back, hist_bytes), "cudaMallocHost");
  cuda_check(cudaMallocHost(&m.back_counters, counter_words * sizeof(std::uint64_t)),
             "cudaMallocHost");
  for (std::uint32_t i = 0; i < 2 * hist_slots; ++i)
    new (m.fresh + i) latency_histogram{};
  cuda_check(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking), "stream");
  cuda_check(cudaEventCreate(&m.begin), "event");
  cuda_check(cudaEventCreate(&m.end), "event");
}

gpu_io_runner::~gpu_io_runner() = default;
std::uint32_t gpu_io_runner::max_threads() const {
  return impl_->max_threads;
}
std::uint64_t gpu_io_runner::io_size() const {
  return impl_->io_size;
}

void gpu_io_runner::preload() {
  using emu::gpu::drives_ref, emu::gpu::hardware_drives_ref;
  cuda_check(preload_kernel(emulated_kernel<hardware_drives_ref, queue_use::shared>),
             "preload emulated_kernel");
  cuda_check(preload_kernel(emulated_kernel<drives_ref, queue_use::shared>),
             "preload emulated_kernel");
  cuda_check(preload_kernel(emulated_kernel<hardware_drives_ref, queue_use::exclusive>),
             "preload emulated_kernel");
  cuda_check(preload_kernel(emulated_kernel<drives_ref, queue_use::exclusive>),
             "preload emulated_kernel");
  cuda_check(preload_kernel(zerocopy_kernel), "preload zerocopy_kernel");
}

gpu_io_result gpu_io_runner::run_emulated(const emu::gpu::hardware_drives_ref& drives,
                                          const gpu_io_params& p) {
  return impl_->run_emulated(drives, p);
}

gpu_io_result gpu_io_runner::run_emulated(const emu::gpu::drives_ref& drives,
                                          const gpu_io_params& p) {
  return impl_->run_emulated(drives, p);
}

gpu_io_result gpu_io_runner::run_zerocopy(const std::vector<std::byte*>& media,
                                          std::uint32_t lba_shift, const gpu_io_params& p) {
  impl& m = *impl_;
  if (media.size() > counted_ssds || media.size() < p.w.ssd_count) {
    throw std::logic_error("gpu_io_runner: media table does not match ssd_count");
  }
  cuda_check(cudaMemcpyAsync(m.media, media.data(), media.size() * sizeof(std::byte*),
                             cudaMemcpyHostToDevice, m.stream),
             "copy media table");
  const kernel_args a = m.args(p, lba_shift);
  const std::uint32_t grid = (p.w.threads + block_threads - 1) / block_threads;
  cuda_check(cudaEventRecord(m.begin, m.stream), "record");
  zerocopy_kernel<<<grid, block_threads, 0, m.stream>>>(a);
  return m.finish(p);
}

}  // namespace bam::tools
