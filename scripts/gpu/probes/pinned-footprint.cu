// Issue 19 probe, stand-alone (not part of the build): does the fall of GPU reads of pinned host
// memory with the footprint (H200: 100 M random 512 B reads/s over 1 GiB, 46-49 M over 4 GiB,
// 41 M over 16 GiB) depend on how the memory was pinned? A real SSD's flash has no such fall, so
// what of it the emulated drives' media can shed is the emulation medium's, not the stack's.
//
// For each way of pinning and each footprint: allocates, fills, then times random reads of
// `block` bytes by a plain kernel (every SM, 32 warps each, each lane 8 loads in flight; a warp
// reads one block 16 bytes a lane at a time), median of `reps` launches. Ways:
//   hostalloc     cudaHostAlloc(Mapped | Portable): what emulated_drives and the ceilings use
//   hostalloc-wc  the same with WriteCombined
//   register-4k   mmap, madvise(MADV_NOHUGEPAGE), touched, cudaHostRegister(Mapped | Portable)
//   register-thp  2 MiB-aligned mmap, madvise(MADV_HUGEPAGE), touched, cudaHostRegister
//   register-tlb  mmap(MAP_HUGETLB) (needs /proc/sys/vm/nr_hugepages), cudaHostRegister
//   vmm-host      cuMemCreate on CU_MEM_LOCATION_TYPE_HOST_NUMA 0, mapped with cuMemMap at the
//                 recommended granularity, cuMemSetAccess for the device and the host
// Each line: way, footprint GiB, block, M reads/s median (min, max), GB/s, and for the THP way
// how much of it the kernel backed with huge pages (AnonHugePages grew by).
//
//   nvcc -O3 -std=c++20 -arch=sm_90 -lcuda \
//     -o pinned-footprint scripts/gpu/probes/pinned-footprint.cu
//   ./pinned-footprint [reps=5] [block=512] [GiB...]   (default footprints: 1 4 10)
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

namespace {

#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

__device__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Each warp reads `per_warp` random blocks of `words` 16-byte words, 8 blocks in flight; the
/// XOR of what it read goes to sink[warp] so that nothing is left out.
__global__ void reads(const uint4* media, std::uint64_t blocks, std::uint32_t words,
                      std::uint32_t per_warp, std::uint64_t seed, uint4* sink) {
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint64_t warp = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  uint4 acc{0, 0, 0, 0};
  std::uint64_t s = seed ^ (warp * 0x9e3779b97f4a7c15ull);
  for (std::uint32_t i = 0; i < per_warp; i += 8) {
    const uint4* b[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      s = mix(s);
      b[k] = media + (s % blocks) * words;  // the same on every lane: s is warp-uniform
    }
    for (std::uint32_t w = lane; w < words; w += 32) {
      uint4 v[8];
#pragma unroll
      for (int k = 0; k < 8; ++k)
        v[k] = __ldcg(b[k] + w);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        acc.x ^= v[k].x;
        acc.y ^= v[k].y;
        acc.z ^= v[k].z;
        acc.w ^= v[k].w;
      }
    }
  }
  if (lane == 0) sink[warp] = acc;
}

std::uint64_t anon_huge_kib() {
  std::ifstream in("/proc/meminfo");
  std::string k;
  std::uint64_t v = 0;
  while (in >> k >> v) {
    if (k == "AnonHugePages:") return v;
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

struct pinned {
  void* host = nullptr;
  void* map = nullptr;  ///< the register-* ways' mapping (the THP way's is larger than `host`'s)
  std::uint64_t map_bytes = 0;
  const uint4* dev = nullptr;
  std::string note;
  CUmemGenericAllocationHandle handle{};  ///< vmm-host
  std::uint64_t vmm_bytes = 0;
};

bool make(const std::string& way, std::uint64_t bytes, pinned& p) {
  if (way == "hostalloc" || way == "hostalloc-wc") {
    unsigned flags = cudaHostAllocMapped | cudaHostAllocPortable;
    if (way == "hostalloc-wc") flags |= cudaHostAllocWriteCombined;
    if (cudaHostAlloc(&p.host, bytes, flags) != cudaSuccess) return false;
    std::memset(p.host, 1, bytes);
  } else if (way == "register-4k" || way == "register-thp" || way == "register-tlb") {
    const std::uint64_t align = 2ull << 20;
    int fl = MAP_PRIVATE | MAP_ANONYMOUS;
    if (way == "register-tlb") fl |= MAP_HUGETLB;
    const std::uint64_t ask = way == "register-thp" ? bytes + align : bytes;
    void* m = ::mmap(nullptr, ask, PROT_READ | PROT_WRITE, fl, -1, 0);
    if (m == MAP_FAILED) {
      p.note = std::string("mmap: ") + std::strerror(errno);
      return false;
    }
    void* a = m;
    if (way == "register-thp") {
      auto u = reinterpret_cast<std::uintptr_t>(m);
      a = reinterpret_cast<void*>((u + align - 1) / align * align);
      ::madvise(a, bytes, MADV_HUGEPAGE);
    } else if (way == "register-4k") {
      ::madvise(a, bytes, MADV_NOHUGEPAGE);
    }
    const std::uint64_t before = anon_huge_kib();
    std::memset(a, 1, bytes);
    const std::uint64_t after = anon_huge_kib();
    if (way == "register-thp")
      p.note =
          "AnonHugePages +" + std::to_string((after > before ? after - before : 0) >> 10) + " MiB";
    cudaError_t e = cudaHostRegister(a, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
    if (e != cudaSuccess) {
      p.note += std::string(" cudaHostRegister: ") + cudaGetErrorString(e);
      ::munmap(m, ask);
      return false;
    }
    p.host = a;
    p.map = m;
    p.map_bytes = ask;
  } else if (way == "vmm-host") {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    prop.location.id = 0;
    std::size_t gran = 0;
    if (cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) !=
        CUDA_SUCCESS) {
      p.note = "no granularity";
      return false;
    }
    const std::uint64_t sz = (bytes + gran - 1) / gran * gran;
    CUmemGenericAllocationHandle h;
    CUresult r = cuMemCreate(&h, sz, &prop, 0);
    if (r != CUDA_SUCCESS) {
      const char* s = nullptr;
      cuGetErrorString(r, &s);
      p.note = std::string("cuMemCreate: ") + (s ? s : "?");
      return false;
    }
    CUdeviceptr va = 0;
    if (cuMemAddressReserve(&va, sz, gran, 0, 0) != CUDA_SUCCESS) {
      cuMemRelease(h);
      p.note = "reserve failed";
      return false;
    }
    if (cuMemMap(va, sz, 0, h, 0) != CUDA_SUCCESS) {
      cuMemAddressFree(va, sz);
      cuMemRelease(h);
      p.note = "map failed";
      return false;
    }
    CUmemAccessDesc acc[2]{};
    acc[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc[0].location.id = 0;
    acc[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    acc[1].location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    acc[1].location.id = 0;
    acc[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    const bool host_ok = cuMemSetAccess(va, sz, acc, 2) == CUDA_SUCCESS;
    if (!host_ok && cuMemSetAccess(va, sz, acc, 1) != CUDA_SUCCESS) {
      cuMemUnmap(va, sz);
      cuMemAddressFree(va, sz);
      cuMemRelease(h);
      p.note = "set access failed";
      return false;
    }
    p.note = "granularity " + std::to_string(gran >> 10) + " KiB, host access " +
             (host_ok ? "yes" : "no");
    p.host = reinterpret_cast<void*>(va);
    p.handle = h;
    p.vmm_bytes = sz;
    p.dev = reinterpret_cast<const uint4*>(va);
    if (host_ok)
      std::memset(p.host, 1, bytes);
    else
      CK(cudaMemset(p.host, 1, bytes));
    return true;
  } else {
    return false;
  }
  void* d = nullptr;
  CK(cudaHostGetDevicePointer(&d, p.host, 0));
  p.dev = static_cast<const uint4*>(d);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::uint32_t block = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 512;
  if (block == 0 || block % 16 != 0) {
    std::fprintf(stderr, "block must be a positive multiple of 16 bytes\n");
    return 2;
  }
  std::vector<std::uint64_t> gib;
  for (int i = 3; i < argc; ++i)
    gib.push_back(std::strtoull(argv[i], nullptr, 10));
  if (gib.empty()) gib = {1, 4, 10};
  CK(cudaFree(nullptr));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const std::uint32_t threads = 1024, words = block / 16;
  const std::uint64_t warps = std::uint64_t(sms) * threads / 32;
  uint4* sink = nullptr;
  CK(cudaMalloc(&sink, warps * sizeof(uint4)));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const char* ways[] = {"hostalloc",    "hostalloc-wc", "register-4k",
                        "register-thp", "register-tlb", "vmm-host"};
  std::printf("# %s, %d SMs, block %u B, %d reps\n", prop.name, sms, block, reps);
  for (std::uint64_t g : gib) {
    const std::uint64_t bytes = g << 30;
    for (const char* way : ways) {
      pinned p;
      if (!make(way, bytes, p)) {
        std::printf("%-13s %3llu GiB  unavailable (%s)\n", way, (unsigned long long)g,
                    p.note.c_str());
        cudaGetLastError();
        continue;
      }
      // 17 M reads a launch at 512 B over 132 SMs: about 0.2-0.5 s on the H200.
      const std::uint32_t per_warp = std::max<std::uint32_t>(8, (1u << 25) / block / 16 / 8 * 8);
      reads<<<sms, threads>>>(p.dev, bytes / block, words, per_warp, 1, sink);  // warm-up
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<double> rate;
      for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a));
        reads<<<sms, threads>>>(p.dev, bytes / block, words, per_warp, 7 + r, sink);
        CK(cudaGetLastError());
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        rate.push_back(double(warps) * per_warp / (ms * 1e-3) / 1e6);
      }
      std::sort(rate.begin(), rate.end());
      const double med = rate[rate.size() / 2];
      std::printf("%-13s %3llu GiB  %6.2f M/s (%.2f-%.2f)  %6.2f GB/s  %s\n", way,
                  (unsigned long long)g, med, rate.front(), rate.back(), med * block / 1e3,
                  p.note.c_str());
      std::fflush(stdout);
      if (std::string(way) == "vmm-host") {
        const auto va = reinterpret_cast<CUdeviceptr>(p.host);
        cuMemUnmap(va, p.vmm_bytes);
        cuMemAddressFree(va, p.vmm_bytes);
        cuMemRelease(p.handle);
      } else if (std::string(way).rfind("hostalloc", 0) == 0) {
        CK(cudaFreeHost(p.host));
      } else {
        CK(cudaHostUnregister(p.host));
        ::munmap(p.map, p.map_bytes);
      }
    }
  }
  return 0;
}
