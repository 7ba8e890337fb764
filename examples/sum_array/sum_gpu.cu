// GPU path: one GPU-emulated drive (its controller is a persistent kernel), a CUDA kernel summing
// the array through bamkit's GPU software cache. Runs only where a GPU is usable.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/gpu_storage.hpp"
#include "bam/detail/cuda.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/emu/timing_presets.hpp"
#include "sum.hpp"

using gpu_cache = bam::cache<bam::gpu_cache_storage>;
using gpu_array = bam::array<std::uint64_t, gpu_cache::ref_type>;

__global__ void sum_kernel(gpu_array a, unsigned long long* out) {
  std::uint64_t s = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < a.size();
       i += stride)
    s += a[i];
  atomicAdd(out, static_cast<unsigned long long>(s));
}

bool sum_on_gpu(std::uint64_t n) {
  std::string why;
  if (!bam::cuda_device_usable(why)) {
    std::printf("gpu: skipped (%s)\n", why.c_str());
    return true;
  }
  constexpr std::uint32_t line_bytes = 4096;
  const std::uint64_t lines = (n * sizeof(std::uint64_t) + line_bytes - 1) / line_bytes;
  bam::emu::gpu::drive_config d;
  d.lbas = lines * (line_bytes / 512);
  d.model = bam::emu::timing_preset("ideal");
  bam::emu::gpu::drives_config dc;
  dc.drives = {d};
  dc.queues_per_drive = 32;
  bam::emu::gpu::emulated_drives drives(dc);
  // The data, written straight onto the drive's media (pinned host memory; one drive: line i at
  // byte i * line_bytes).
  auto* media = reinterpret_cast<std::uint64_t*>(drives.host_media(0));
  for (std::uint64_t i = 0; i < n; ++i)
    media[i] = value(i);

  bam::cache_config cc;
  cc.line_bytes = line_bytes;
  cc.slots = 1024;
  cc.lines = lines;
  gpu_cache c(cc, drives.view());  // allocations before start(): the engine then holds its SMs
  unsigned long long* out = nullptr;
  bam::cuda_check(cudaMalloc(&out, sizeof *out), "cudaMalloc");
  bam::cuda_check(cudaMemset(out, 0, sizeof *out), "cudaMemset");
  cudaStream_t stream;
  bam::cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  gpu_cache::preload();
  bam::cuda_check(bam::preload_kernel(sum_kernel), "preload");
  drives.start();
  sum_kernel<<<264, 256, 0, stream>>>(gpu_array(c.ref(), {0, n}), out);
  bam::cuda_check(cudaGetLastError(), "sum_kernel");
  unsigned long long sum = 0;
  bam::cuda_check(cudaMemcpyAsync(&sum, out, sizeof sum, cudaMemcpyDeviceToHost, stream), "copy");
  bam::cuda_check(cudaStreamSynchronize(stream), "sum_kernel");
  const bam::cache_stats st = c.stats();
  drives.stop();
  bam::cuda_check(cudaStreamDestroy(stream), "stream");
  bam::cuda_check(cudaFree(out), "cudaFree");
  const std::uint64_t want = plain_sum(n);
  std::printf("gpu: sum of %" PRIu64 " elements %s (%" PRIu64 " lines read from the drive)\n", n,
              sum == want ? "matches" : "DIFFERS", st.reads);
  return sum == want;
}
