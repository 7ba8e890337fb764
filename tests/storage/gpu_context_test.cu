// The GPU-thread storage context (bam/storage/gpu_context.hpp) over GPU-emulated SSDs, in both
// protocols (gpu_context: hardware, emulator_gpu_context: emulator): regions written into the
// media or through the queues read back by kernels through arrays with every line size; writes
// through arrays are on the media after close(). Skipped without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bam/detail/hash.hpp"
#include "bam/storage/checksum.hpp"
#include "bam/storage/gpu_context.hpp"
#include "bam/storage/stripes.hpp"
#include "common/cuda_test.hpp"

namespace {

template <class Ctx>
using u64_array_of = typename Ctx::template array_type<std::uint64_t>;

struct tally {
  unsigned long long bad, sum;
};

__host__ __device__ std::uint64_t value(std::uint64_t i, std::uint64_t seed) {
  return bam::mix64(i ^ (seed << 40));
}

/// Every element checked against value(i, seed) by a grid-stride loop; sum of the low bits.
template <class A>
__global__ void check_kernel(A a, std::uint64_t seed, tally* t) {
  unsigned long long bad = 0, sum = 0;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < a.size();
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t v = a[i];
    bad += v != value(i, seed) ? 1 : 0;
    sum += v & 0xffff;
  }
  atomicAdd(&t->bad, bad);
  atomicAdd(&t->sum, sum);
}

template <class A>
__global__ void overwrite_kernel(A a, std::uint64_t seed) {
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < a.size();
       i += std::uint64_t{gridDim.x} * blockDim.x)
    if (i % 3 == 0) a.write(i, value(i, seed));
}

bam::run_config config(bam::media_kind media,
                       bam::storage_protocol protocol = bam::storage_protocol::hardware) {
  bam::run_config c;
  c.storage.backend = bam::backend_kind::emulated;
  c.storage.protocol = protocol;
  c.storage.ssd_count = 3;
  c.storage.model = {"ideal", std::nullopt};
  c.storage.media.kind = media;
  c.storage.media.size_bytes = 16u << 20;
  c.queues.pairs_per_ssd = 8;
  c.queues.depth = 256;
  c.cache.line_size = 4096;
  c.cache.capacity = 1u << 20;  // smaller than the data: kernels evict
  return c;
}

std::vector<std::uint64_t> values(std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> v(n);
  for (std::uint64_t i = 0; i < n; ++i)
    v[i] = value(i, seed);
  return v;
}

template <class Ctx>
tally check(Ctx& ctx, const char* region, std::uint64_t seed) {
  tally* t = nullptr;
  EXPECT_EQ(cudaMallocManaged(&t, sizeof(tally)), cudaSuccess);
  *t = tally{};
  cudaStream_t s;
  EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ctx.start();
  check_kernel<<<256, 256, 0, s>>>(ctx.template array<std::uint64_t>(region), seed, t);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ctx.stop();
  cudaStreamDestroy(s);
  const tally out = *t;
  cudaFree(t);
  return out;
}

unsigned long long low_sum(const std::vector<std::uint64_t>& v) {
  unsigned long long s = 0;
  for (const std::uint64_t x : v)
    s += x & 0xffff;
  return s;
}

/// The tests below run over a context of each protocol.
template <class Ctx>
class GpuContext : public ::testing::Test {};
struct protocol_name {
  template <class Ctx>
  static std::string GetName(int) {
    return bam::to_string(Ctx::protocol);
  }
};
using contexts = ::testing::Types<bam::gpu_context, bam::emulator_gpu_context>;
TYPED_TEST_SUITE(GpuContext, contexts, protocol_name);

TYPED_TEST(GpuContext, RegionsWrittenBothWaysReadBackThroughArraysWithEveryLineSize) {
  using Ctx = TypeParam;
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  CUDA_OK(bam::preload_kernel(check_kernel<u64_array_of<Ctx>>));
  for (const bam::media_kind media : {bam::media_kind::host, bam::media_kind::gpu}) {
    Ctx ctx(config(media, Ctx::protocol));
    const std::vector<std::uint64_t> a = values(300000, 1);  // 2.4 MB: 37 stripe units
    const std::vector<std::uint64_t> b = values(100001, 2);
    ctx.add_region("a", a.size() * 8);
    ctx.add_region("b", b.size() * 8);
    const bam::write_result wa = ctx.write_region("a", a.data(), a.size() * 8);
    const bam::write_result wb =
        ctx.write_region("b", b.data(), b.size() * 8, bam::write_route::queues);
    EXPECT_EQ(wa.route, "media");
    EXPECT_EQ(wa.commands, 0u);
    EXPECT_EQ(wb.route, "queues");
    EXPECT_EQ(wb.commands, (b.size() * 8 + 65535) / 65536);
    std::uint64_t written = 0;
    for (const bam::emu::gpu::drive_stats& d : ctx.drives().stats())
      written += d.completed;
    EXPECT_EQ(written, wb.commands);   // the engine completed every write of the queue route
    ASSERT_TRUE(ctx.load_manifest());  // the manifest the writes left on SSD 0
    EXPECT_EQ(ctx.regions().at("b").checksum, bam::checksum64(b.data(), b.size() * 8));
    for (const std::uint32_t line : {512u, 4096u, 65536u}) {
      bam::cache_config cc;
      cc.line_bytes = line;
      cc.slots = line == 65536 ? 16 : 256;
      ctx.build_cache(cc);
      CUDA_OK(bam::preload_kernel(check_kernel<u64_array_of<Ctx>>));
      const tally ta = check(ctx, "a", 1);
      const tally tb = check(ctx, "b", 2);
      std::uint64_t ordering = 0;
      for (const bam::emu::gpu::drive_stats& d : ctx.drives().stats())
        ordering += d.ordering_reads;
      // Hardware: every line read was followed by an ordering read (coalesced).
      if (Ctx::protocol == bam::storage_protocol::hardware)
        EXPECT_GT(ordering, 0u) << line;
      else
        EXPECT_EQ(ordering, 0u) << line;
      EXPECT_EQ(ta.bad, 0u) << line;
      EXPECT_EQ(ta.sum, low_sum(a)) << line;
      EXPECT_EQ(tb.bad, 0u) << line;
      EXPECT_EQ(tb.sum, low_sum(b)) << line;
      const bam::cache_stats s = ctx.cache().stats();
      EXPECT_EQ(s.io_errors, 0u);
      EXPECT_GT(s.evictions, 0u) << line;
      for (std::uint32_t d = 0; d < 3; ++d)
        EXPECT_GT(s.bytes_read[d], 0u) << "SSD " << d << ", line " << line;
    }
  }
}

TYPED_TEST(GpuContext, WritesThroughArraysReachTheMediaAtClose) {
  using Ctx = TypeParam;
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  CUDA_OK(bam::preload_kernel(overwrite_kernel<u64_array_of<Ctx>>));
  Ctx ctx(config(bam::media_kind::host, Ctx::protocol));
  const std::uint64_t n = 200000;
  const std::vector<std::uint64_t> v = values(n, 3);
  const bam::region r = ctx.add_region("v", n * 8);
  ctx.write_region("v", v.data(), n * 8);
  ctx.build_cache();
  const u64_array_of<Ctx> a = ctx.template array<std::uint64_t>("v");
  ctx.start();
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  overwrite_kernel<<<128, 256, 0, s>>>(a, 4);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaStreamDestroy(s));
  const std::uint64_t offset = r.offset;
  ctx.close();
  // The media, byte by byte through the stripe rule: every third element overwritten.
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const bam::stripe_piece p = bam::place_of(offset + i * 8, 3);
    std::uint64_t got = 0;
    std::memcpy(&got, ctx.drives().host_media(p.ssd) + p.ssd_offset, 8);
    bad += got != (i % 3 == 0 ? value(i, 4) : v[i]) ? 1 : 0;
  }
  EXPECT_EQ(bad, 0u);
}

TEST(GpuContextOfOneProtocol, ANullModelCannotHoldARegion) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  bam::run_config c = config(bam::media_kind::host);
  c.storage.model = {"null", std::nullopt};
  bam::gpu_context ctx(c);
  ctx.add_region("v", 4096);
  const std::vector<std::uint64_t> v = values(512, 11);
  for (const bam::write_route route : {bam::write_route::media, bam::write_route::queues}) {
    try {
      ctx.write_region("v", v.data(), 4096, route);
      FAIL() << "a region written on null drives";
    } catch (const bam::config_error& e) {
      EXPECT_EQ(e.key(), "storage.model");
    }
  }
  EXPECT_FALSE(ctx.regions().at("v").written);
}

TEST(GpuContextOfOneProtocol, AnotherBackendIsAConfigErrorNamingTheKey) {
  bam::run_config c = config(bam::media_kind::host);
  c.storage.backend = bam::backend_kind::host;
  try {
    bam::gpu_context ctx(c);
    FAIL() << "gpu_context opened backend host";
  } catch (const bam::config_error& e) {
    EXPECT_EQ(e.key(), "storage.backend");
  }
}

TEST(GpuContextOfOneProtocol, TheConfigsProtocolMustBeTheContexts) {
  // The protocol is the context's type: a config asking for the other one is refused before
  // anything is allocated.
  try {
    bam::emulator_gpu_context ctx(config(bam::media_kind::host));  // hardware
    FAIL() << "emulator_gpu_context opened protocol hardware";
  } catch (const bam::config_error& e) {
    EXPECT_EQ(e.key(), "storage.protocol");
  }
  try {
    bam::gpu_context ctx(config(bam::media_kind::host, bam::storage_protocol::emulator));
    FAIL() << "gpu_context opened protocol emulator";
  } catch (const bam::config_error& e) {
    EXPECT_EQ(e.key(), "storage.protocol");
  }
}

}  // namespace
