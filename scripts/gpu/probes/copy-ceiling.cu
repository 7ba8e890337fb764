// Probe (issue 19): how fast can a kernel confined to the engine's share of the GPU copy random
// blocks of pinned host memory, and which copy scheme gets closest to a plain kernel on the whole
// GPU? Not part of the build: compile and run it by hand on the GPU machine (README.md here).
//
//   nvcc -O3 -std=c++20 -arch=sm_90 -Ilib/include -o copy-ceiling \
//     scripts/gpu/probes/copy-ceiling.cu
//   ./copy-ceiling [block_bytes=512] [repeats=3] [scheme name prefix: only those] [footprint]
//
// Footprints: 1 GiB, 4 GiB (one span each) and 10 spans of 1 GiB (the 10-SSD point). Every warp
// copies random blocks (a hash of warp and block number picks span and block) into a device
// buffer. Schemes:
//   direct  S   each lane keeps S 16-byte loads in flight in registers, then stores them (the
//               ceiling kernel's scheme, lib/src/harness/gpu_ceilings.cu)
//   async   S,P asynchronous copies (cp.async.cg) into shared memory: P stages of S 16-byte
//               copies per lane, a stage stored while the later ones fly (P = 1: the engine's
//               move_data today, S = 8)
//   bulk    B,P bulk copies (cp.async.bulk, the SM's copy engine): lane l < B copies a whole block
//               with one instruction into shared memory, an mbarrier counts the stage's bytes; P
//               stages (blocks of at most 512 B)
// Grids: the whole GPU (SMs x 8 blocks of 256 threads; the one-stage direct and async schemes
// only, and not all its blocks resident at once where their shared memory does not fit), and G
// blocks of W warps (the engine: 16 x 16). One line per point: scheme, grid, footprint, M
// blocks/s (median of repeats, the ceil(N/2)-th smallest of N; min-max) and the blocks an SM holds;
// a point that cannot run (more shared memory than a block may have; bulk past 256 warps or 512 B
// blocks) says "skipped".
//
//   ./copy-ceiling beside [repeats=3] [kind[:MiB[:sleep ns[:stride bytes]]] ...]
//
// Beside mode: does the rest of the GPU's memory traffic slow the engine's host reads? The
// engine's scheme (async 8 x 1, 512 B blocks) on 16 blocks x 16 warps, each block alone on its SM
// (120 KiB of shared memory a block), over 10 x 1 GiB and 1 GiB: alone, and beside a kernel that
// fills every other SM with 256 client-like threads (one block an SM, held there by 200 KiB of
// shared memory) until the copies are done (the host sets a flag). Each thread of it, between
// sleeps (64 ns unless the spec says): `idle` nothing; `poll` a relaxed device-scope load of a
// random word of MiB of GPU memory (the emulator protocol's completion polls; with a stride, of
// the words a stride apart: 2097152 touches one word a 2 MiB page, many pages and few lines);
// `poll-sys` an acquire system-scope load (the hardware protocol's); `atomic` an atomicAdd on a
// random word; `store` a relaxed store. The default specs: none idle poll:128 poll-sys:128
// atomic:0.15625 (40,960 words: the tickets and locks of 1,280 queues) none. One line per spec and
// footprint: M blocks/s (the median of the repeats: the ceil(N/2)-th smallest of N; min-max), the
// SMs each kernel ran on (the copies': those of a kernel of the same shape launched just before
// them) and whether they overlap, and the kernel beside's accesses per second over its run (idle:
// its turns). A line whose kernel beside had ended before the copies did says "not valid".
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cuda/ptx>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "bam/detail/clock.hpp"
#include "bam/detail/hash.hpp"
#include "bam/detail/sm_id.hpp"

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace ptx = cuda::ptx;

struct span {
  const uint4* base;
  std::uint64_t blocks;
};

/// Source of chunk `w` of block `j` of warp `warp`'s stream.
__device__ __forceinline__ const uint4* source(const span* spans, std::uint32_t n_spans,
                                               std::uint32_t words, std::uint64_t warp,
                                               std::uint64_t j, std::uint64_t seed) {
  const std::uint64_t h = bam::mix64(seed ^ (warp << 32) ^ j);
  const span s = spans[n_spans == 1 ? 0 : (h >> 40) % n_spans];
  return s.base + (h % s.blocks) * words;
}

template <int S>
__global__ void direct(const span* spans, std::uint32_t n_spans, std::uint32_t words,
                       uint4* scratch, std::uint64_t per_warp, std::uint64_t seed) {
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint64_t warp = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  uint4* out = scratch + warp * 32 * S;
  const std::uint64_t flat = per_warp * words;
  for (std::uint64_t f0 = 0; f0 < flat; f0 += 32 * S) {
    uint4 v[S];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const std::uint64_t f = f0 + lane + 32u * k;
      if (f < flat) v[k] = __ldcg(source(spans, n_spans, words, warp, f / words, seed) + f % words);
    }
#pragma unroll
    for (int k = 0; k < S; ++k)
      if (f0 + lane + 32u * k < flat) __stcg(out + lane + 32 * k, v[k]);
  }
}

template <int S, int P>
__global__ void async_copy(const span* spans, std::uint32_t n_spans, std::uint32_t words,
                           uint4* scratch, std::uint64_t per_warp, std::uint64_t seed) {
  extern __shared__ uint4 stage_all[];
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint64_t warp = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  uint4* stage = stage_all + (threadIdx.x / 32) * (32 * S * P);
  uint4* out = scratch + warp * 32 * S;
  const std::uint64_t flat = per_warp * words;
  const std::uint64_t rounds = (flat + 32 * S - 1) / (32 * S);
  for (std::uint64_t r = 0; r < rounds + P - 1; ++r) {
    if (r < rounds) {
      uint4* st = stage + (r % P) * 32 * S;
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const std::uint64_t f = r * 32 * S + lane + 32u * k;
        if (f < flat)
          __pipeline_memcpy_async(st + lane + 32 * k,
                                  source(spans, n_spans, words, warp, f / words, seed) + f % words,
                                  16);
      }
    }
    __pipeline_commit();  // an empty group past the end keeps the count
    if (r + 1 >= P) {
      __pipeline_wait_prior(P - 1);
      const std::uint64_t d = r + 1 - P;  // the round that has landed
      const uint4* st = stage + (d % P) * 32 * S;
#pragma unroll
      for (int k = 0; k < S; ++k)
        if (d * 32 * S + lane + 32u * k < flat) __stcg(out + lane + 32 * k, st[lane + 32 * k]);
    }
  }
}

// Bulk copies (the Hopper copy engine of an SM, TMA: cp.async.bulk, through libcu++'s cuda::ptx):
// lane l < B of a warp copies block l of a stage of B whole blocks into shared memory with one
// instruction, the stage's mbarrier counting the bytes; P stages in flight.
template <int B, int P>
__global__ void bulk_copy(const span* spans, std::uint32_t n_spans, std::uint32_t words,
                          uint4* scratch, std::uint64_t per_warp, std::uint64_t seed) {
  extern __shared__ uint4 stage_all[];
  __shared__ alignas(8) std::uint64_t bars[32][P];
  const std::uint32_t lane = threadIdx.x % 32, wb = threadIdx.x / 32;
  const std::uint64_t warp = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  uint4* stage = stage_all + std::uint64_t{wb} * B * words * P;
  uint4* out = scratch + warp * 32 * 32;  // 16 KiB a warp: B = 32 blocks of 512 B at most
  if (lane == 0)
    for (int k = 0; k < P; ++k)
      ptx::mbarrier_init(&bars[wb][k], 1);
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  __syncwarp();
  const std::uint64_t rounds = (per_warp + B - 1) / B;
  for (std::uint64_t r = 0; r < rounds + P - 1; ++r) {
    if (r < rounds) {
      const auto st = static_cast<std::uint32_t>(r % P);
      const std::uint64_t left = per_warp - r * B;
      const auto n = static_cast<std::uint32_t>(left < B ? left : B);
      if (lane == 0)
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                       &bars[wb][st], n * words * 16);
      __syncwarp();
      if (lane < n)
        ptx::cp_async_bulk(
            ptx::space_cluster, ptx::space_global, stage + (std::uint64_t{st} * B + lane) * words,
            source(spans, n_spans, words, warp, r * B + lane, seed), words * 16, &bars[wb][st]);
    }
    if (r + 1 >= P) {
      const std::uint64_t d = r + 1 - P;  // the round that lands now
      const auto st = static_cast<std::uint32_t>(d % P);
      while (
          !ptx::mbarrier_try_wait_parity(&bars[wb][st], static_cast<std::uint32_t>((d / P) & 1))) {
      }
      const std::uint64_t left = per_warp - d * B;
      const auto n = static_cast<std::uint32_t>(left < B ? left : B);
      const uint4* src = stage + std::uint64_t{st} * B * words;
      for (std::uint32_t k = lane; k < n * words; k += 32)
        __stcg(out + k, src[k]);
      ptx::fence_proxy_async(ptx::space_shared);
      __syncwarp();  // every lane's reads of the stage before it is filled again
    }
  }
}

struct grid_shape {
  const char* name;
  std::uint32_t blocks, warps;
  bool whole;  ///< the whole GPU: only the one-stage schemes (the ceiling's and the engine's)
};

using kernel_fn = void (*)(const span*, std::uint32_t, std::uint32_t, uint4*, std::uint64_t,
                           std::uint64_t);

struct scheme {
  const char* name;
  kernel_fn fn;
  int s, p;      // p = 0: registers
  int bulk = 0;  ///< bulk copies: s blocks a stage (shared memory: s x block bytes x p a warp)
};

/// Parses `text` as a whole number in [lo, hi] into `out`; false (out unchanged) otherwise.
bool whole_number(const char* text, long lo, long hi, long& out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) return false;
  out = v;
  return true;
}

/// Ten spans of 1 GiB of pinned host memory (mapped; span i filled with 0x3c + i), in blocks of
/// `block` bytes: the 10-SSD point's footprint. Never freed: the process ends with them.
std::vector<span> pin_ten_spans(std::uint64_t block) {
  constexpr std::uint64_t gib = 1ull << 30;
  std::vector<span> ten;
  for (int i = 0; i < 10; ++i) {
    void* h = nullptr;
    CK(cudaHostAlloc(&h, gib, cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(h, 0x3c + i, gib);
    void* d = nullptr;
    CK(cudaHostGetDevicePointer(&d, h, 0));
    ten.push_back({static_cast<const uint4*>(d), gib / block});
  }
  return ten;
}

// ---- beside mode ----------------------------------------------------------------------------

enum class beside_kind : int { none, idle, poll, poll_sys, atomic, store };

/// Client-like traffic on every SM it lands on, until the host sets `*stop` (or, as a bound,
/// `for_ns` after its block starts): see the header. Records its blocks' SMs and counts its
/// accesses.
__global__ void beside(beside_kind kind, std::uint32_t* words, std::uint64_t n_words,
                       std::uint32_t stride_words, std::uint32_t sleep_ns, std::uint64_t for_ns,
                       const std::uint32_t* stop, std::uint32_t* sms,
                       unsigned long long* accesses) {
  const std::uint64_t slots = n_words / stride_words;  // the words it touches: one a stride
  if (threadIdx.x == 0) sms[blockIdx.x] = bam::detail::sm_id();
  const std::uint64_t until = bam::now_ns() + for_ns;
  const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  std::uint64_t i = 0;
  std::uint32_t sum = 0;
  const cuda::atomic_ref<const std::uint32_t, cuda::thread_scope_system> stopped(*stop);
  while (bam::now_ns() < until && stopped.load(cuda::memory_order_relaxed) == 0) {
    for (int k = 0; k < 64; ++k, ++i) {
      const std::uint64_t w = bam::mix64((t << 32) ^ i) % slots * stride_words;
      switch (kind) {
        case beside_kind::poll:
          sum += cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(words[w]).load(
              cuda::memory_order_relaxed);
          break;
        case beside_kind::poll_sys:
          sum += cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(words[w]).load(
              cuda::memory_order_acquire);
          break;
        case beside_kind::atomic:
          atomicAdd(words + w, 1u);
          break;
        case beside_kind::store:
          cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(words[w]).store(
              static_cast<std::uint32_t>(i), cuda::memory_order_relaxed);
          break;
        default:
          break;
      }
      __nanosleep(sleep_ns);
    }
  }
  if (sum == 0x9e3779b9u) words[0] = sum;  // keeps the loads
  atomicAdd(accesses, static_cast<unsigned long long>(i));
}

/// The copies' blocks' SMs (one block an SM by its shared memory, as in the timed runs).
__global__ void where_copies_run(std::uint32_t* sms) {
  extern __shared__ uint4 unused[];
  if (threadIdx.x == 0) sms[blockIdx.x] = bam::detail::sm_id();
}

int run_beside(int repeats, std::vector<std::string> specs) {
  constexpr std::uint64_t block = 512;
  constexpr std::uint32_t words = block / 16, copy_blocks = 16, copy_warps = 16;
  constexpr std::size_t copy_shared = 120 * 1024, beside_shared = 200 * 1024;
  struct beside_spec {
    std::string name;
    beside_kind kind;
    std::uint64_t n_words;
    std::uint32_t stride_words, sleep_ns;
  };
  const std::vector<std::pair<const char*, beside_kind>> names = {
      {"none", beside_kind::none},     {"idle", beside_kind::idle},
      {"poll", beside_kind::poll},     {"poll-sys", beside_kind::poll_sys},
      {"atomic", beside_kind::atomic}, {"store", beside_kind::store}};
  if (specs.empty())
    specs = {"none", "idle", "poll:128:64", "poll-sys:128:64", "atomic:0.15625:64", "none"};
  std::vector<beside_spec> kinds;
  std::uint64_t max_words = 1;
  for (const std::string& sp : specs) {  // kind[:MiB[:sleep ns[:stride bytes]]]
    std::vector<std::string> f;
    for (std::size_t at = 0;;) {
      const std::size_t c = sp.find(':', at);
      f.push_back(sp.substr(at, c == std::string::npos ? c : c - at));
      if (c == std::string::npos) break;
      at = c + 1;
    }
    double mib = 1.0;
    long sleep = 64, stride = 4;
    bool ok = f.size() <= 4;
    if (ok && f.size() > 1) {
      char* end = nullptr;
      mib = std::strtod(f[1].c_str(), &end);
      ok = !f[1].empty() && *end == '\0' && mib > 0 && mib <= 4096;
    }
    if (ok && f.size() > 2) ok = whole_number(f[2].c_str(), 0, 1'000'000, sleep);
    if (ok && f.size() > 3)
      ok = whole_number(f[3].c_str(), 4, static_cast<long>(mib * 1024 * 1024), stride) &&
           stride % 4 == 0;
    const auto it =
        std::find_if(names.begin(), names.end(), [&](const auto& n) { return f[0] == n.first; });
    if (!ok || it == names.end()) {
      std::fprintf(stderr,
                   "beside: bad spec '%s' (kind[:MiB[:sleep ns[:stride bytes]]], kinds none "
                   "idle poll poll-sys atomic store; a stride a multiple of 4 within the span)\n",
                   sp.c_str());
      return 2;
    }
    const auto n = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(mib * 1024 * 1024 / 4));
    kinds.push_back({sp, it->second, n, static_cast<std::uint32_t>(stride / 4),
                     static_cast<std::uint32_t>(sleep)});
    max_words = std::max(max_words, n);
  }
  const std::uint64_t n_words = max_words;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const auto beside_blocks = static_cast<std::uint32_t>(sms) - copy_blocks;
  std::printf("# beside mode: %s, %d SMs; async8x1 on %u x %u beside %u blocks x 256 threads\n",
              prop.name, sms, copy_blocks, copy_warps, beside_blocks);
  const std::vector<span> ten = pin_ten_spans(block);
  span* d_spans = nullptr;
  CK(cudaMalloc(&d_spans, 10 * sizeof(span)));
  std::uint32_t *d_words = nullptr, *d_sms = nullptr;
  unsigned long long* d_accesses = nullptr;
  CK(cudaMalloc(&d_words, n_words * 4));
  CK(cudaMemset(d_words, 0, n_words * 4));
  CK(cudaMalloc(&d_sms, 2 * static_cast<std::size_t>(sms) * 4));
  CK(cudaMalloc(&d_accesses, sizeof(unsigned long long)));
  std::uint32_t* d_stop = nullptr;
  CK(cudaMalloc(&d_stop, sizeof(std::uint32_t)));
  uint4* scratch = nullptr;
  CK(cudaMalloc(&scratch, std::size_t{copy_blocks} * copy_warps * 32 * 8 * 16));
  kernel_fn copy = async_copy<8, 1>;
  CK(cudaFuncSetAttribute(copy, cudaFuncAttributeMaxDynamicSharedMemorySize, copy_shared));
  CK(cudaFuncSetAttribute(where_copies_run, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          copy_shared));
  CK(cudaFuncSetAttribute(beside, cudaFuncAttributeMaxDynamicSharedMemorySize, beside_shared));
  cudaStream_t s_copy, s_beside;
  CK(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s_beside, cudaStreamNonBlocking));
  cudaEvent_t a, b, beside_a, beside_b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventCreate(&beside_a));
  CK(cudaEventCreate(&beside_b));
  const std::uint64_t per_warp = (16ull << 20) / (copy_blocks * copy_warps);
  const std::vector<std::pair<const char*, std::vector<span>>> feet = {{"10x1GiB", ten},
                                                                       {"1GiB", {ten[0]}}};
  for (const auto& [fname, fspans] : feet) {
    CK(cudaMemcpy(d_spans, fspans.data(), fspans.size() * sizeof(span), cudaMemcpyHostToDevice));
    for (const beside_spec& bs : kinds) {
      const beside_kind kind = bs.kind;
      const char* kname = bs.name.c_str();
      const bool with = kind != beside_kind::none;
      const std::uint64_t for_ns = 120'000'000'000ull;  // a bound: the copies stop it
      CK(cudaMemset(d_accesses, 0, sizeof(unsigned long long)));
      CK(cudaMemset(d_stop, 0, sizeof(std::uint32_t)));
      CK(cudaMemset(d_sms, 0xff, 2 * static_cast<std::size_t>(sms) * 4));
      if (with) {
        CK(cudaEventRecord(beside_a, s_beside));
        beside<<<beside_blocks, 256, beside_shared, s_beside>>>(
            kind, d_words, bs.n_words, bs.stride_words, bs.sleep_ns, for_ns, d_stop, d_sms + sms,
            d_accesses);
        CK(cudaGetLastError());
        CK(cudaEventRecord(beside_b, s_beside));
        usleep(50'000);  // resident before the copies start
      }
      where_copies_run<<<copy_blocks, copy_warps * 32, copy_shared, s_copy>>>(d_sms);
      CK(cudaGetLastError());
      std::vector<double> rate;
      for (int r = 0; r <= repeats; ++r) {
        CK(cudaEventRecord(a, s_copy));
        copy<<<copy_blocks, copy_warps * 32, copy_shared, s_copy>>>(
            d_spans, static_cast<std::uint32_t>(fspans.size()), words, scratch, per_warp, 77 + r);
        CK(cudaGetLastError());
        CK(cudaEventRecord(b, s_copy));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0) rate.push_back(double(copy_blocks * copy_warps * per_warp) / (ms * 1e-3) / 1e6);
      }
      const bool still = with && cudaStreamQuery(s_beside) == cudaErrorNotReady;
      const std::uint32_t one = 1;
      CK(cudaMemcpyAsync(d_stop, &one, sizeof one, cudaMemcpyHostToDevice, s_copy));
      CK(cudaStreamSynchronize(s_copy));
      CK(cudaStreamSynchronize(s_beside));
      float beside_ms = 0;
      if (with) CK(cudaEventElapsedTime(&beside_ms, beside_a, beside_b));
      std::vector<std::uint32_t> where(2 * static_cast<std::size_t>(sms));
      unsigned long long accesses = 0;
      CK(cudaMemcpy(where.data(), d_sms, where.size() * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(&accesses, d_accesses, sizeof accesses, cudaMemcpyDeviceToHost));
      std::set<std::uint32_t> copy_sms(where.begin(), where.begin() + copy_blocks);
      std::set<std::uint32_t> beside_sms;
      if (with) beside_sms.insert(where.begin() + sms, where.begin() + sms + beside_blocks);
      int overlap = 0;
      for (std::uint32_t x : copy_sms)
        overlap += beside_sms.count(x) != 0;
      std::sort(rate.begin(), rate.end());
      std::string cs;
      for (std::uint32_t x : copy_sms)
        cs += (cs.empty() ? "" : ",") + std::to_string(x);
      std::printf(
          "beside %-8s %-8s %8.2f M/s (%.2f-%.2f); copies on %zu SMs [%s], beside on %zu, "
          "shared %d; beside running at the end: %s; beside %.1f M accesses/s over its run\n",
          kname, fname, rate[(rate.size() - 1) / 2], rate.front(), rate.back(), copy_sms.size(),
          cs.c_str(), beside_sms.size(), overlap, with ? (still ? "yes" : "NO: not valid") : "-",
          with ? double(accesses) / (double(beside_ms) * 1e-3) / 1e6 : 0.0);
      std::fflush(stdout);
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "beside") == 0) {
    long reps = 3;
    if (argc > 2 && !whole_number(argv[2], 1, 1000, reps)) {
      std::fprintf(stderr, "beside: repeats '%s' is not a whole number 1 .. 1000\n", argv[2]);
      return 2;
    }
    return run_beside(static_cast<int>(reps),
                      std::vector<std::string>(argv + std::min(argc, 3), argv + argc));
  }
  const std::uint64_t block = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 512;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string only = argc > 3 ? argv[3] : "";  // schemes whose name starts with it
  const std::string foot = argc > 4 ? argv[4] : "";  // one footprint: 1GiB, 4GiB or 10x1GiB
  if (!foot.empty() && foot != "1GiB" && foot != "4GiB" && foot != "10x1GiB") {
    std::fprintf(stderr, "unknown footprint '%s': 1GiB, 4GiB or 10x1GiB\n", foot.c_str());
    return 2;
  }
  if (block < 16 || block % 16 != 0 || block > (1u << 20) || repeats < 1) {
    std::fprintf(stderr,
                 "usage: %s [block_bytes: a multiple of 16, 16 .. 1 MiB] [repeats >= 1] "
                 "[scheme name prefix] [footprint: 1GiB, 4GiB or 10x1GiB]\n",
                 argv[0]);
    return 2;
  }
  const std::vector<scheme> schemes = {
      {"direct8", direct<8>, 8, 0},
      {"async8x1", async_copy<8, 1>, 8, 1},
      {"async8x2", async_copy<8, 2>, 8, 2},
      {"async8x4", async_copy<8, 4>, 8, 4},
      {"async16x1", async_copy<16, 1>, 16, 1},
      {"async4x4", async_copy<4, 4>, 4, 4},
      {"bulk8x1", bulk_copy<8, 1>, 8, 1, 1},
      {"bulk8x2", bulk_copy<8, 2>, 8, 2, 1},
      {"bulk16x1", bulk_copy<16, 1>, 16, 1, 1},
      {"bulk16x2", bulk_copy<16, 2>, 16, 2, 1},
      {"bulk32x1", bulk_copy<32, 1>, 32, 1, 1},
      {"bulk8x4", bulk_copy<8, 4>, 8, 4, 1},
  };
  bool any = false, any_not_bulk = false;
  for (const scheme& sc : schemes)
    if (only.empty() || std::strncmp(sc.name, only.c_str(), only.size()) == 0) {
      any = true;
      any_not_bulk = any_not_bulk || sc.bulk == 0;
    }
  if (!any) {
    std::fprintf(stderr, "no scheme's name starts with '%s'\n", only.c_str());
    return 2;
  }
  if (!any_not_bulk && block > 512) {
    std::fprintf(stderr, "the bulk schemes copy blocks of 512 B at most\n");
    return 2;
  }
  const std::uint32_t words = static_cast<std::uint32_t>(block / 16);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs, block %llu B\n", prop.name, sms,
              static_cast<unsigned long long>(block));

  // 10 spans of 1 GiB, and one of 4 GiB; the 1 GiB footprint is the first span.
  constexpr std::uint64_t gib = 1ull << 30;
  const std::vector<span> ten = pin_ten_spans(block);
  void* h4 = nullptr;
  CK(cudaHostAlloc(&h4, 4 * gib, cudaHostAllocMapped | cudaHostAllocPortable));
  std::memset(h4, 0x5a, 4 * gib);
  void* d4 = nullptr;
  CK(cudaHostGetDevicePointer(&d4, h4, 0));
  const span four{static_cast<const uint4*>(d4), 4 * gib / block};

  struct footprint {
    const char* name;
    std::vector<span> spans;
  };
  const std::vector<footprint> feet = {{"1GiB", {ten[0]}}, {"4GiB", {four}}, {"10x1GiB", ten}};
  span* d_spans = nullptr;
  CK(cudaMalloc(&d_spans, 10 * sizeof(span)));

  const std::vector<grid_shape> grids = {
      {"whole", static_cast<std::uint32_t>(sms) * 8, 8, true},
      {"16x16", 16, 16, false},
      {"32x8", 32, 8, false},
      {"32x16", 32, 16, false},
      {"48x16", 48, 16, false},
      {"16x8", 16, 8, false},
      {"16x4", 16, 4, false},
  };
  uint4* scratch = nullptr;
  const std::uint64_t max_warps = std::uint64_t{static_cast<std::uint32_t>(sms) * 8} * 8;
  CK(cudaMalloc(&scratch, max_warps * 32 * 16 * 16));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (const footprint& ft : feet) {
    if (!foot.empty() && foot != ft.name) continue;
    CK(cudaMemcpy(d_spans, ft.spans.data(), ft.spans.size() * sizeof(span),
                  cudaMemcpyHostToDevice));
    for (const grid_shape& g : grids) {
      for (const scheme& sc : schemes) {
        if (g.whole && (sc.p > 1 || sc.bulk != 0)) continue;  // whole GPU: one-stage, not bulk
        if (!only.empty() && std::strncmp(sc.name, only.c_str(), only.size()) != 0) continue;
        // Bulk: grids of the engine's size or less, blocks of 512 B at most (the kernel's output
        // stride is 16 KiB a warp: 32 blocks of 512 B).
        if (sc.bulk != 0 && (g.blocks * g.warps > 256 || block > 512)) {
          std::printf("%-10s %-6s %-8s skipped: bulk runs on 256 warps at most, 512 B blocks\n",
                      sc.name, g.name, ft.name);
          continue;
        }
        const std::uint64_t warps = std::uint64_t{g.blocks} * g.warps;
        // About 16 M blocks of 512 B (or 2 GiB of larger ones) per run.
        const std::uint64_t target = block <= 512 ? (16ull << 20) : ((2ull << 30) / block);
        const std::uint64_t per_warp = std::max<std::uint64_t>(64, target / warps);
        const std::size_t shared = sc.p == 0 ? 0
                                   : sc.bulk != 0
                                       ? std::size_t{g.warps} * sc.s * sc.p * block
                                       : std::size_t{g.warps} * 32 * sc.s * sc.p * sizeof(uint4);
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, sc.fn));  // its static shared memory (the mbarriers)
        if (shared + fa.sharedSizeBytes > prop.sharedMemPerBlockOptin) {
          std::printf("%-10s %-6s %-8s skipped: %zu bytes of shared memory a block\n", sc.name,
                      g.name, ft.name, shared + fa.sharedSizeBytes);
          continue;
        }
        if (shared + fa.sharedSizeBytes > 48 * 1024)
          CK(cudaFuncSetAttribute(sc.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(shared)));
        std::vector<double> rate;
        for (int r = 0; r <= repeats; ++r) {
          CK(cudaEventRecord(a));
          sc.fn<<<g.blocks, g.warps * 32, shared>>>(d_spans,
                                                    static_cast<std::uint32_t>(ft.spans.size()),
                                                    words, scratch, per_warp, 1234 + r);
          CK(cudaGetLastError());
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          float ms = 0;
          CK(cudaEventElapsedTime(&ms, a, b));
          if (r > 0) rate.push_back(double(warps * per_warp) / (ms * 1e-3) / 1e6);
        }
        std::sort(rate.begin(), rate.end());
        int resident = 0;  // blocks an SM holds: the whole grid runs at once only if enough
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, sc.fn, g.warps * 32, shared));
        std::printf("%-10s %-6s %-8s %8.2f M/s (%.2f-%.2f), %d blocks per SM\n", sc.name, g.name,
                    ft.name, rate[(rate.size() - 1) / 2], rate.front(), rate.back(), resident);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
