// Experiment: single queue pair IOPS vs threads, with per-phase cycle profile.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "bam/emu/timing_presets.hpp"
#include "bam/gpu/drive_io.hpp"

#define CK(x)                                             \
  do {                                                    \
    cudaError_t e = (x);                                  \
    if (e != cudaSuccess) {                               \
      printf("CUDA %s: %s\n", #x, cudaGetErrorString(e)); \
      exit(1);                                            \
    }                                                     \
  } while (0)

__device__ std::uint64_t mixd(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
__global__ void io_kernel(bam::gpu::drives_view v, std::byte* buffers, std::uint32_t threads,
                          std::uint32_t ios, unsigned long long* errors) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  std::byte* buf = buffers + std::uint64_t{t} * 512;
  unsigned long long bad = 0;
  for (std::uint32_t i = 0; i < ios; ++i) {
    const std::uint64_t lba = mixd((std::uint64_t{t} << 20) ^ i) % v.lbas;
    if (!bam::gpu::block_io(v, 0, 0, false, lba, 1, buf, 0).status().ok()) ++bad;
  }
  if (bad) atomicAdd(errors, bad);
}

int main(int argc, char** argv) {
  const char* model = argc > 1 ? argv[1] : "null";
  std::vector<std::uint32_t> ts = {256, 1024, 2048, 4096, 8192, 16384, 65536, 262144};
  std::uint64_t min_ios = argc > 2 ? std::atoll(argv[2]) : 200000;
  bam::gpu::drives_config cfg;
  bam::gpu::drive_config d;
  d.lbas = (256ull << 20) >> 9;
  d.model = bam::emu::timing_preset(model);
  cfg.drives.push_back(d);
  cfg.queues_per_drive = 1;
  cfg.queue_entries = 1024;
  cfg.engine_blocks = 8;
  cfg.engine_warps_per_block = 16;
  bam::gpu::emulated_drives drives(cfg);
  std::byte* buf;
  CK(cudaMalloc(&buf, 262144ull * 512));
  unsigned long long* err;
  CK(cudaMallocHost(&err, 8));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(bam::gpu::preload_kernel(io_kernel));
  unsigned long long zero[16] = {};
#if defined(BAM_QUEUE_PROFILE)
  unsigned long long prof[16];
#endif
  drives.start();
  for (auto T : ts) {
    std::uint32_t ios = static_cast<std::uint32_t>((min_ios + T - 1) / T);
    if (ios < 1) ios = 1;
#if defined(BAM_QUEUE_PROFILE)
    CK(cudaMemcpyToSymbolAsync(bam_g_qp_prof_alias, zero, sizeof zero, 0, cudaMemcpyHostToDevice,
                               s));
#endif
    *err = 0;
    auto a = std::chrono::steady_clock::now();
    io_kernel<<<(T + 255) / 256, 256, 0, s>>>(drives.view(), buf, T, ios, err);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    double n = double(T) * ios;
    printf("T=%u ios/thr=%u IOPS=%.3fM err=%llu", T, ios, n / sec / 1e6, *err);
#if defined(BAM_QUEUE_PROFILE)
    CK(cudaMemcpyFromSymbolAsync(prof, bam_g_qp_prof_alias, sizeof prof, 0, cudaMemcpyDeviceToHost,
                                 s));
    CK(cudaStreamSynchronize(s));
    const char* names[] = {"cid", "turn", "place+tail", "poll", "consume"};
    for (int i = 0; i < 5; ++i)
      printf(" %s=%.1fus", names[i], prof[i] / n / 1.98e3);
    printf(" fallback_cids=%llu finds/op=%.1f", prof[9], prof[10] / n);
#endif
    printf("\n");
    fflush(stdout);
    if (sec > 20) break;
  }
  drives.stop();
  (void)zero;
  return 0;
}
