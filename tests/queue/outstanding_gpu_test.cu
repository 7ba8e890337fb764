// GPU threads with several commands in flight each, waiting for them in an order of their own
// while the controller (the loopback controller on a host thread, across PCIe: rings and
// doorbells in mapped pinned memory, bookkeeping in GPU memory) completes them in a random one.
// One kernel plus a CPU thread, so it also runs under compute-sanitizer (scripts/gpu/sanitize.sh).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "bam/queue/queue_pair_ref.hpp"
#include "bam/queue/queue_state.hpp"
#include "common/cuda_test.hpp"
#include "queue/loopback_controller.hpp"

namespace {

namespace nvme = bam::nvme;
using gpu_queue = bam::queue_pair_ref<bam::memory_doorbell, cuda::thread_scope_device>;
constexpr std::uint32_t depth = 4;

__device__ std::uint32_t expected_dw0(std::uint32_t tag) {
  return tag * 2654435761u + 1;  // bam::test::loopback_result
}

/// Each thread: `rounds` times, submits `depth` commands, then waits for them starting from a
/// thread-dependent one (so waits go in every order across the grid).
__global__ void outstanding_kernel(bam::queue_pointers q_ptrs, std::uint32_t rounds,
                                   std::uint64_t timeout_ns, unsigned long long* wrong,
                                   unsigned long long* done) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const gpu_queue q(q_ptrs);
  for (std::uint32_t r = 0; r < rounds; ++r) {
    std::uint16_t cids[depth];
    std::uint32_t tags[depth];
    for (std::uint32_t k = 0; k < depth; ++k) {
      nvme::command c{};
      c.opcode = 0x02;
      tags[k] = (t * rounds + r) * depth + k;
      c.cdw10 = tags[k];
      cids[k] = q.submit(c, timeout_ns);
    }
    for (std::uint32_t i = 0; i < depth; ++i) {
      // Even threads wait newest first, odd ones start at a thread-dependent command.
      const std::uint32_t kk = t % 2 == 0 ? depth - 1 - i : (t / 2 + r + i) % depth;
      const nvme::completion e = q.wait_for(cids[kk], timeout_ns);
      if (!e.status().ok() || e.dw0 != expected_dw0(tags[kk]) || e.cid != cids[kk])
        atomicAdd(wrong, 1ull);
      atomicAdd(done, 1ull);
    }
  }
}

/// `threads` GPU threads x `rounds` x depth commands on one queue of `entries`.
void run_case(std::uint32_t entries, std::uint32_t threads, std::uint32_t rounds,
              std::uint64_t timeout_ns) {
  void* rings = nullptr;
  const std::size_t sq_bytes = entries * sizeof(nvme::command);
  const std::size_t cq_bytes = entries * sizeof(nvme::completion);
  const std::size_t bytes = sq_bytes + cq_bytes + 256;
  CUDA_OK(cudaHostAlloc(&rings, bytes, cudaHostAllocMapped));
  std::memset(rings, 0, bytes);
  auto* sq = static_cast<nvme::command*>(rings);
  auto* cq = reinterpret_cast<nvme::completion*>(static_cast<char*>(rings) + sq_bytes);
  auto* doorbells =
      reinterpret_cast<std::uint32_t*>(static_cast<char*>(rings) + sq_bytes + cq_bytes);
  {
    bam::test::loopback_controller ctrl(sq, entries, cq, entries, &doorbells[0], &doorbells[32],
                                        200, 7);
    const bam::queue_state_layout layout(entries, entries);
    void* state = nullptr;
    CUDA_OK(cudaMalloc(&state, layout.bytes));
    CUDA_OK(cudaMemset(state, 0, layout.bytes));
    bam::queue_pointers p{};
    // The GPU reaches the pinned rings at their device addresses.
    CUDA_OK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&p.sq), sq, 0));
    CUDA_OK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&p.cq), cq, 0));
    CUDA_OK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&p.sq_doorbell), &doorbells[0], 0));
    CUDA_OK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&p.cq_doorbell), &doorbells[32], 0));
    p.sq_entries = entries;
    p.cq_entries = entries;
    p.qid = 1;
    layout.place(state, p);
    unsigned long long* counts = nullptr;
    CUDA_OK(cudaMalloc(&counts, 2 * sizeof(unsigned long long)));
    CUDA_OK(cudaMemset(counts, 0, 2 * sizeof(unsigned long long)));
    const std::uint32_t block = threads < 128 ? threads : 128;
    outstanding_kernel<<<(threads + block - 1) / block, block>>>(p, rounds, timeout_ns, counts,
                                                                 counts + 1);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    unsigned long long h[2] = {};
    CUDA_OK(cudaMemcpy(h, counts, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT_EQ(h[0], 0u) << "wrong or failed completions";
    EXPECT_EQ(h[1], std::uint64_t{threads} * rounds * depth);
    bam::queue_counters c{};
    CUDA_OK(cudaMemcpy(&c, p.counters, sizeof c, cudaMemcpyDeviceToHost));
    EXPECT_EQ(c.failed, 0u);
    EXPECT_EQ(c.timeouts, 0u);
    EXPECT_EQ(bam::position_of(c.cq_head), std::uint64_t{threads} * rounds * depth);
    EXPECT_FALSE(bam::position_locked(c.cq_head) || bam::position_locked(c.sq_tail));
    std::vector<std::uint32_t> bits(p.cid_count / 32);
    CUDA_OK(cudaMemcpy(bits.data(), p.cid_bits, bits.size() * 4, cudaMemcpyDeviceToHost));
    for (std::uint32_t w : bits)
      EXPECT_EQ(w, 0u) << "a command ID was not freed";
    EXPECT_GT(ctrl.max_in_flight(), 1u);
    cudaFree(counts);
    cudaFree(state);
  }
  cudaFreeHost(rings);
}

TEST(QueueOutstandingGpu, ManyOutstandingPerThreadInRandomOrder) {
  if (!have_gpu()) GTEST_SKIP() << "no usable GPU";
  // 512 threads x 4 in flight = 2048 commands: what the queue's 2048 command IDs allow.
  run_case(1024, 512, 32, 2'000'000'000ull);
}

// Small enough for compute-sanitizer (scripts/gpu/sanitize.sh), which slows the kernel down by
// orders of magnitude: no timeout.
TEST(QueueOutstandingGpu, SanitizerCase) {
  if (!have_gpu()) GTEST_SKIP() << "no usable GPU";
  run_case(64, 64, 2, 0);
}

}  // namespace
