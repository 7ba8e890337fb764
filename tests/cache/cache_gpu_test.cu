// The cache on the GPU. MillionThreads: over a million threads through bam::array on two
// GPU-emulated SSDs, dataset 6x the cache: reads checked against the media's initial values
// (divergent warps, a partial last warp, two arrays of different element types in one warp),
// per-thread writes read back after eviction, warp-coalesced atomic adds with exact sums,
// array_ref reads and writes; after flush the media (pinned host memory) holds every write and
// the statistics add up. CacheGpuSanitizer: a few thousand threads over a storage policy that
// copies lines from GPU memory (no engine kernel beside the application's, so it runs under
// compute-sanitizer, which serialises kernels). Skipped without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/array/array_ref.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/gpu_storage.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/emu/timing_presets.hpp"
#include "common/cuda_test.hpp"
#include "common/memory_storage.cuh"

namespace {

__host__ __device__ std::uint64_t initial_value(std::uint64_t i) {
  return (i + 1) * 0x9e3779b97f4a7c15ull ^ 0x5bd1e995ull;
}
__host__ __device__ std::uint64_t own_value(std::uint64_t t) {
  return (t << 20) ^ 0xabcdefull;
}
__host__ __device__ std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  return x;
}

struct gpu_counts {
  unsigned long long bad_ro, bad_mixed, bad_own, bad_ref;
};

/// Where the regions are (in lines of the dataset) and how many threads run.
struct layout {
  std::uint64_t per_line;          // u64 per line
  std::uint64_t a_first, a_lines;  // read-only u64
  std::uint64_t b_first, b_lines;  // one u64 per thread
  std::uint64_t c_first, c_elems;  // counters
  std::uint64_t d_first, d_lines;  // read-only, read as u32
  std::uint64_t lines;
  std::uint32_t threads;

  static layout make(std::uint32_t threads, std::uint32_t line_bytes, std::uint64_t a_lines,
                     std::uint64_t d_lines) {
    layout l{};
    l.per_line = line_bytes / 8;
    l.threads = threads;
    l.a_first = 0;
    l.a_lines = a_lines;
    l.b_first = a_lines;
    l.b_lines = (threads + l.per_line - 1) / l.per_line;
    l.c_first = l.b_first + l.b_lines;
    l.c_elems = 8 * l.per_line;
    l.d_first = l.c_first + 8;
    l.d_lines = d_lines;
    l.lines = l.d_first + d_lines;
    return l;
  }
  __host__ __device__ std::uint64_t a_elems() const { return a_lines * per_line; }
  __host__ __device__ std::uint64_t d_elems() const { return d_lines * per_line * 2; }
  /// Expected u32 element j of region D (the low or high half of a u64 of the media).
  __host__ __device__ std::uint32_t d_value(std::uint64_t j) const {
    const std::uint64_t u64 = d_first * per_line + j / 2;
    return static_cast<std::uint32_t>(initial_value(u64) >> (32 * (j & 1)));
  }
  __host__ __device__ std::uint64_t counter_of(std::uint64_t t) const { return (t * 7) % c_elems; }
  __host__ __device__ std::uint64_t add_of(std::uint64_t t) const { return 1 + (t & 3); }
};

template <class CacheRef>
struct arrays {
  bam::array<std::uint64_t, CacheRef> a;  // the whole dataset as u64
  bam::array<std::uint32_t, CacheRef> d;  // region D as u32
  layout l;
  gpu_counts* c;
};

template <class CacheRef>
__global__ void read_kernel(arrays<CacheRef> x) {
  const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t >= x.l.threads) return;
  const std::uint64_t i = t % x.l.a_elems();  // a warp's lanes share a line: one acquire
  if (x.a[i] != initial_value(i)) atomicAdd(&x.c->bad_ro, 1ull);
  if (t % 3 == 0) {  // divergent: a random line of the u64 array ...
    const std::uint64_t j = mix(t) % x.l.a_elems();
    if (x.a.read(j) != initial_value(j)) atomicAdd(&x.c->bad_ro, 1ull);
  } else {  // ... or an element of the u32 array, in the same warp
    const std::uint64_t j = mix(t) % x.l.d_elems();
    if (x.d[j] != x.l.d_value(j)) atomicAdd(&x.c->bad_mixed, 1ull);
  }
}

template <class CacheRef>
__global__ void write_kernel(arrays<CacheRef> x) {
  const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t >= x.l.threads) return;
  x.a.write(x.l.b_first * x.l.per_line + t, own_value(t));
}

template <class CacheRef>
__global__ void add_kernel(arrays<CacheRef> x) {
  const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t >= x.l.threads) return;
  x.a.atomic_add(x.l.c_first * x.l.per_line + x.l.counter_of(t), x.l.add_of(t));
}

template <class CacheRef>
__global__ void readback_kernel(arrays<CacheRef> x) {
  const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t >= x.l.threads) return;
  const std::uint64_t j = mix(t + 12345) % x.l.a_elems();  // pressure: random lines
  if (x.a[j] != initial_value(j)) atomicAdd(&x.c->bad_ro, 1ull);
  if (x.a[x.l.b_first * x.l.per_line + t] != own_value(t)) atomicAdd(&x.c->bad_own, 1ull);
}

/// Threads t < threads/8 read and rewrite elements 8t .. 8t+7 of region B through an array_ref
/// (one line acquire each); the others do nothing.
template <class CacheRef>
__global__ void ref_kernel(arrays<CacheRef> x) {
  const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t >= x.l.threads / 8) return;
  bam::array_ref<std::uint64_t, CacheRef> h(x.a);
  const std::uint64_t base = x.l.b_first * x.l.per_line;
  for (std::uint64_t k = 8 * t; k < 8 * t + 8; ++k) {
    if (h[base + k] != own_value(k)) atomicAdd(&x.c->bad_ref, 1ull);
    h.write(base + k, own_value(k) ^ 0xff);
  }
}

template <class CacheRef>
void preload_all() {
  ASSERT_EQ(bam::preload_kernel(read_kernel<CacheRef>), cudaSuccess);
  ASSERT_EQ(bam::preload_kernel(write_kernel<CacheRef>), cudaSuccess);
  ASSERT_EQ(bam::preload_kernel(add_kernel<CacheRef>), cudaSuccess);
  ASSERT_EQ(bam::preload_kernel(readback_kernel<CacheRef>), cudaSuccess);
  ASSERT_EQ(bam::preload_kernel(ref_kernel<CacheRef>), cudaSuccess);
}

/// Runs the five kernels in order on `s`.
template <class CacheRef>
void run_all(const arrays<CacheRef>& x, cudaStream_t s) {
  const unsigned blocks = (x.l.threads + 255) / 256;
  read_kernel<<<blocks, 256, 0, s>>>(x);
  write_kernel<<<blocks, 256, 0, s>>>(x);
  add_kernel<<<blocks, 256, 0, s>>>(x);
  readback_kernel<<<blocks, 256, 0, s>>>(x);
  ref_kernel<<<blocks, 256, 0, s>>>(x);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaStreamSynchronize(s));
}

/// Element accesses run_all makes: 2 + 1 + 1 + 2 per thread, one per array_ref thread.
std::uint64_t expected_accesses(const layout& l) {
  return 6ull * l.threads + l.threads / 8;
}

/// Checks the media's u64 `media(line)` words after a flush: B and the counters.
template <class Media>
void check_media(const layout& l, Media&& media) {
  std::uint64_t wrong_b = 0, wrong_c = 0, wrong_a = 0;
  for (std::uint64_t t = 0; t < l.threads; ++t) {
    const std::uint64_t i = l.b_first * l.per_line + t;
    const std::uint64_t expect = t < 8 * (l.threads / 8) ? own_value(t) ^ 0xff : own_value(t);
    wrong_b += media(i / l.per_line)[i % l.per_line] != expect;
  }
  std::vector<std::uint64_t> sums(l.c_elems, 0);
  for (std::uint64_t t = 0; t < l.threads; ++t)
    sums[l.counter_of(t)] += l.add_of(t);
  for (std::uint64_t k = 0; k < l.c_elems; ++k) {
    const std::uint64_t i = l.c_first * l.per_line + k;
    wrong_c += media(i / l.per_line)[i % l.per_line] != initial_value(i) + sums[k];
  }
  for (std::uint64_t line = 0; line < l.a_lines; line += 97)
    wrong_a += media(line)[5] != initial_value(line * l.per_line + 5);
  EXPECT_EQ(wrong_b, 0u);
  EXPECT_EQ(wrong_c, 0u);
  EXPECT_EQ(wrong_a, 0u);
}

void check_counts(const gpu_counts& c) {
  EXPECT_EQ(c.bad_ro, 0u);
  EXPECT_EQ(c.bad_mixed, 0u);
  EXPECT_EQ(c.bad_own, 0u);
  EXPECT_EQ(c.bad_ref, 0u);
}

void check_stats(const bam::cache_stats& s, const layout& l, std::uint64_t slots) {
  EXPECT_EQ(s.accesses, expected_accesses(l));
  EXPECT_EQ(s.io_errors, 0u);
  EXPECT_EQ(s.reads, s.misses);
  EXPECT_EQ(s.evictions + slots, s.misses);
  EXPECT_EQ(s.writes, s.write_backs);
  EXPECT_GT(s.dirty_evictions, 0u);
  EXPECT_GT(s.write_backs, s.dirty_evictions);  // flush wrote the resident dirty lines
}

// ---- a million threads on two GPU-emulated SSDs ------------------------------------------

using gcache = bam::cache<bam::gpu_cache_storage<bam::emu::gpu::drives_ref>>;
using gref = gcache::ref_type;

TEST(CacheGpu, MillionThreadsThroughArraysOnTwoEmulatedSsds) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  constexpr std::uint32_t line_bytes = 4096, n_drives = 2;
  constexpr std::uint64_t slots = 1024;
  const layout l = layout::make((1u << 20) + 17, line_bytes, 4096, 256);
  bam::emu::gpu::drives_config cfg;
  for (std::uint32_t d = 0; d < n_drives; ++d) {
    bam::emu::gpu::drive_config dc;
    // Whole stripe units per drive, one spare.
    dc.lbas = ((l.lines * line_bytes + 2 * bam::stripe_bytes - 1) / (2 * bam::stripe_bytes) + 1) *
              (bam::stripe_bytes / 512);
    dc.model = bam::emu::timing_preset("ideal");
    cfg.drives.push_back(dc);
  }
  cfg.queues_per_drive = 64;
  cfg.queue_entries = 1024;
  cfg.engine_blocks = 16;
  cfg.engine_warps_per_block = 16;
  gpu_counts* counts = nullptr;
  CUDA_OK(cudaMallocManaged(&counts, sizeof(gpu_counts)));
  *counts = gpu_counts{};
  {
    bam::emu::gpu::emulated_drives drives(cfg);
    const bam::line_map map =
        bam::make_line_map(n_drives, line_bytes, 9, bam::line_layout::striped);
    const auto media = [&](std::uint64_t line) {
      return reinterpret_cast<std::uint64_t*>(drives.host_media(map.ssd_of(line)) +
                                              map.lba_of(line) * 512);
    };
    for (std::uint64_t line = 0; line < l.lines; ++line) {
      for (std::uint64_t k = 0; k < l.per_line; ++k)
        media(line)[k] = initial_value(line * l.per_line + k);
    }
    bam::cache_config cc;
    cc.line_bytes = line_bytes;
    cc.slots = slots;
    cc.lines = l.lines;
    cc.io_timeout_ns = 30'000'000'000ull;
    gcache c(cc, drives.ref(), drives.dma_memory());  // before start(): cudaMalloc
    gcache::preload();
    preload_all<gref>();
    drives.start();
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    arrays<gref> x{bam::array<std::uint64_t, gref>(c.ref(), {0, l.lines * l.per_line}),
                   bam::array<std::uint32_t, gref>(c.ref(), {l.d_first, l.d_elems()}), l, counts};
    run_all(x, s);
    EXPECT_TRUE(c.flush());
    const bam::cache_stats st = c.stats();
    drives.stop();
    CUDA_OK(cudaStreamDestroy(s));
    check_counts(*counts);
    check_stats(st, l, slots);
    EXPECT_EQ(st.flushes, n_drives);
    EXPECT_EQ(st.bytes_read[0] + st.bytes_read[1], st.reads * line_bytes);
    EXPECT_GT(st.hits, st.misses);  // lanes of a warp share lines
    check_media(l, media);
    std::printf(
        "  %llu accesses: %llu hits, %llu misses, %llu evictions, %llu write-backs\n",
        static_cast<unsigned long long>(st.accesses), static_cast<unsigned long long>(st.hits),
        static_cast<unsigned long long>(st.misses), static_cast<unsigned long long>(st.evictions),
        static_cast<unsigned long long>(st.write_backs));
  }
  CUDA_OK(cudaFree(counts));
}

}  // namespace

namespace {

using bam::test::memory_storage;
using mcache = bam::cache<memory_storage>;
using mref = mcache::ref_type;

TEST(CacheGpuSanitizer, SmallCoalescedReadWriteAddAndArrayRef) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  constexpr std::uint32_t line_bytes = 512;
  constexpr std::uint64_t slots = 16;
  const layout l = layout::make(4096 + 5, line_bytes, 64, 16);  // 153 lines: 9.5x the cache
  bam::cache_config cc;
  cc.line_bytes = line_bytes;
  cc.slots = slots;
  cc.lines = l.lines;
  mcache c(cc, l.lines);
  std::vector<std::uint64_t> host(l.lines * l.per_line);
  for (std::uint64_t i = 0; i < host.size(); ++i)
    host[i] = initial_value(i);
  CUDA_OK(cudaMemcpy(c.storage().media(), host.data(), host.size() * 8, cudaMemcpyHostToDevice));
  gpu_counts* counts = nullptr;
  CUDA_OK(cudaMallocManaged(&counts, sizeof(gpu_counts)));
  *counts = gpu_counts{};
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  arrays<mref> x{bam::array<std::uint64_t, mref>(c.ref(), {0, l.lines * l.per_line}),
                 bam::array<std::uint32_t, mref>(c.ref(), {l.d_first, l.d_elems()}), l, counts};
  run_all(x, s);
  EXPECT_TRUE(c.flush());
  const bam::cache_stats st = c.stats();
  check_counts(*counts);
  check_stats(st, l, slots);
  CUDA_OK(cudaMemcpy(host.data(), c.storage().media(), host.size() * 8, cudaMemcpyDeviceToHost));
  check_media(l, [&](std::uint64_t line) { return host.data() + line * l.per_line; });
  CUDA_OK(cudaStreamDestroy(s));
  CUDA_OK(cudaFree(counts));
}

}  // namespace

// ---- failed accesses on the GPU (cache_error_mode flag and trap) ----------------------------

namespace {

struct failure_counts {
  unsigned long long failed_try_read, failed_read, failed_try_write, wrong, touched;
};

/// Per thread: try_read of a line shared by its warp (a failure leaves `v` as it was), read of
/// another (a failure reads 0), try_write of its own element. Counts what failed as each lane
/// saw it.
template <class CacheRef>
__global__ void failing_kernel(bam::array<std::uint64_t, CacheRef> a, std::uint32_t threads,
                               std::uint64_t own_first, failure_counts* c) {
  const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const std::uint64_t n = own_first;  // elements that are only read
  std::uint64_t v = 1;
  const std::uint64_t i = t % n;
  if (!a.try_read(i, v)) {
    atomicAdd(&c->failed_try_read, 1ull);
    if (v != 1) atomicAdd(&c->wrong, 1ull);
  } else if (v != initial_value(i)) {
    atomicAdd(&c->wrong, 1ull);
  }
  const std::uint64_t j = mix(t) % n;
  const std::uint64_t r = a.read(j);
  if (r == 0) {
    atomicAdd(&c->failed_read, 1ull);
  } else if (r != initial_value(j)) {
    atomicAdd(&c->wrong, 1ull);
  }
  if (!a.try_write(own_first + t, own_value(t))) atomicAdd(&c->failed_try_write, 1ull);
  atomicAdd(&c->touched, 1ull);
}

/// A kernel that reads every element once: after the failures are spent it must see them all.
template <class CacheRef>
__global__ void read_all_kernel(bam::array<std::uint64_t, CacheRef> a, std::uint64_t n,
                                failure_counts* c) {
  const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t < n && a[t] != initial_value(t)) atomicAdd(&c->wrong, 1ull);
}

constexpr std::uint32_t err_line_bytes = 512, err_per_line = err_line_bytes / 8;

bam::cache_config error_config(std::uint64_t lines, bam::cache_error_mode on_error) {
  bam::cache_config cc;
  cc.line_bytes = err_line_bytes;
  cc.slots = 32;
  cc.lines = lines;
  cc.on_error = on_error;
  return cc;
}

void fill_initial(mcache& c, std::uint64_t elements) {
  std::vector<std::uint64_t> host(elements);
  for (std::uint64_t i = 0; i < elements; ++i)
    host[i] = initial_value(i);
  ASSERT_EQ(cudaMemcpy(c.storage().media(), host.data(), elements * 8, cudaMemcpyHostToDevice),
            cudaSuccess);
}

TEST(CacheGpuErrors, FlagModeCountsEveryFailedAccessAndReadsGiveZero) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  constexpr std::uint32_t threads = 4096 + 7;
  constexpr std::uint64_t read_lines = 40;
  const std::uint64_t own_first = read_lines * err_per_line;
  const std::uint64_t lines = read_lines + (threads + err_per_line - 1) / err_per_line;
  mcache c(error_config(lines, bam::cache_error_mode::flag), lines);
  fill_initial(c, lines * err_per_line);
  for (std::uint64_t l = 0; l < lines; l += 3)
    c.storage().fail_reads(l, 1);  // every third line's first read fails
  std::uint64_t failing = 0;
  for (std::uint64_t l = 0; l < lines; l += 3)
    ++failing;
  for (std::uint64_t i = 0; i < lines * err_per_line; ++i)
    ASSERT_NE(initial_value(i), 0u);  // 0 can only mean a failed read
  failure_counts* counts = nullptr;
  CUDA_OK(cudaMallocManaged(&counts, sizeof(failure_counts)));
  *counts = failure_counts{};
  const bam::array<std::uint64_t, mref> a(c.ref(), {0, lines * err_per_line});
  failing_kernel<<<(threads + 255) / 256, 256>>>(a, threads, own_first, counts);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  const failure_counts f = *counts;
  bam::cache_stats s = c.stats();
  EXPECT_EQ(f.touched, threads);
  EXPECT_EQ(f.wrong, 0u);
  EXPECT_GT(f.failed_try_read + f.failed_read + f.failed_try_write, 0u);
  EXPECT_EQ(s.failed_accesses, f.failed_try_read + f.failed_read + f.failed_try_write);
  EXPECT_EQ(s.io_errors, failing);  // every failing line was touched, and failed once
  EXPECT_EQ(s.errors_by_code.at(bam::nvme::sc::unrecovered_read_error.code()), failing);
  EXPECT_EQ(s.accesses, 3ull * threads);
  EXPECT_EQ(s.hits + s.misses + s.failed_accesses, s.accesses);
  EXPECT_TRUE(c.io_failed());
  // The failures are spent: every element reads back right, and the writes that succeeded are
  // on the media after a flush.
  *counts = failure_counts{};
  read_all_kernel<<<(own_first + 255) / 256, 256>>>(a, own_first, counts);
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(counts->wrong, 0u);
  EXPECT_TRUE(c.flush());
  CUDA_OK(cudaFree(counts));
}

TEST(CacheGpuErrorsDeathTest, TrapModeStopsTheKernelAtAFailedRead) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  static constexpr std::uint64_t lines = 8;
  auto run = [] {
    mcache c(error_config(lines, bam::cache_error_mode::trap), lines);
    fill_initial(c, lines * err_per_line);
    c.storage().fail_reads(2, 1);
    failure_counts* counts = nullptr;
    if (cudaMallocManaged(&counts, sizeof(failure_counts)) != cudaSuccess) std::exit(1);
    *counts = failure_counts{};
    const bam::array<std::uint64_t, mref> a(c.ref(), {0, lines * err_per_line});
    read_all_kernel<<<2, 256>>>(a, lines * err_per_line, counts);
    // The trap ends the kernel with an error (and the context): exit 3 says it trapped.
    std::exit(cudaDeviceSynchronize() != cudaSuccess ? 3 : 0);
  };
  EXPECT_EXIT(run(), ::testing::ExitedWithCode(3), "");
}

}  // namespace
