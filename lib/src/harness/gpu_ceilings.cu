// GPU ceilings: pinned host->device copy bandwidth and random direct reads of pinned memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/detail/cuda.hpp"
#include "bam/harness/gpu_ceilings.hpp"
#include "bam/harness/workload.hpp"

namespace bam {
namespace {

/// A span as the kernel sees it: its device pointer and how many blocks it holds.
struct span_blocks {
  const uint4* media;
  std::uint64_t blocks;
};

/// Each warp copies `per_warp` random blocks of random spans into its own scratch block. The
/// warp's blocks are one flat array of 16-byte words (block j, word w); each lane keeps 8 loads
/// in flight, consecutive lanes on consecutive words (coalesced within a block).
__global__ void direct_read(const span_blocks* spans, std::uint32_t n_spans, std::uint32_t words,
                            uint4* scratch, std::uint32_t per_warp, std::uint64_t seed) {
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint64_t warp = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  uint4* out = scratch + warp * words;
  split_mix64 rng{seed ^ (warp * golden_gamma) ^ (std::uint64_t{lane + 1} << 56)};
  constexpr std::uint32_t group = 32;  // blocks whose words are shared out together
  for (std::uint32_t i = 0; i < per_warp; i += group) {
    // Lane j draws block j of this group; its address travels by shuffle.
    const span_blocks sp = spans[n_spans == 1 ? 0 : rng.next() % n_spans];
    const uint4* mine = sp.media + (rng.next() % sp.blocks) * words;
    const std::uint32_t n = min(group, per_warp - i);
    const std::uint64_t flat = std::uint64_t{n} * words;
    for (std::uint64_t f0 = 0; f0 < flat; f0 += 32 * 8) {
      uint4 v[8];
      std::uint32_t at[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const std::uint64_t f = f0 + lane + 32u * k;
        const auto j = static_cast<std::uint32_t>(f / words);
        const auto* b = reinterpret_cast<const uint4*>(
            __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(mine), j % 32));
        at[k] = static_cast<std::uint32_t>(f % words);
        if (f < flat) v[k] = __ldcg(b + at[k]);
      }
#pragma unroll
      for (int k = 0; k < 8; ++k)
        if (f0 + lane + 32u * k < flat) __stcg(out + at[k], v[k]);
    }
  }
}

/// What one measurement allocates, freed however it ends.
struct gpu_scratch {
  void* table = nullptr;
  void* copy_target = nullptr;
  void* reads = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t a = nullptr, b = nullptr;
  gpu_scratch() = default;
  gpu_scratch(const gpu_scratch&) = delete;
  gpu_scratch& operator=(const gpu_scratch&) = delete;
  ~gpu_scratch() {
    if (reads != nullptr) cudaFree(reads);
    if (copy_target != nullptr) cudaFree(copy_target);
    if (table != nullptr) cudaFree(table);
    if (a != nullptr) cudaEventDestroy(a);
    if (b != nullptr) cudaEventDestroy(b);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

/// The copy ceiling copies each span in pieces of at most this into one device buffer.
constexpr std::uint64_t copy_chunk_bytes = 1ull << 30;
/// Pinned memory allocated for a run's ceilings at most, when its media are not in host memory.
constexpr std::uint64_t own_memory_max_bytes = 4ull << 30;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

machine_ceilings measure_run_ceilings(std::span<const pinned_span> spans, std::uint64_t own_bytes,
                                      std::uint64_t block, int repeats) {
  const bool all_pinned = std::all_of(spans.begin(), spans.end(),
                                      [](const pinned_span& s) { return s.base != nullptr; });
  if (!spans.empty() && all_pinned) return measure_gpu_ceilings(spans, block, repeats);
  return measure_gpu_ceilings(nullptr, std::min(own_bytes, own_memory_max_bytes), block, repeats);
}

machine_ceilings measure_gpu_ceilings(const void* pinned, std::uint64_t bytes, std::uint64_t block,
                                      int repeats) {
  if (pinned != nullptr) {
    const pinned_span one{pinned, bytes};
    return measure_gpu_ceilings(std::span<const pinned_span>(&one, 1), block, repeats);
  }
  if (block == 0 || block % 16 != 0 || block > bytes) {
    throw std::runtime_error("measure_gpu_ceilings: block must be a multiple of 16 <= bytes");
  }
  void* own = nullptr;
  cuda_check(cudaHostAlloc(&own, bytes, cudaHostAllocMapped | cudaHostAllocPortable),
             "cudaHostAlloc");
  std::fill_n(static_cast<unsigned char*>(own), bytes, static_cast<unsigned char>(0x3c));
  machine_ceilings c;
  try {
    const pinned_span one{own, bytes};
    c = measure_gpu_ceilings(std::span<const pinned_span>(&one, 1), block, repeats);
  } catch (...) {
    cudaFreeHost(own);
    throw;
  }
  cudaFreeHost(own);
  c.memory = "pinned host memory allocated for the measurement";
  return c;
}

machine_ceilings measure_gpu_ceilings(std::span<const pinned_span> spans, std::uint64_t block,
                                      int repeats) {
  if (spans.empty()) throw std::runtime_error("measure_gpu_ceilings: no memory to measure");
  std::uint64_t total = 0, largest = 0;
  std::vector<span_blocks> table;
  for (const pinned_span& sp : spans) {
    if (sp.base == nullptr || block == 0 || block % 16 != 0 || block > sp.bytes) {
      throw std::runtime_error(
          "measure_gpu_ceilings: block must be a multiple of 16 <= every span's bytes");
    }
    void* dev_media = nullptr;
    cuda_check(cudaHostGetDevicePointer(&dev_media, const_cast<void*>(sp.base), 0),
               "cudaHostGetDevicePointer");
    table.push_back({static_cast<const uint4*>(dev_media), sp.bytes / block});
    total += sp.bytes;
    largest = std::max(largest, sp.bytes);
  }
  machine_ceilings c;
  c.memory = spans.size() == 1 ? "the caller's pinned host memory (the run's media)"
                               : "the caller's pinned host memory (every SSD's media of the run)";
  gpu_scratch g;
  cuda_check(cudaMalloc(&g.table, table.size() * sizeof(span_blocks)), "cudaMalloc spans");
  cuda_check(
      cudaMemcpy(g.table, table.data(), table.size() * sizeof(span_blocks), cudaMemcpyHostToDevice),
      "copy spans");
  const std::uint64_t chunk = std::min(largest, copy_chunk_bytes);
  cuda_check(cudaMalloc(&g.copy_target, chunk), "cudaMalloc copy target");
  cuda_check(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), "stream");
  cuda_check(cudaEventCreate(&g.a), "event");
  cuda_check(cudaEventCreate(&g.b), "event");
  cudaStream_t s = g.stream;
  cudaEvent_t a = g.a, b = g.b;
  const std::uint32_t threads = 256, grid = static_cast<std::uint32_t>(cuda_sm_count()) * 8;
  const std::uint64_t warps = std::uint64_t{grid} * threads / 32;
  cuda_check(cudaMalloc(&g.reads, warps * block), "cudaMalloc scratch");
  auto* scratch = static_cast<uint4*>(g.reads);
  // About 64 MiB of 512-byte blocks or 2 GiB of larger ones per run, at least one group per warp.
  const std::uint64_t target_bytes = block <= 512 ? (32ull << 20) : (2ull << 30);
  const std::uint64_t per_warp64 = std::max<std::uint64_t>(32, target_bytes / block / warps);
  const auto per_warp = static_cast<std::uint32_t>((per_warp64 + 31) / 32 * 32);
  std::vector<double> copy, direct;
  for (int r = 0; r < repeats + 1; ++r) {  // the first of each is a warm-up
    float ms = 0;
    cuda_check(cudaEventRecord(a, s), "record");
    for (const pinned_span& sp : spans) {
      for (std::uint64_t at = 0; at < sp.bytes; at += chunk) {
        cuda_check(cudaMemcpyAsync(g.copy_target, static_cast<const std::byte*>(sp.base) + at,
                                   std::min(chunk, sp.bytes - at), cudaMemcpyHostToDevice, s),
                   "memcpy");
      }
    }
    cuda_check(cudaEventRecord(b, s), "record");
    cuda_check(cudaEventSynchronize(b), "sync");
    cuda_check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    if (r > 0) copy.push_back(static_cast<double>(total) / (ms * 1e-3) / 1e9);

    cuda_check(cudaEventRecord(a, s), "record");
    direct_read<<<grid, threads, 0, s>>>(static_cast<const span_blocks*>(g.table),
                                         static_cast<std::uint32_t>(table.size()),
                                         static_cast<std::uint32_t>(block / 16), scratch, per_warp,
                                         1234 + static_cast<std::uint64_t>(r));
    cuda_check(cudaGetLastError(), "direct_read");
    cuda_check(cudaEventRecord(b, s), "record");
    cuda_check(cudaEventSynchronize(b), "sync");
    cuda_check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    if (r > 0) direct.push_back(static_cast<double>(warps * per_warp) / (ms * 1e-3));
  }
  c.over_bytes = total;
  c.io_size = block;
  c.median_of = repeats;
  c.h2d_memcpy_gbps = median(copy);
  c.direct_reads_per_s = median(direct);
  c.direct_read_gbps = c.direct_reads_per_s * static_cast<double>(block) / 1e9;
  c.method =
      "GPU: a plain kernel, warps copy random io_size blocks of random spans of the pinned memory "
      "(one span per SSD) to GPU memory, 8 x 16 B loads in flight per lane; h2d: "
      "cudaMemcpyAsync of every span in pieces of at most 1 GiB (over_bytes in all); each the "
      "median of median_of runs after a warm-up";
  return c;
}

}  // namespace bam
