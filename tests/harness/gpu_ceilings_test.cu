// Tests of the GPU ceilings (bam/harness/gpu_ceilings.hpp) over several spans of pinned memory,
// the footprint of a run over several SSDs.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/harness/gpu_ceilings.hpp"
#include "common/cuda_test.hpp"

namespace {

struct pinned_spans {
  std::vector<void*> bufs;
  std::vector<bam::pinned_span> spans;
  pinned_spans(int n, std::uint64_t bytes) {
    for (int i = 0; i < n; ++i) {
      void* p = nullptr;
      if (cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess)
        throw std::runtime_error("cudaHostAlloc");
      bufs.push_back(p);
      spans.push_back({p, bytes});
    }
  }
  ~pinned_spans() {
    for (void* p : bufs)
      cudaFreeHost(p);
  }
};

TEST(GpuCeilings, MeasuredOverTheWholeFootprintOfSeveralSpans) {
  if (!have_gpu()) GTEST_SKIP() << "no usable GPU";
  pinned_spans m(3, 4u << 20);
  const bam::machine_ceilings c = bam::measure_gpu_ceilings(m.spans, 512, 1);
  EXPECT_EQ(c.over_bytes, 3u * (4u << 20));
  EXPECT_EQ(c.io_size, 512u);
  EXPECT_EQ(c.median_of, 1);
  EXPECT_GT(c.direct_reads_per_s, 0.0);
  EXPECT_DOUBLE_EQ(c.direct_read_gbps, c.direct_reads_per_s * 512 / 1e9);
  ASSERT_TRUE(c.h2d_memcpy_gbps.has_value());
  EXPECT_GT(*c.h2d_memcpy_gbps, 0.0);
  EXPECT_NE(c.memory.find("every SSD"), std::string::npos) << c.memory;
}

TEST(GpuCeilings, RefusesASpanSmallerThanABlockAndAnEmptyFootprint) {
  if (!have_gpu()) GTEST_SKIP() << "no usable GPU";
  pinned_spans m(2, 4096);
  m.spans[1].bytes = 256;  // smaller than one 512-byte block
  try {
    (void)bam::measure_gpu_ceilings(m.spans, 512, 1);
    FAIL() << "a span smaller than a block was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("every span"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)bam::measure_gpu_ceilings(std::span<const bam::pinned_span>{}, 512, 1),
               std::runtime_error);
}

}  // namespace
