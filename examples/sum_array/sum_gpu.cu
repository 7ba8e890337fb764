// GPU path: GPU-emulated SSDs (their controller is a persistent kernel on this GPU), the numbers
// written into their media, a kernel summing them through the GPU cache.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "bam/detail/cuda.hpp"
#include "bam/storage/gpu_context.hpp"
#include "sum.hpp"

using u64_array = bam::gpu_context::array_type<std::uint64_t>;

__global__ void sum_kernel(u64_array a, unsigned long long* out) {
  std::uint64_t s = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < a.size();
       i += stride)
    s += a[i];  // a warp's lanes read one line: one cache access for the 32 of them
  atomicAdd(out, static_cast<unsigned long long>(s));
}

sum_status sum_on_gpu(const std::vector<std::uint64_t>& v) {
  std::string why;
  if (!bam::cuda_device_usable(why)) {
    std::printf("gpu: skipped (%s)\n", why.c_str());
    return sum_status::matches;
  }
  bam::gpu_context ctx(ssds_for(v.size(), bam::backend_kind::emulated));
  ctx.add_region("numbers", v.size() * 8);
  ctx.write_region("numbers", v.data(), v.size() * 8);
  ctx.build_cache();
  const u64_array a = ctx.array<std::uint64_t>("numbers");

  unsigned long long* out = nullptr;
  bam::cuda_check(cudaMallocManaged(&out, sizeof *out), "cudaMallocManaged");
  *out = 0;
  cudaStream_t stream;
  bam::cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  bam::cuda_check(bam::preload_kernel(sum_kernel), "preload");  // before the engine holds SMs
  ctx.start();
  sum_kernel<<<264, 256, 0, stream>>>(a, out);
  bam::cuda_check(cudaGetLastError(), "sum_kernel");
  bam::cuda_check(cudaStreamSynchronize(stream), "sum_kernel");
  const bam::cache_stats st = ctx.cache().stats();  // st.io_failed(): the error flag
  ctx.close();
  const unsigned long long sum = *out;
  bam::cuda_check(cudaStreamDestroy(stream), "stream");
  bam::cuda_check(cudaFree(out), "cudaFree");
  const bool ok = sum == plain_sum(v);
  std::printf("gpu: sum of %zu elements %s (%" PRIu64 " lines read from 4 SSDs, %" PRIu64
              " hits, %" PRIu64 " accesses failed, %" PRIu64 " I/O errors)\n",
              v.size(), ok ? "matches" : "DIFFERS", st.reads, st.hits, st.failed_accesses,
              st.io_errors);
  if (st.io_failed()) return sum_status::io_failed;
  return ok ? sum_status::matches : sum_status::differs;
}
