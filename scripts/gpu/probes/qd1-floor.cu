// Issue 19 probe, stand-alone (not part of the build): the floor under QD1 on this GPU, below any
// queue protocol. One thread of one block ("client") and one thread of another block on another
// SM ("controller") pass one command at a time through GPU memory, with nothing else running:
//   pingpong-device: the client stores a flag with a device-scope release, the controller polls it
//     (relaxed loads, an acquire fence once it changed) and answers the same way: the one-way
//     signal between two SMs, the least a doorbell and a completion each cost;
//   pingpong-system: the same at system scope (a real controller's doorbell and completion:
//     __threadfence_system() before a volatile store, system-scope polling);
//   command-device: a QD1 command reduced to its dependent steps: the client writes a 64-byte
//     entry and rings (release), the controller polls the doorbell, reads the entry, writes a
//     16-byte completion whose last word carries the phase (release), the client polls it;
//   command-system: the same with the client's side at system scope (the hardware protocol's
//     doorbell and completion poll; the controller's side as the engine's, device scope); the
//     hardware protocol's QD1 read is two of them, the read and then its BaM 4.4 ordering read;
//   atomic: one thread's chain of dependent fetch_adds on one word (an L2 round trip each);
//   fence: one thread's store, then a device-scope acq_rel fence, repeated (the fence's cost with
//     a store in flight, what a release costs);
//   timer: one thread's back-to-back %globaltimer reads (what each probe timestamp adds).
// Each line: the median over `reps` repeats of the mean over `n` iterations, with min and max, in
// nanoseconds per one-way signal / command / step. Compare with QD1 in docs/gpu-engine.md ("QD1":
// 11-12 us in the emulator protocol on `null`; the engine alone 4.9 us at fbdb96a).
//
//   nvcc -O3 -std=c++20 -arch=sm_90 -o qd1-floor scripts/gpu/probes/qd1-floor.cu
//   ./qd1-floor [n=20000] [reps=5]
#include <cuda_runtime.h>
#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

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

template <cuda::thread_scope S>
using ref = cuda::atomic_ref<std::uint32_t, S>;

struct alignas(128) line {
  std::uint32_t word;
  std::uint32_t pad[31];
};

struct shared_state {
  line ping, pong;                         // pingpong: client -> controller, controller -> client
  line doorbell;                           // command: the SQ tail
  alignas(128) std::uint32_t sq[16 * 64];  // 64 entries of 64 bytes
  alignas(128) std::uint32_t cq[4 * 64];   // 64 completions of 16 bytes
  unsigned long long client_ns;            // the client's elapsed time
  std::uint32_t sink;
  std::uint32_t smid[2];  // the SMs of the client's and the controller's blocks
};

// Signal value v: the client sends 1, 3, 5, ...; the controller answers 2, 4, 6, ...
template <cuda::thread_scope S>
__device__ void wait_for(std::uint32_t& w, std::uint32_t v) {
  while (ref<S>(w).load(cuda::memory_order_relaxed) != v) {
  }
  cuda::atomic_thread_fence(cuda::memory_order_acquire, S);
}

template <cuda::thread_scope S>
__device__ void signal(std::uint32_t& w, std::uint32_t v) {
  if constexpr (S == cuda::thread_scope_system) {
    __threadfence_system();
    *reinterpret_cast<volatile std::uint32_t*>(&w) = v;
  } else {
    ref<S>(w).store(v, cuda::memory_order_release);
  }
}

// Block 0: the client; block 1: the controller (blocks of one thread land on different SMs).
template <cuda::thread_scope S>
__global__ void pingpong(shared_state* st, int n) {
  st->smid[blockIdx.x] = sm_id();
  if (blockIdx.x == 0) {
    const unsigned long long t0 = now_ns();
    for (int i = 0; i < n; ++i) {
      signal<S>(st->ping.word, 2u * i + 1);
      wait_for<S>(st->pong.word, 2u * i + 2);
    }
    st->client_ns = now_ns() - t0;
  } else {
    for (int i = 0; i < n; ++i) {
      wait_for<S>(st->ping.word, 2u * i + 1);
      signal<S>(st->pong.word, 2u * i + 2);
    }
  }
}

// The client's side at scope S (device: the emulator protocol's; system: the hardware
// protocol's doorbell, a system-scope fence and a volatile store, and its system-scope completion
// poll); the controller's side is the engine's in both (device-scope doorbell polls and
// completion stores).
template <cuda::thread_scope S>
__global__ void command(shared_state* st, int n) {
  constexpr auto dev = cuda::thread_scope_device;
  st->smid[blockIdx.x] = sm_id();
  if (blockIdx.x == 0) {
    const unsigned long long t0 = now_ns();
    for (int i = 0; i < n; ++i) {
      const int slot = i % 64;
      for (int k = 0; k < 16; ++k)
        st->sq[slot * 16 + k] = static_cast<std::uint32_t>(i * 16 + k);
      signal<S>(st->doorbell.word, static_cast<std::uint32_t>(i + 1));
      // The completion's last word: the command's number + 1 (never the 0 the memory starts
      // with; a real DW3 carries the command ID and a phase bit instead).
      const auto want = static_cast<std::uint32_t>(i + 1);
      std::uint32_t& dw3 = st->cq[slot * 4 + 3];
      wait_for<S>(dw3, want);
      st->sink += st->cq[slot * 4];
    }
    st->client_ns = now_ns() - t0;
  } else {
    std::uint32_t seen = 0;
    for (int i = 0; i < n; ++i) {
      while (ref<dev>(st->doorbell.word).load(cuda::memory_order_relaxed) == seen) {
      }
      cuda::atomic_thread_fence(cuda::memory_order_acquire, dev);
      seen = static_cast<std::uint32_t>(i + 1);
      const int slot = i % 64;
      std::uint32_t sum = 0;
      for (int k = 0; k < 16; ++k)
        sum += st->sq[slot * 16 + k];
      st->cq[slot * 4] = sum;
      st->cq[slot * 4 + 1] = 0;
      st->cq[slot * 4 + 2] = 0;
      ref<dev>(st->cq[slot * 4 + 3])
          .store(static_cast<std::uint32_t>(i + 1), cuda::memory_order_release);
    }
  }
}

__global__ void atomic_chain(shared_state* st, int n) {
  st->smid[0] = st->smid[1] = sm_id();  // one thread: one SM
  const unsigned long long t0 = now_ns();
  std::uint32_t v = 0;
  for (int i = 0; i < n; ++i)
    v = ref<cuda::thread_scope_device>(st->ping.word).fetch_add(v & 1, cuda::memory_order_relaxed);
  st->client_ns = now_ns() - t0;
  st->sink = v;
}

__global__ void fence_chain(shared_state* st, int n) {
  st->smid[0] = st->smid[1] = sm_id();  // one thread: one SM
  const unsigned long long t0 = now_ns();
  for (int i = 0; i < n; ++i) {
    st->sq[i % 1024] = static_cast<std::uint32_t>(i);
    cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_device);
  }
  st->client_ns = now_ns() - t0;
}

__global__ void timer_chain(shared_state* st, int n) {
  st->smid[0] = st->smid[1] = sm_id();  // one thread: one SM
  const unsigned long long t0 = now_ns();
  unsigned long long x = 0;
  for (int i = 0; i < n; ++i)
    x += now_ns();
  st->client_ns = now_ns() - t0;
  st->sink = static_cast<std::uint32_t>(x);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "qd1-floor: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// Runs `launch` reps times on fresh state; prints the median, min and max of client_ns / per.
template <class F>
void measure(const char* name, shared_state* st, int n, int reps, double per, F launch) {
  std::vector<double> v;
  std::uint32_t sms[2] = {0, 0};
  for (int r = 0; r < reps; ++r) {
    check(cudaMemset(st, 0, sizeof(shared_state)), "memset");
    launch();
    check(cudaGetLastError(), name);
    check(cudaDeviceSynchronize(), name);
    shared_state h{};
    check(cudaMemcpy(&h, st, sizeof h, cudaMemcpyDeviceToHost), "copy");
    v.push_back(static_cast<double>(h.client_ns) / per);
    sms[0] = h.smid[0];
    sms[1] = h.smid[1];
  }
  std::sort(v.begin(), v.end());
  std::printf("%-16s %9.1f ns  (min %.1f, max %.1f; %d x %d; SMs %u, %u)\n", name, v[v.size() / 2],
              v.front(), v.back(), reps, n, sms[0], sms[1]);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (n <= 0 || reps <= 0) {
    std::fprintf(stderr, "usage: qd1-floor [n > 0] [reps > 0]\n");
    return 2;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device");
  std::printf("qd1-floor: %s, %d SMs; one client thread and one controller thread in two blocks\n",
              prop.name, prop.multiProcessorCount);
  shared_state* st = nullptr;
  check(cudaMalloc(&st, sizeof(shared_state)), "malloc");
  // One-way: a round trip is two signals.
  measure("pingpong-device", st, n, reps, 2.0 * n,
          [&] { pingpong<cuda::thread_scope_device><<<2, 1>>>(st, n); });
  measure("pingpong-system", st, n, reps, 2.0 * n,
          [&] { pingpong<cuda::thread_scope_system><<<2, 1>>>(st, n); });
  measure("command-device", st, n, reps, n,
          [&] { command<cuda::thread_scope_device><<<2, 1>>>(st, n); });
  measure("command-system", st, n, reps, n,
          [&] { command<cuda::thread_scope_system><<<2, 1>>>(st, n); });
  measure("atomic", st, n, reps, n, [&] { atomic_chain<<<1, 1>>>(st, n); });
  measure("fence", st, n, reps, n, [&] { fence_chain<<<1, 1>>>(st, n); });
  measure("timer", st, n, reps, n, [&] { timer_chain<<<1, 1>>>(st, n); });
  check(cudaFree(st), "free");
  return 0;
}
