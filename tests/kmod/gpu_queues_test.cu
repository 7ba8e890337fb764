// GPU side of the nvme backend. (1) The §4.4 ordering read run by GPU threads, against the
// GPU-emulated drives (needs a GPU only). (2) kmod_gpu_queues against a real controller bound to
// bamkit.ko built with NVIDIA_SRC: GPU threads read through its queue set directly, then through
// the cache's GPU storage over that queue set; skipped unless /dev/bamkit-nvme* and a GPU exist
// (never run here: no such machine; see kmod/README.md). Its code is compiled in every CUDA build.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/gpu_storage.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/emu/timing_presets.hpp"
#include "bam/kmod/gpu_queues.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/block_io.hpp"
#include "bam/queue/ordering_read.hpp"
#include "common/cuda_test.hpp"

namespace {

struct counts {
  unsigned long long bad_status, returned;
};

// ---- (1) ordering read on GPU threads, GPU-emulated drive ------------------------------------

__global__ void read_then_order(bam::emu::gpu::drives_ref v, bam::ordering_state* st,
                                std::uint64_t scratch, std::uint8_t* buffers, counts* c,
                                std::uint32_t threads) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const bam::nvme::completion done = bam::block_io(
      v, 0, t % v.queues_per_ssd(), false, t % v.lbas(), 1, buffers + std::size_t{t} * 512, 0);
  if (!done.status().ok()) atomicAdd(&c->bad_status, 1ull);
  // One extra read shared by all threads queued behind the lock (queue 0 of drive 0).
  const bam::ordering_read_ref<bam::device_doorbell> order(st, v.queue(0, 0), scratch, 1, 0, 1,
                                                           30'000'000'000);
  order.after_completion();
  atomicAdd(&c->returned, 1ull);
}

TEST(GpuOrderingRead, EveryThreadIsCoveredAndTheExtraReadsAreCoalesced) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  bam::emu::gpu::drives_config cfg;
  bam::emu::gpu::drive_config dc;
  dc.lbas = 1 << 14;
  dc.model = bam::emu::timing_preset("ideal");
  cfg.drives.push_back(dc);
  cfg.queues_per_drive = 16;
  cfg.queue_entries = 256;
  cfg.engine_blocks = 2;
  cfg.engine_warps_per_block = 8;
  constexpr std::uint32_t threads = 16384;
  std::uint8_t* buffers = nullptr;
  std::uint8_t* scratch = nullptr;
  bam::ordering_state* st = nullptr;
  counts* c = nullptr;
  CUDA_OK(cudaMalloc(&buffers, std::size_t{threads} * 512));
  CUDA_OK(cudaMalloc(&scratch, 4096));
  CUDA_OK(cudaMalloc(&st, sizeof(bam::ordering_state)));
  CUDA_OK(cudaMemset(st, 0, sizeof(bam::ordering_state)));
  CUDA_OK(cudaMallocManaged(&c, sizeof(counts)));
  *c = counts{};
  CUDA_OK(bam::preload_kernel(read_then_order));
  bam::ordering_state host{};
  {
    bam::emu::gpu::emulated_drives drives(cfg);
    drives.start();
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    read_then_order<<<threads / 128, 128, 0, s>>>(
        drives.ref(), st, reinterpret_cast<std::uintptr_t>(scratch), buffers, c, threads);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(s));
    drives.stop();
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaMemcpy(&host, st, sizeof host, cudaMemcpyDeviceToHost));
    EXPECT_EQ(c->bad_status, 0u);
    EXPECT_EQ(c->returned, threads);
    EXPECT_EQ(host.tail, threads);
    EXPECT_EQ(host.head, threads);  // the last read covered every position
    EXPECT_GE(host.reads, 1u);
    EXPECT_LT(host.reads, threads);  // coalesced: 16K threads cannot all have read alone
    EXPECT_EQ(host.errors, 0u);
    // The drive served exactly the threads' reads plus the extra ones.
    EXPECT_EQ(drives.stats()[0].completed, threads + host.reads);
  }
  std::printf("ordering reads for %u threads: %llu\n", threads,
              static_cast<unsigned long long>(host.reads));
  cudaFree(buffers);
  cudaFree(scratch);
  cudaFree(st);
  cudaFree(c);
}

// ---- (2) kmod_gpu_queues on a real controller ------------------------------------------------

struct stamp_args {
  bam::kmod_gpu_queue_set q;
  bam::kmod_gpu_ordering order;
  const std::uint64_t* bus;  ///< [threads] bus address of each thread's 4 KiB buffer
  std::uint32_t* data;       ///< [threads][1024] the same buffers as GPU pointers
  std::uint64_t first_lba;   ///< in 4 KiB blocks' first LBA units
  std::uint32_t lbas_per_block;
  counts* c;
  unsigned long long* bad_data;
  std::uint32_t threads;
};

__global__ void gpu_read_verify(stamp_args a) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= a.threads) return;
  const std::uint64_t lba = a.first_lba + std::uint64_t{t} * a.lbas_per_block;
  const bam::nvme::completion done =
      a.q.queue(0, t % a.q.queues_per_ssd())
          .submit_and_wait(bam::nvme::read(1, lba, a.lbas_per_block, {a.bus[t], 0}));
  if (!done.status().ok()) atomicAdd(&a.c->bad_status, 1ull);
  a.order.after_completion();  // no-op when the policy is off
  const std::uint32_t* d = a.data + std::size_t{t} * 1024;
  for (std::uint32_t k = 0; k < 1024; ++k)
    if (d[k] != static_cast<std::uint32_t>(lba * 2654435761u + k)) {
      atomicAdd(a.bad_data, 1ull);
      break;
    }
  atomicAdd(&a.c->returned, 1ull);
}

using kmod_cache = bam::cache<bam::gpu_cache_storage<bam::kmod_gpu_ordered_queue_set>>;
using kmod_array = bam::array<std::uint32_t, kmod_cache::ref_type>;

/// Every thread reads the stamps of one 4 KiB block through the cache (4 KiB lines).
__global__ void cache_read_verify(kmod_array a, std::uint64_t first_lba, std::uint32_t per_block,
                                  unsigned long long* bad, std::uint32_t threads) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const std::uint64_t lba = first_lba + std::uint64_t{t} * per_block;
  for (std::uint32_t k = 0; k < 1024; ++k)
    if (a[std::uint64_t{t} * 1024 + k] != static_cast<std::uint32_t>(lba * 2654435761u + k)) {
      atomicAdd(bad, 1ull);
      break;
    }
}

TEST(KmodGpuQueues, GpuThreadsReadWhatTheHostWroteThroughGpuRings) {
  const std::vector<std::string> paths = bam::kmod_device_paths();
  if (paths.empty() || !have_gpu())
    GTEST_SKIP() << "needs an NVMe controller bound to bamkit.ko (NVIDIA_SRC build) and a GPU";
  bam::driver_options o;
  o.io_queue_pairs = 8;
  bam::kmod_controller ctrl(paths[0], o);
  if (!ctrl.device().gpu_mapping_supported())
    GTEST_SKIP() << "bamkit.ko was built without NVIDIA_SRC";
  const std::uint32_t lba_size = ctrl.info().lba_size;
  const std::uint32_t per_block = 4096 / lba_size;
  constexpr std::uint32_t threads = 4096;
  constexpr std::uint64_t first_lba = 1 << 16;
  ASSERT_GE(ctrl.info().namespace_lbas, first_lba + std::uint64_t{threads} * per_block);

  // The host writes stamped 4 KiB blocks through a host-memory queue pair.
  {
    bam::io_queue_pair hq = ctrl.driver().create_io_queue_pair(64);
    bam::dma_buffer buf(ctrl.data_allocator(), 4096);
    for (std::uint32_t t = 0; t < threads; ++t) {
      const std::uint64_t lba = first_lba + std::uint64_t{t} * per_block;
      for (std::uint32_t k = 0; k < 1024; ++k)
        buf.as<std::uint32_t>()[k] = static_cast<std::uint32_t>(lba * 2654435761u + k);
      ASSERT_TRUE(hq.ref<bam::mmio_doorbell>()
                      .submit_and_wait(bam::nvme::write(1, lba, per_block, {buf.bus_address(), 0}))
                      .status()
                      .ok());
    }
  }

  for (const bool ordering : {true, false}) {
    bam::kmod_gpu_queue_options qo;
    qo.pairs = 4;
    qo.entries = 256;
    qo.ordering_read = ordering;
    qo.ordering_timeout_ns = 30'000'000'000;  // a run's command_timeout_ns
    bam::kmod_gpu_queues q(ctrl, qo);
    bam::dma_buffer data(q.gpu_allocator(), std::size_t{threads} * 4096);
    std::vector<std::uint64_t> bus(threads);
    for (std::uint32_t t = 0; t < threads; ++t)
      bus[t] = data.bus_address(std::size_t{t} * 4096);
    std::uint64_t* d_bus = nullptr;
    counts* c = nullptr;
    unsigned long long* bad = nullptr;
    CUDA_OK(cudaMalloc(&d_bus, threads * sizeof(std::uint64_t)));
    CUDA_OK(cudaMemcpy(d_bus, bus.data(), threads * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMallocManaged(&c, sizeof(counts)));
    CUDA_OK(cudaMallocManaged(&bad, sizeof(unsigned long long)));
    *c = counts{};
    *bad = 0;
    stamp_args a{q.ref(), q.ordering(), d_bus,  data.as<std::uint32_t>(), first_lba, per_block,
                 c,       bad,          threads};
    gpu_read_verify<<<threads / 128, 128>>>(a);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(c->bad_status, 0u) << "ordering read " << ordering;
    EXPECT_EQ(c->returned, threads);
    if (ordering) {
      EXPECT_EQ(*bad, 0u);  // without it a mismatch is possible, not an error
      EXPECT_GE(q.ordering_reads(), 1u);
      EXPECT_LE(q.ordering_reads(), threads);
      EXPECT_EQ(q.ordering_errors(), 0u);
    } else {
      EXPECT_EQ(q.ordering_reads(), 0u);
      std::printf("without the ordering read: %llu of %u blocks seen stale\n", *bad, threads);
    }
    {
      // The cache's GPU storage over the same queues, with the ordering read after each line's
      // read when it is on: lines of 4 KiB, the data at first_lba (one SSD: the dataset's bytes
      // are the namespace's).
      bam::cache_config cc;
      cc.line_bytes = 4096;
      cc.slots = 512;
      cc.lines = (first_lba + std::uint64_t{threads} * per_block) / per_block;
      kmod_cache cache(cc, q.ordered_ref(), q.gpu_allocator());
      const kmod_array a(cache.ref(), bam::range<std::uint32_t>{first_lba / per_block,
                                                                std::uint64_t{threads} * 1024});
      *bad = 0;
      cache_read_verify<<<threads / 128, 128>>>(a, first_lba, per_block, bad, threads);
      CUDA_OK(cudaGetLastError());
      CUDA_OK(cudaDeviceSynchronize());
      const bam::cache_stats st = cache.stats();
      EXPECT_EQ(st.io_errors, 0u);
      EXPECT_EQ(st.reads, threads);  // a line per thread, each read once
      if (ordering) {
        EXPECT_EQ(*bad, 0u) << "through the cache, with the ordering read";
      } else {
        std::printf("cache without the ordering read: %llu of %u blocks seen stale\n", *bad,
                    threads);
      }
    }
    cudaFree(d_bus);
    cudaFree(c);
    cudaFree(bad);
  }
}

}  // namespace
