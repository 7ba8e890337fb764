// GPU threads with several commands in flight each, waiting for them in an order of their own
// while the controller (the loopback controller on a host thread, across PCIe: rings and
// doorbells in mapped pinned memory, bookkeeping in GPU memory) completes them in a random one.
// One kernel plus a CPU thread, so it also runs under compute-sanitizer (scripts/gpu/sanitize.sh).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "bam/queue/queue_hold.hpp"
#include "bam/queue/queue_pair_ref.hpp"
#include "bam/queue/queue_state.hpp"
#include "common/cuda_test.hpp"
#include "queue/loopback_controller.hpp"

namespace {

namespace nvme = bam::nvme;
using gpu_queue = bam::queue_pair_ref<bam::memory_doorbell, cuda::thread_scope_device>;

__device__ std::uint32_t expected_dw0(std::uint32_t tag) {
  return tag * 2654435761u + 1;  // bam::test::loopback_result
}

/// Each thread: `rounds` times, submits `Depth` commands, then waits for them starting from a
/// thread-dependent one (so waits go in every order across the grid). Depth 1: one command at a
/// time a thread (QD1 for a single thread).
template <std::uint32_t Depth>
__global__ void outstanding_kernel(bam::queue_pointers q_ptrs, std::uint32_t rounds,
                                   std::uint64_t timeout_ns, unsigned long long* wrong,
                                   unsigned long long* done) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const gpu_queue q(q_ptrs);
  for (std::uint32_t r = 0; r < rounds; ++r) {
    std::uint16_t cids[Depth];
    std::uint32_t tags[Depth];
    for (std::uint32_t k = 0; k < Depth; ++k) {
      nvme::command c{};
      c.opcode = 0x02;
      tags[k] = (t * rounds + r) * Depth + k;
      c.cdw10 = tags[k];
      cids[k] = q.submit(c, timeout_ns);
    }
    for (std::uint32_t i = 0; i < Depth; ++i) {
      // Even threads wait newest first, odd ones start at a thread-dependent command.
      const std::uint32_t kk = t % 2 == 0 ? Depth - 1 - i : (t / 2 + r + i) % Depth;
      const nvme::completion e = q.wait_for(cids[kk], timeout_ns);
      if (!e.status().ok() || e.dw0 != expected_dw0(tags[kk]) || e.cid != cids[kk])
        atomicAdd(wrong, 1ull);
      atomicAdd(done, 1ull);
    }
  }
}

/// One thread, `rounds` commands one at a time as its queue's only user, holding it
/// (bam::queue_hold: command ID 0), released at the end.
__global__ void held_kernel(bam::queue_pointers q_ptrs, std::uint32_t rounds,
                            std::uint64_t timeout_ns, unsigned long long* wrong,
                            unsigned long long* done) {
  bam::queue_hold h(gpu_queue{q_ptrs});
  if (!h.held()) atomicAdd(wrong, 1ull);
  for (std::uint32_t r = 0; r < rounds; ++r) {
    nvme::command c{};
    c.opcode = 0x02;
    c.cdw10 = r;
    const nvme::completion e = h.submit_and_wait(c, timeout_ns);
    if (!e.status().ok() || e.dw0 != expected_dw0(r) || e.cid != 0) atomicAdd(wrong, 1ull);
    atomicAdd(done, 1ull);
  }
}

/// `threads` GPU threads x `rounds` x Depth commands on one queue of `entries`; `Exclusive`: one
/// thread holding the queue (held_kernel).
template <std::uint32_t Depth = 4, bool Exclusive = false>
void run_case(std::uint32_t entries, std::uint32_t threads, std::uint32_t rounds,
              std::uint64_t timeout_ns) {
  const std::uint64_t commands = std::uint64_t{threads} * rounds * Depth;
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
    // One command at a time: a thread a block, so that no two submitters share a warp and their
    // submissions and waits interleave at any point.
    const std::uint32_t block = Depth == 1 ? 1 : threads < 128 ? threads : 128;
    static_assert(!Exclusive || Depth == 1, "the exclusive path has one command at a time");
    if (Exclusive) {
      EXPECT_EQ(threads, 1u);
      held_kernel<<<1, 1>>>(p, rounds, timeout_ns, counts, counts + 1);
    } else {
      outstanding_kernel<Depth>
          <<<(threads + block - 1) / block, block>>>(p, rounds, timeout_ns, counts, counts + 1);
    }
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    unsigned long long h[2] = {};
    CUDA_OK(cudaMemcpy(h, counts, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT_EQ(h[0], 0u) << "wrong or failed completions";
    EXPECT_EQ(h[1], commands);
    bam::queue_counters c{};
    CUDA_OK(cudaMemcpy(&c, p.counters, sizeof c, cudaMemcpyDeviceToHost));
    EXPECT_EQ(c.failed, 0u);
    EXPECT_EQ(c.timeouts, 0u);
    EXPECT_EQ(bam::position_of(c.cq_head), commands);
    EXPECT_EQ(bam::position_of(c.sq_tail), commands);
    EXPECT_EQ(c.sq_head, commands);
    EXPECT_FALSE(bam::position_locked(c.cq_head) || bam::position_locked(c.sq_tail));
    std::vector<std::uint32_t> bits(p.cid_count / 32);
    CUDA_OK(cudaMemcpy(bits.data(), p.cid_bits, bits.size() * 4, cudaMemcpyDeviceToHost));
    for (std::uint32_t w : bits)
      EXPECT_EQ(w, 0u) << "a command ID was not freed";
    if (threads * Depth > 1) EXPECT_GT(ctrl.max_in_flight(), 1u);
    // One command at a time on the whole queue: each moved the tail and the head by itself (a
    // hold rings the CQ head every half ring, and at its release).
    if (threads * Depth == 1) {
      EXPECT_EQ(c.sq_doorbell_writes, commands);
      const std::uint64_t half = entries / 2;
      EXPECT_EQ(c.cq_doorbell_writes,
                Exclusive ? commands / half + (commands % half != 0 ? 1 : 0) : commands);
    }
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

// One command at a time per thread: one thread alone (every submission on an idle queue, every
// wait for the queue's only command; also as its queue's only user), and a few threads together,
// each in a warp of its own (submissions and waits that meet: a tail or CQ lock held, a head moved,
// another's completion first).
TEST(QueueOutstandingGpu, OneCommandAtATimeAloneAndFewTogether) {
  if (!have_gpu()) GTEST_SKIP() << "no usable GPU";
  run_case<1>(64, 1, 3000, 2'000'000'000ull);
  run_case<1, true>(64, 1, 3000, 2'000'000'000ull);  // the same thread as its queue's only user
  run_case<1>(64, 8, 1000, 2'000'000'000ull);
  run_case<1>(16, 96, 200, 2'000'000'000ull);
}

// Small enough for compute-sanitizer (scripts/gpu/sanitize.sh), which slows the kernel down by
// orders of magnitude: no timeout.
TEST(QueueOutstandingGpu, SanitizerCase) {
  if (!have_gpu()) GTEST_SKIP() << "no usable GPU";
  run_case(64, 64, 2, 0);
  run_case<1>(16, 1, 20, 0);
  run_case<1, true>(16, 1, 40, 0);
  run_case<1>(16, 8, 8, 0);
}

}  // namespace
