// bam-gpu-bench: kernels and event timing.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/gpu/drive_io.hpp"
#include "kernels.hpp"

namespace bam::bench {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__host__ __device__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Each warp copies `per_warp` random blocks of `media` into its own scratch block, four blocks in
/// flight per lane.
__global__ void direct_read(const uint4* media, std::uint64_t blocks, std::uint32_t block_bytes,
                            uint4* scratch, std::uint32_t per_warp, std::uint64_t seed) {
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint64_t warp = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const std::uint32_t words = block_bytes / 16;
  uint4* out = scratch + warp * words;
  constexpr int U = 4;
  for (std::uint32_t i = 0; i < per_warp; i += U) {
    uint4 v[U][8];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::uint64_t b = mix(seed ^ (warp << 24) ^ (i + u)) % blocks;
      const uint4* src = media + b * words;
#pragma unroll
      for (int k = 0; k < 8; ++k)
        if (lane + 32u * k < words) v[u][k] = __ldcg(src + lane + 32 * k);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < 8; ++k)
        if (lane + 32u * k < words) __stcg(out + lane + 32 * k, v[u][k]);
  }
}

__global__ void io_kernel(gpu::drives_view v, std::byte* buffers, std::uint32_t threads,
                          std::uint32_t ios, bool write, std::uint64_t seed,
                          unsigned long long* errors, bool warp_mapping) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const std::uint32_t bytes = 1u << v.lba_shift;
  std::byte* buf = buffers + std::uint64_t{t} * bytes;
  // Round-robin over drives, then queues: by thread (the BaM paper's benchmark) or by warp (the
  // lanes of a warp share one queue).
  const std::uint32_t unit = warp_mapping ? t / 32 : t;
  const std::uint32_t drive = unit % v.drives;
  const std::uint32_t queue = (unit / v.drives) % v.queues_per_drive;
  unsigned long long bad = 0;
  for (std::uint32_t i = 0; i < ios; ++i) {
    const std::uint64_t lba = mix(seed ^ (std::uint64_t{t} << 20) ^ i) % v.lbas;
    if (!gpu::block_io(v, drive, queue, write, lba, 1, buf, 0).status().ok()) ++bad;
  }
  if (bad != 0) atomicAdd(errors, bad);
}

struct scratch_buffers {
  std::byte* p = nullptr;
  std::size_t bytes = 0;
  std::byte* get(std::size_t n) {
    if (n > bytes) {
      if (p != nullptr) check(cudaFree(p), "cudaFree");
      check(cudaMalloc(&p, n), "cudaMalloc buffers");
      check(cudaMemset(p, 0x5a, n), "cudaMemset");
      bytes = n;
    }
    return p;
  }
};
scratch_buffers io_buffers;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

gpu_info query_gpu() {
  gpu_info g;
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  g.name = p.name;
  g.sms = p.multiProcessorCount;
  g.cc_major = p.major;
  g.cc_minor = p.minor;
  check(cudaDriverGetVersion(&g.driver_version), "driver version");
  check(cudaRuntimeGetVersion(&g.runtime_version), "runtime version");
  char bus[32] = {};
  check(cudaDeviceGetPCIBusId(bus, sizeof bus, dev), "bus id");
  g.pci_bus_id = bus;
  return g;
}

ceilings measure_ceilings(std::uint64_t media_bytes, std::uint32_t block, int repeats) {
  void* host = nullptr;
  void* dev = nullptr;
  void* dev_media = nullptr;
  check(cudaHostAlloc(&host, media_bytes, cudaHostAllocMapped | cudaHostAllocPortable),
        "cudaHostAlloc");
  check(cudaHostGetDevicePointer(&dev_media, host, 0), "cudaHostGetDevicePointer");
  std::memset(host, 0x3c, media_bytes);
  check(cudaMalloc(&dev, media_bytes), "cudaMalloc");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  ceilings c;
  std::vector<double> copy, direct;
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "sms");
  const std::uint32_t threads = 256, grid = static_cast<std::uint32_t>(sms) * 8;
  const std::uint64_t warps = std::uint64_t{grid} * threads / 32;
  uint4* scratch = nullptr;
  check(cudaMalloc(&scratch, warps * block), "cudaMalloc scratch");
  const std::uint64_t target_blocks = block == 512 ? (64ull << 20) / 4 : (16ull << 20) / 4;
  const auto per_warp = static_cast<std::uint32_t>((target_blocks / warps + 3) / 4 * 4);
  for (int r = 0; r < repeats + 1; ++r) {  // the first of each is a warm-up
    check(cudaEventRecord(a, s), "record");
    check(cudaMemcpyAsync(dev, host, media_bytes, cudaMemcpyHostToDevice, s), "memcpy");
    check(cudaEventRecord(b, s), "record");
    check(cudaEventSynchronize(b), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    if (r > 0) copy.push_back(static_cast<double>(media_bytes) / (ms * 1e-3) / 1e9);

    check(cudaEventRecord(a, s), "record");
    direct_read<<<grid, threads, 0, s>>>(static_cast<const uint4*>(dev_media), media_bytes / block,
                                         block, scratch, per_warp,
                                         1234 + static_cast<std::uint64_t>(r));
    check(cudaGetLastError(), "direct_read");
    check(cudaEventRecord(b, s), "record");
    check(cudaEventSynchronize(b), "sync");
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    if (r > 0) direct.push_back(static_cast<double>(warps * per_warp) / (ms * 1e-3));
  }
  c.memcpy_h2d_gbps = median(copy);
  c.direct_blocks_per_s = median(direct);
  c.direct_gbps = c.direct_blocks_per_s * block / 1e9;
  cudaFree(scratch);
  cudaFree(dev);
  cudaFreeHost(host);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaStreamDestroy(s);
  return c;
}

io_run run_io(const gpu::drives_view& v, std::uint32_t threads, std::uint32_t ios_per_thread,
              bool write, std::uint64_t seed, std::uint64_t* errors, bool warp_mapping) {
  // Buffers are allocated before the engine starts (cudaMalloc may synchronise the device):
  // the caller warms this with the largest thread count first.
  std::byte* buffers = io_buffers.get(std::size_t{threads} << v.lba_shift);
  static unsigned long long* err = nullptr;
  static cudaStream_t s = nullptr;
  static cudaEvent_t a, b;
  if (s == nullptr) {
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    check(cudaMallocHost(&err, sizeof *err), "cudaMallocHost");
    check(cudaEventCreate(&a), "event");
    check(cudaEventCreate(&b), "event");
  }
  *err = 0;
  check(cudaEventRecord(a, s), "record");
  io_kernel<<<(threads + 255) / 256, 256, 0, s>>>(v, buffers, threads, ios_per_thread, write, seed,
                                                  err, warp_mapping);
  check(cudaGetLastError(), "io_kernel");
  check(cudaEventRecord(b, s), "record");
  check(cudaEventSynchronize(b), "sync");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, a, b), "elapsed");
  if (errors != nullptr) *errors = *err;
  return io_run{ms * 1e-3, std::uint64_t{threads} * ios_per_thread};
}

/// Allocates the I/O buffers for up to `threads` threads (call before the engine starts).
void reserve_buffers(std::uint32_t threads, std::uint32_t lba_shift) {
  io_buffers.get(std::size_t{threads} << lba_shift);
  check(gpu::preload_kernel(io_kernel), "preload io_kernel");
}

}  // namespace bam::bench
