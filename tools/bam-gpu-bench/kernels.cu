// bam-gpu-bench: kernels and event timing.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bam/detail/cuda.hpp"
#include "bam/emu/gpu/drive_io.hpp"
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

__global__ void io_kernel(emu::gpu::drives_view v, std::byte* buffers, std::uint32_t threads,
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
    if (!emu::gpu::block_io(v, drive, queue, write, lba, 1, buf, 0).status().ok()) ++bad;
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

io_run run_io(const emu::gpu::drives_view& v, std::uint32_t threads, std::uint32_t ios_per_thread,
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
  check(bam::preload_kernel(io_kernel), "preload io_kernel");
}

}  // namespace bam::bench
