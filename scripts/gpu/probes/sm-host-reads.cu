// Issue 19 probe, stand-alone (not part of the build): does where a kernel's blocks land change
// how fast each of them reads random 512 B blocks of pinned host memory? docs/gpu-engine.md ("The
// engine's saturated SMs") found the engine's blocks on SMs 124, 125, 130 and 131 taking about 4 x
// as long per entry at the 10 GiB point, in every process, and did not find why.
//
// Part 1, the SMs' groups: a kernel launched in thread block clusters of 2, 4, 8 and 16 blocks
// (one block per SM) prints each cluster's SMs; a cluster runs within one GPC, so the SMs that
// share clusters share a GPC.
// Part 2, reads by placement: a kernel of one block per SM (each asks for more than half an SM's
// shared memory) whose blocks on the SMs of a set read, 16 warps each, 8 random 512 B blocks per
// warp in flight (each lane 16 B of each, __ldcg, the ceiling kernel's scheme), for `ms`
// milliseconds started together; the others return at once. Each line: the set, the footprint,
// the set's M reads/s (median of `reps` launches) and each SM's (that launch's).
//
//   nvcc -O3 -std=c++20 -arch=sm_90 -Ilib/include -o sm-host-reads \
//     scripts/gpu/probes/sm-host-reads.cu
//   ./sm-host-reads [ms=30] [reps=3]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "bam/detail/clock.hpp"
#include "bam/detail/cuda.hpp"
#include "bam/detail/hash.hpp"
#include "bam/detail/sm_id.hpp"

// The library's CUDA check (throws, naming the call) and its %smid and %globaltimer readers.
#define CK(x) bam::cuda_check((x), #x)

namespace {

constexpr int max_sms = 256;
constexpr std::size_t block_smem = 120 * 1024;  // more than half an SM's 228 KiB: one block an SM
constexpr int warps_per_block = 16;             // the engine's
constexpr int in_flight = 8;                    // blocks per warp in flight (engine_copy_depth)

using bam::now_ns;
using bam::detail::sm_id;

struct span {
  const uint4* base;
  std::uint64_t blocks;  // of 512 B
};

struct control {
  unsigned arrived;
  unsigned long long t_end;
  unsigned long long count[max_sms];
  unsigned blocks_on[max_sms];
  unsigned long long sink;
};

__global__ void where(unsigned* out) {
  extern __shared__ unsigned smem_w[];
  if (threadIdx.x == 0) {
    smem_w[0] = 1;
    out[blockIdx.x] = sm_id();
  }
}

__global__ void reads(const span* spans, unsigned n_spans, const unsigned char* active,
                      unsigned n_active, control* c, unsigned long long dur_ns,
                      unsigned long long seed) {
  extern __shared__ unsigned smem_r[];
  __shared__ unsigned long long t_end;
  const unsigned sm = sm_id();
  if (!active[sm]) return;
  if (threadIdx.x == 0) {
    smem_r[0] = 1;
    atomicAdd(&c->blocks_on[sm], 1u);
    if (atomicAdd(&c->arrived, 1u) == n_active - 1) {
      atomicExch(&c->t_end, now_ns() + dur_ns);
    }
    unsigned long long t;
    while ((t = atomicAdd(&c->t_end, 0ull)) == 0)
      __nanosleep(100);
    t_end = t;
  }
  __syncthreads();
  const unsigned lane = threadIdx.x % 32;
  const unsigned long long warp =
      (unsigned long long)blockIdx.x * warps_per_block + threadIdx.x / 32;
  const unsigned long long end = t_end;
  unsigned long long n = 0, j = 0;
  uint4 acc{0, 0, 0, 0};
  while (now_ns() < end) {
    uint4 v[in_flight];
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      const std::uint64_t h = bam::mix64(seed ^ (warp << 32) ^ (j + k));
      const span s = spans[n_spans == 1 ? 0 : (h >> 40) % n_spans];
      v[k] = __ldcg(s.base + (h % s.blocks) * 32 + lane);
    }
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      acc.x ^= v[k].x;
      acc.y ^= v[k].y;
    }
    j += in_flight;
    n += in_flight;
  }
  if (lane == 0) atomicAdd(&c->count[sm], n);
  if (acc.x == 0x12345678u && acc.y == 0x9abcdef0u) atomicAdd(&c->sink, 1ull);
}

void print_groups(int n_sms) {
  CK(cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)block_smem));
  CK(cudaFuncSetAttribute(where, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  unsigned* out = nullptr;
  CK(cudaMallocManaged(&out, max_sms * 4 * sizeof(unsigned)));
  std::vector<int> parent(max_sms);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int cs : {2, 4, 8, 16}) {
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cs;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.blockDim = dim3(32);
    cfg.dynamicSmemBytes = block_smem;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(cs);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, where, &cfg) != cudaSuccess || clusters == 0) {
      std::printf("clusters of %d: not launchable\n", cs);
      cudaGetLastError();
      continue;
    }
    for (int rep = 0; rep < 3; ++rep) {
      cfg.gridDim = dim3(clusters * cs);
      CK(cudaLaunchKernelEx(&cfg, where, out));
      CK(cudaDeviceSynchronize());
      std::printf("clusters of %d (%d at once), launch %d:", cs, clusters, rep);
      for (int k = 0; k < clusters; ++k) {
        std::printf(" [");
        for (int b = 0; b < cs; ++b) {
          const unsigned s = out[k * cs + b];
          std::printf(b ? " %u" : "%u", s);
          if (b) parent[find(s)] = find(out[k * cs]);
        }
        std::printf("]");
      }
      std::printf("\n");
    }
  }
  std::map<int, std::vector<int>> groups;
  for (int s = 0; s < n_sms; ++s)
    groups[find(s)].push_back(s);
  std::printf("SM groups (joined by shared clusters): %zu\n", groups.size());
  for (auto& [root, sms] : groups) {
    std::printf("  %zu SMs:", sms.size());
    for (int s : sms)
      std::printf(" %d", s);
    std::printf("\n");
  }
  CK(cudaFree(out));
}

}  // namespace

int main(int argc, char** argv) {
  const int ms = argc > 1 ? std::atoi(argv[1]) : 30;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const int n_sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs\n", prop.name, n_sms);
  print_groups(n_sms);

  constexpr std::uint64_t gib = 1ull << 30;
  std::vector<span> ten;
  for (int i = 0; i < 10; ++i) {
    void* h = nullptr;
    CK(cudaHostAlloc(&h, gib, cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(h, i + 1, gib);
    void* d = nullptr;
    CK(cudaHostGetDevicePointer(&d, h, 0));
    ten.push_back({static_cast<const uint4*>(d), gib / 512});
  }
  span* spans = nullptr;
  CK(cudaMalloc(&spans, ten.size() * sizeof(span)));
  CK(cudaMemcpy(spans, ten.data(), ten.size() * sizeof(span), cudaMemcpyHostToDevice));
  unsigned char* active = nullptr;
  control* c = nullptr;
  CK(cudaMalloc(&active, max_sms));
  CK(cudaMallocManaged(&c, sizeof(control)));
  CK(cudaFuncSetAttribute(reads, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)block_smem));

  auto range = [](int a, int b, int step = 1) {
    std::vector<int> v;
    for (int s = a; s < b; s += step)
      v.push_back(s);
    return v;
  };
  std::vector<std::pair<std::string, std::vector<int>>> sets;
  for (int s : {0, 2, 16, 124, 125, 126, 130, 131})
    sets.push_back({"solo-" + std::to_string(s), {s}});
  {
    auto e = range(124, 132);
    for (int s = 0; s < 16; s += 2)
      e.push_back(s);
    sets.push_back({"engine-placement", e});
  }
  sets.push_back({"first16", range(0, 16)});
  sets.push_back({"even16", range(0, 32, 2)});
  sets.push_back({"first8", range(0, 8)});
  sets.push_back({"even8", range(0, 16, 2)});
  sets.push_back({"first32", range(0, 32)});
  sets.push_back({"last16", range(n_sms - 16, n_sms)});
  sets.push_back({"stride8", range(0, 128, 8)});
  sets.push_back({"last8", range(n_sms - 8, n_sms)});
  sets.push_back({"all", range(0, n_sms)});

  unsigned long long seed = 1;
  for (int fp : {10, 1}) {
    for (auto& [name, sms] : sets) {
      std::vector<unsigned char> act(max_sms, 0);
      for (int s : sms)
        if (s < n_sms) act[s] = 1;
      const unsigned n_active = static_cast<unsigned>(std::count(act.begin(), act.end(), 1));
      CK(cudaMemcpy(active, act.data(), max_sms, cudaMemcpyHostToDevice));
      std::vector<double> totals;
      std::vector<double> per_sm(max_sms, 0);
      bool doubled = false;
      for (int r = 0; r < reps; ++r) {
        std::memset(c, 0, sizeof(control));
        reads<<<n_sms, warps_per_block * 32, block_smem>>>(spans, fp, active, n_active, c,
                                                           ms * 1000000ull, seed++);
        CK(cudaDeviceSynchronize());
        double t = 0;
        for (int s = 0; s < max_sms; ++s) {
          if (c->blocks_on[s] > 1) doubled = true;
          t += c->count[s];
          per_sm[s] = c->count[s] / (ms * 1e-3) / 1e6;
        }
        totals.push_back(t / (ms * 1e-3) / 1e6);
      }
      std::sort(totals.begin(), totals.end());
      std::printf("%-16s %2d GiB: %7.2f M/s (%.2f-%.2f)%s; per SM (last launch):", name.c_str(), fp,
                  totals[totals.size() / 2], totals.front(), totals.back(),
                  doubled ? " [an SM held two blocks]" : "");
      for (int s = 0; s < n_sms; ++s)
        if (act[s]) std::printf(" %d:%.2f", s, per_sm[s]);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
