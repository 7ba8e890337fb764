// Issue 19 probe, stand-alone (not part of the build): does QD1's floor depend on where the
// engine's blocks and the client's block land? docs/gpu-engine.md ("QD1 and the engine's block
// count") found QD1 in two states by the engine's block count (H200: 11.0-11.4 us at 1, 2, 4, 8,
// 12, 16, 20, 24, 32 and 64 blocks, 12.1-12.5 us at 15, 17, 18, 25, 33, 40 and 48). This probe
// launches an "engine" of `blocks` persistent blocks, one per SM (each asks for more than half an
// SM's shared memory), whose block `ctl` answers a one-way signal (device scope, as
// qd1-floor.cu's pingpong-device) while the others poll a word of their own with a 64 ns sleep,
// as idle engine warps do; then a one-thread "client" block (as large in shared memory, so it
// shares no SM with the engine) on another stream, which sends `n` signals and times them. Each
// line: the block count, the controller's block, the median one-way ns over `reps` launches (min,
// max), the client's SM, the controller's SM, and the engine's SMs.
//
//   nvcc -O3 -std=c++20 -arch=sm_90 -o qd1-placement scripts/gpu/probes/qd1-placement.cu
//   ./qd1-placement [n=20000] [reps=5] [blocks...]   (default blocks: 1 2 4 8 12 15 16 17 18 20
//                                                      24 25 32 33 40 48 64)
#include <cuda_runtime.h>
#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int max_blocks = 256;
constexpr std::size_t block_smem = 120 * 1024;  // more than half an SM's 228 KiB

__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

using dev_ref = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>;

struct alignas(128) line {
  std::uint32_t word;
  std::uint32_t pad[31];
};

struct state {
  line ping, pong, started, stop;
  line idle[max_blocks];  // what each idle block polls
  unsigned long long client_ns;
  std::uint32_t client_sm;
  std::uint32_t sm[max_blocks];
};

__device__ void wait_for(std::uint32_t& w, std::uint32_t v) {
  while (dev_ref(w).load(cuda::memory_order_relaxed) != v) {
  }
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
}

__global__ void engine(state* st, int ctl, int n) {
  extern __shared__ std::uint32_t smem[];
  if (threadIdx.x != 0) return;
  smem[0] = blockIdx.x;  // the shared memory is asked for, not used
  st->sm[blockIdx.x] = sm_id();
  dev_ref(st->started.word).fetch_add(1, cuda::memory_order_release);
  if (static_cast<int>(blockIdx.x) == ctl) {
    for (int i = 0; i < n; ++i) {
      wait_for(st->ping.word, 2u * i + 1);
      dev_ref(st->pong.word).store(2u * i + 2, cuda::memory_order_release);
    }
    return;
  }
  while (dev_ref(st->stop.word).load(cuda::memory_order_relaxed) == 0) {
    if (dev_ref(st->idle[blockIdx.x].word).load(cuda::memory_order_relaxed) != 0) break;
    __nanosleep(64);
  }
}

__global__ void client(state* st, int blocks, int n) {
  extern __shared__ std::uint32_t smem[];
  smem[0] = 0;
  st->client_sm = sm_id();
  while (dev_ref(st->started.word).load(cuda::memory_order_acquire) !=
         static_cast<std::uint32_t>(blocks)) {
  }
  const unsigned long long t0 = now_ns();
  for (int i = 0; i < n; ++i) {
    dev_ref(st->ping.word).store(2u * i + 1, cuda::memory_order_release);
    wait_for(st->pong.word, 2u * i + 2);
  }
  st->client_ns = now_ns() - t0;
  dev_ref(st->stop.word).store(1, cuda::memory_order_release);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "qd1-placement: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void run(state* st, int blocks, int ctl, int n, int reps, cudaStream_t a, cudaStream_t b) {
  std::vector<double> v;
  state h{};
  for (int r = 0; r < reps; ++r) {
    check(cudaMemset(st, 0, sizeof(state)), "memset");
    check(cudaDeviceSynchronize(), "memset");
    engine<<<blocks, 32, block_smem, a>>>(st, ctl, n);
    check(cudaGetLastError(), "engine");
    client<<<1, 1, block_smem, b>>>(st, blocks, n);
    check(cudaGetLastError(), "client");
    check(cudaStreamSynchronize(b), "client");
    check(cudaStreamSynchronize(a), "engine");
    check(cudaMemcpy(&h, st, sizeof h, cudaMemcpyDeviceToHost), "copy");
    v.push_back(static_cast<double>(h.client_ns) / (2.0 * n));
  }
  std::sort(v.begin(), v.end());
  std::vector<std::uint32_t> sms(h.sm, h.sm + blocks);
  std::sort(sms.begin(), sms.end());
  std::string list;
  for (std::uint32_t s : sms)
    list += (list.empty() ? "" : ",") + std::to_string(s);
  std::printf(
      "blocks %3d ctl %3d  %7.1f ns (min %.1f, max %.1f)  client SM %3u  ctl SM %3u  engine SMs "
      "%s\n",
      blocks, ctl, v[v.size() / 2], v.front(), v.back(), h.client_sm, h.sm[ctl], list.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<int> counts;
  for (int i = 3; i < argc; ++i)
    counts.push_back(std::atoi(argv[i]));
  if (counts.empty()) counts = {1, 2, 4, 8, 12, 15, 16, 17, 18, 20, 24, 25, 32, 33, 40, 48, 64};
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device");
  if (n <= 0 || reps <= 0 || std::any_of(counts.begin(), counts.end(), [&](int c) {
        return c < 1 || c > max_blocks || c >= prop.multiProcessorCount;
      })) {
    std::fprintf(stderr, "usage: qd1-placement [n > 0] [reps > 0] [blocks in [1, %d)...]\n",
                 std::min(max_blocks, prop.multiProcessorCount));
    return 2;
  }
  std::printf("qd1-placement: %s, %d SMs; one-way device-scope signal, client <-> engine block\n",
              prop.name, prop.multiProcessorCount);
  check(cudaFuncSetAttribute(engine, cudaFuncAttributeMaxDynamicSharedMemorySize, block_smem),
        "engine smem");
  check(cudaFuncSetAttribute(client, cudaFuncAttributeMaxDynamicSharedMemorySize, block_smem),
        "client smem");
  state* st = nullptr;
  check(cudaMalloc(&st, sizeof(state)), "malloc");
  cudaStream_t a, b;
  check(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), "stream");
  for (int c : counts) {
    run(st, c, 0, n, reps, a, b);
    if (c > 1) run(st, c, c - 1, n, reps, a, b);
  }
  check(cudaFree(st), "free");
  return 0;
}
