// GPU threads drive BaM queue pairs served by the HOST emulated controller: the controller is
// on the other side of PCIe, as a real SSD is. The SQ/CQ rings and the data buffers are pinned
// host memory the controller reaches by DMA, the doorbells are words of the controller's
// register block (mapped into the GPU), and the queues' bookkeeping is GPU memory. Everything
// happens in ONE kernel plus CPU threads, so the test also runs under compute-sanitizer
// (memcheck, racecheck, synccheck), which serialises kernels and so cannot run the GPU engine
// beside an application kernel: scripts/gpu/sanitize.sh runs it that way on the device. The
// ordered cases put the §4.4 ordering read after every read (ordering_read_ref, on a queue pair of
// its own), each read covering the ordering of those completed before it was submitted; the
// ordering queue's protocol is BaM's shared one or a hold for each read (queue_use::exclusive).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/dma_window.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/ordering_read.hpp"
#include "bam/queue/queue_pair_ref.hpp"
#include "common/cuda_test.hpp"

namespace {

namespace nvme = bam::nvme;
using gpu_queue = bam::queue_pair_ref<bam::memory_doorbell, cuda::thread_scope_device>;
template <bam::queue_use Use>
using gpu_ordering = bam::ordering_read_ref<bam::memory_doorbell, cuda::thread_scope_device, Use>;

constexpr std::uint32_t lba_size = 512;
constexpr std::uint32_t words = lba_size / 4;

__host__ __device__ std::uint32_t stamp(std::uint64_t lba, std::uint32_t gen, std::uint32_t w) {
  return static_cast<std::uint32_t>(lba * 2654435761u) ^ (gen << 20) ^ w;
}

/// Thread t owns LBAs t, t + threads, ...: it writes each (generation 1), reads it back, writes
/// it again (generation 2) and reads again; every read must equal the last write. With `ord`
/// enabled, each read takes the ordering mark before it is submitted and waits for the ordering
/// read after it completed, as block_io does (a failed ordering counts as an error).
template <class Ordering>
__global__ void write_read_kernel(const bam::queue_pointers* queues, std::uint32_t n_queues,
                                  std::uint32_t* buffers, std::uint32_t threads,
                                  std::uint32_t lbas_per_thread, Ordering ord,
                                  unsigned long long* errors, unsigned long long* mismatches) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const gpu_queue q(queues[t % n_queues]);
  std::uint32_t* buf = buffers + std::size_t{t} * words;
  const auto prp = nvme::prp_pair{reinterpret_cast<std::uintptr_t>(buf), 0};
  for (std::uint32_t gen = 1; gen <= 2; ++gen) {
    for (std::uint32_t i = 0; i < lbas_per_thread; ++i) {
      const std::uint64_t lba = t + std::uint64_t{i} * threads;
      for (std::uint32_t w = 0; w < words; ++w)
        bam::system_atomic_ref<std::uint32_t>(buf[w]).store(stamp(lba, gen, w), bam::relaxed);
      if (!q.submit_and_wait(nvme::write(1, lba, 1, prp)).status().ok()) atomicAdd(errors, 1ull);
      for (std::uint32_t w = 0; w < words; ++w)
        bam::system_atomic_ref<std::uint32_t>(buf[w]).store(0, bam::relaxed);
      const std::uint64_t mark = ord.mark();
      if (!q.submit_and_wait(nvme::read(1, lba, 1, prp)).status().ok() ||
          !ord.after_completion(mark))
        atomicAdd(errors, 1ull);
      for (std::uint32_t w = 0; w < words; ++w)
        if (bam::system_atomic_ref<std::uint32_t>(buf[w]).load(bam::relaxed) !=
            stamp(lba, gen, w)) {
          atomicAdd(mismatches, 1ull);
          break;
        }
    }
  }
}

struct pinned {
  void* p = nullptr;
  explicit pinned(std::size_t bytes) {
    if (cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable) == cudaSuccess)
      std::memset(p, 0, bytes);
    else
      p = nullptr;
  }
  ~pinned() {
    if (p != nullptr) cudaFreeHost(p);
  }
};

struct case_params {
  std::uint32_t queues, entries, threads, lbas_per_thread;
  bool ordered = false;  ///< the ordering read after every read, on one more queue pair
  bam::queue_use ordering_use = bam::queue_use::shared;  ///< the ordering queue's protocol
};

void run_case(const case_params& c) {
  int can_use_host_pointer = 0;
  CUDA_OK(cudaDeviceGetAttribute(&can_use_host_pointer,
                                 cudaDevAttrCanUseHostPointerForRegisteredMem, 0));
  if (can_use_host_pointer == 0)
    GTEST_SKIP() << "GPU cannot use host pointers of registered memory";

  bam::emu::controller_options opts;
  opts.lba_size = lba_size;
  opts.namespace_lbas = std::uint64_t{c.threads} * c.lbas_per_thread;
  opts.max_queue_entries = 1024;
  opts.max_io_queue_pairs = c.queues + 2;  // the host's check at the end, the ordering pair
  opts.worker_threads = 2;
  bam::emu::emulated_controller ctrl(opts);
  ctrl.start();
  bam::controller_driver driver(ctrl.bar(), ctrl.allocator());

  // The doorbells: the controller's register block, mapped for the GPU.
  const bam::bar_ref bar = ctrl.bar();
  CUDA_OK(cudaHostRegister(bar.base(), bar.size(), cudaHostRegisterMapped));
  void* bar_dev = nullptr;
  CUDA_OK(cudaHostGetDevicePointer(&bar_dev, bar.base(), 0));
  const bam::bar_ref gpu_bar(bar_dev, bar.size());

  // Rings and data buffers: pinned host memory inside the controller's DMA window (identity bus
  // addresses; with unified addressing the GPU uses the same pointers).
  const std::size_t ring_bytes = 4096 * ((std::size_t{c.entries} * 64 + 4095) / 4096);
  const std::size_t cq_bytes = 4096 * ((std::size_t{c.entries} * 16 + 4095) / 4096);
  const std::size_t buffer_bytes = std::size_t{c.threads} * lba_size;
  const std::uint32_t pairs = c.queues + (c.ordered ? 1 : 0);  // the last: the ordering read's
  const std::size_t total = pairs * (ring_bytes + cq_bytes) + buffer_bytes + lba_size;
  pinned mem(total);
  ASSERT_NE(mem.p, nullptr);
  auto* base = static_cast<std::byte*>(mem.p);
  const auto bus = reinterpret_cast<std::uint64_t>(base);
  ctrl.window().add(bus, total);

  // Bookkeeping in GPU memory: only GPU threads touch it.
  const bam::queue_state_layout layout(c.entries, c.entries);
  const std::size_t state_bytes = bam::queue_state_layout::align(layout.bytes);
  void* state = nullptr;
  CUDA_OK(cudaMalloc(&state, state_bytes * pairs + sizeof(bam::ordering_state)));
  CUDA_OK(cudaMemset(state, 0, state_bytes * pairs + sizeof(bam::ordering_state)));
  auto* ordering_state =
      reinterpret_cast<bam::ordering_state*>(static_cast<std::byte*>(state) + state_bytes * pairs);

  const std::uint32_t dstrd = driver.info().doorbell_stride;
  std::vector<bam::queue_pointers> qp(pairs);
  for (std::uint32_t i = 0; i < pairs; ++i) {
    const auto qid = static_cast<std::uint16_t>(i + 2);
    std::byte* sq = base + i * ring_bytes;
    std::byte* cq = base + pairs * ring_bytes + i * cq_bytes;
    driver.admin_checked(
        nvme::create_io_cq(qid, c.entries, reinterpret_cast<std::uint64_t>(cq), true),
        "create I/O CQ");
    driver.admin_checked(
        nvme::create_io_sq(qid, c.entries, qid, reinterpret_cast<std::uint64_t>(sq), true),
        "create I/O SQ");
    qp[i].sq = reinterpret_cast<nvme::command*>(sq);
    qp[i].cq = reinterpret_cast<nvme::completion*>(cq);
    qp[i].sq_doorbell = gpu_bar.word(nvme::reg::sq_tail_doorbell(qid, dstrd));
    qp[i].cq_doorbell = gpu_bar.word(nvme::reg::cq_head_doorbell(qid, dstrd));
    qp[i].sq_entries = qp[i].cq_entries = c.entries;
    qp[i].qid = qid;
    layout.place(static_cast<std::byte*>(state) + i * state_bytes, qp[i]);
  }
  bam::queue_pointers* qp_dev = nullptr;
  CUDA_OK(cudaMalloc(&qp_dev, sizeof(bam::queue_pointers) * c.queues));
  CUDA_OK(cudaMemcpy(qp_dev, qp.data(), sizeof(bam::queue_pointers) * c.queues,
                     cudaMemcpyHostToDevice));
  unsigned long long* counts = nullptr;
  CUDA_OK(cudaMallocManaged(&counts, 2 * sizeof(unsigned long long)));
  counts[0] = counts[1] = 0;

  auto* buffers = reinterpret_cast<std::uint32_t*>(base + pairs * (ring_bytes + cq_bytes));
  // The ordering read's one block goes after the buffers (LBA 0, read only).
  const std::uint64_t scratch_bus = bus + pairs * (ring_bytes + cq_bytes) + buffer_bytes;
  constexpr std::uint64_t ordering_timeout_ns = 30'000'000'000;
  const auto launch = [&]<bam::queue_use Use>() {
    using ordering = gpu_ordering<Use>;
    const ordering ord = c.ordered ? ordering(ordering_state, gpu_queue(qp[c.queues]), scratch_bus,
                                              1, 0, 1, ordering_timeout_ns)
                                   : ordering();
    write_read_kernel<<<(c.threads + 127) / 128, 128>>>(qp_dev, c.queues, buffers, c.threads,
                                                        c.lbas_per_thread, ord, counts, counts + 1);
  };
  if (c.ordering_use == bam::queue_use::exclusive)
    launch.template operator()<bam::queue_use::exclusive>();
  else
    launch.template operator()<bam::queue_use::shared>();
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(counts[0], 0u) << "commands that failed";
  EXPECT_EQ(counts[1], 0u) << "reads that did not return the last write";

  // Every command went through the controller exactly once: tickets = SQ tail = CQ head.
  std::uint64_t commands = 0;
  for (std::uint32_t i = 0; i < c.queues; ++i) {
    bam::queue_counters qc{};
    CUDA_OK(cudaMemcpy(&qc, static_cast<std::byte*>(state) + i * state_bytes, sizeof qc,
                       cudaMemcpyDeviceToHost));
    EXPECT_EQ(qc.sq_ticket, bam::position_of(qc.sq_tail)) << "queue " << i;
    EXPECT_EQ(qc.sq_ticket, bam::position_of(qc.cq_head)) << "queue " << i;
    EXPECT_FALSE(bam::position_locked(qc.sq_tail) || bam::position_locked(qc.cq_head))
        << "queue " << i << ": a lock left held";
    commands += qc.sq_ticket;
  }
  EXPECT_EQ(commands, std::uint64_t{c.threads} * c.lbas_per_thread * 4);

  // The ordering: one position per read, every one covered (the head ends at the tail, by an
  // extra read or by a later read of the application), each extra read one command of the
  // ordering pair, none failed.
  if (c.ordered) {
    bam::ordering_state os{};
    bam::queue_counters qc{};
    CUDA_OK(cudaMemcpy(&os, ordering_state, sizeof os, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(&qc, static_cast<std::byte*>(state) + c.queues * state_bytes, sizeof qc,
                       cudaMemcpyDeviceToHost));
    const std::uint64_t reads = std::uint64_t{c.threads} * c.lbas_per_thread * 2;
    EXPECT_EQ(os.tail, reads);
    EXPECT_EQ(os.head, reads);
    EXPECT_GE(os.reads, 1u);
    EXPECT_LE(os.reads, reads);
    EXPECT_EQ(qc.sq_ticket, os.reads) << "each extra read is one command of the ordering pair";
    EXPECT_EQ(bam::position_of(qc.sq_tail), qc.sq_ticket);
    EXPECT_EQ(bam::position_of(qc.cq_head), qc.sq_ticket);
    EXPECT_FALSE(bam::position_locked(qc.sq_tail) || bam::position_locked(qc.cq_head))
        << "the ordering queue: a lock (or a hold) left held";
    EXPECT_EQ(os.errors, 0u);
    EXPECT_EQ(os.timeouts, 0u);
    EXPECT_EQ(os.failed_upto, 0u);
    // Held: every extra read had command ID 0 (the shared protocol takes the ticket's: 0, 1, ...).
    // The CQ ring (pinned host memory) holds the last min(reads, entries) completions.
    if (c.ordering_use == bam::queue_use::exclusive) {
      const std::uint64_t seen = std::min<std::uint64_t>(os.reads, c.entries);
      for (std::uint64_t k = 0; k < seen; ++k)
        EXPECT_EQ(qp[c.queues].cq[k].cid, 0u) << "ordering completion slot " << k;
    }
  }

  // Through a host queue of the same controller: the media holds generation 2 of every block.
  {
    bam::io_queue_pair host_qp = driver.create_io_queue_pair(16);
    bam::dma_buffer block(ctrl.allocator(), lba_size);
    const auto prp = nvme::prp_pair{block.region().bus_address(0), 0};
    for (std::uint64_t lba = 0; lba < opts.namespace_lbas; lba += 97) {
      ASSERT_TRUE(host_qp.ref().submit_and_wait(nvme::read(1, lba, 1, prp)).status().ok());
      const auto* w32 = block.region().as<std::uint32_t>();
      for (std::uint32_t w = 0; w < words; ++w)
        ASSERT_EQ(w32[w], stamp(lba, 2, w)) << "lba " << lba << " word " << w;
    }
  }

  for (std::uint32_t i = 0; i < pairs; ++i) {
    const auto qid = static_cast<std::uint16_t>(i + 2);
    driver.admin_checked(nvme::delete_io_sq(qid), "delete I/O SQ");
    driver.admin_checked(nvme::delete_io_cq(qid), "delete I/O CQ");
  }
  ctrl.window().remove(bus);
  CUDA_OK(cudaFree(counts));
  CUDA_OK(cudaFree(qp_dev));
  CUDA_OK(cudaFree(state));
  CUDA_OK(cudaHostUnregister(bar.base()));
}

// Small: what compute-sanitizer runs (a few hundred threads, odd ring sizes, more threads than
// entries so submitters wait for turns and command IDs).
TEST(HostControllerGpu, SanitizerCaseReadsReturnLastWrite) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  run_case({2, 13, 256, 2});
}

// Larger: thousands of GPU threads on a few queues.
TEST(HostControllerGpu, ManyThreadsFewQueuesReadsReturnLastWrite) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  run_case({4, 256, 16384, 2});
}

// The ordering read after every read, the reads covering each other's (compute-sanitizer runs
// the small one).
TEST(HostControllerGpu, SanitizerCaseOrderedReadsReturnLastWrite) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  run_case({2, 13, 256, 2, true});
}
TEST(HostControllerGpu, ManyThreadsOrderedReadsReturnLastWrite) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  run_case({4, 256, 16384, 2, true});
}
// The same with the lock holder holding the ordering queue for each read.
TEST(HostControllerGpu, SanitizerCaseHeldOrderingReadsReturnLastWrite) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  run_case({2, 13, 256, 2, true, bam::queue_use::exclusive});
}
TEST(HostControllerGpu, ManyThreadsHeldOrderingReadsReturnLastWrite) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  run_case({4, 256, 16384, 2, true, bam::queue_use::exclusive});
}

}  // namespace
