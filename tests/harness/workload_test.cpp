// The benchmark I/O streams and the data pattern: offsets stay in the dataset and aligned,
// sequential streams cover every slot of every SSD exactly once per pass, mixed streams follow
// read_ratio, and check_pattern finds exactly the corrupted blocks.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "bam/harness/data_pattern.hpp"
#include "bam/harness/workload.hpp"

namespace bam {
namespace {

TEST(IoStream, RandomOffsetsAreAlignedAndInside) {
  workload_params p;
  p.threads = 4;
  p.ssd_count = 3;
  p.io_size = 8192;
  p.dataset = 1 << 20;
  std::vector<int> per_ssd(3, 0);
  for (std::uint32_t t = 0; t < 4; ++t) {
    io_stream s(p, t);
    for (std::uint64_t i = 0; i < 3000; ++i) {
      const io_request r = s.next(i);
      ASSERT_LT(r.ssd, 3u);
      ASSERT_EQ(r.offset % 8192, 0u);
      ASSERT_LE(r.offset + 8192, p.dataset);
      EXPECT_TRUE(r.read);
      ++per_ssd[r.ssd];
    }
  }
  for (int n : per_ssd)
    EXPECT_GT(n, 3000);  // 12000 over 3: each far from empty
}

TEST(IoStream, SequentialCoversEverySlotOncePerPass) {
  workload_params p;
  p.threads = 3;
  p.ssd_count = 2;
  p.io_size = 4096;
  p.dataset = 4096 * 10;
  p.sequential = true;
  std::set<std::pair<std::uint32_t, std::uint64_t>> seen;
  // 20 slots over 3 threads: I/O g = i * 3 + t for g < 20.
  for (std::uint64_t g = 0; g < 20; ++g) {
    io_stream s(p, static_cast<std::uint32_t>(g % 3));
    const io_request r = s.next(g / 3);
    EXPECT_EQ(r.ssd, g % 2);
    EXPECT_EQ(r.offset, (g / 2) * 4096);
    seen.insert({r.ssd, r.offset});
  }
  EXPECT_EQ(seen.size(), 20u);
}

TEST(IoStream, MixedFollowsReadRatio) {
  workload_params p;
  p.io_size = 4096;
  p.dataset = 1 << 20;
  p.op = io_op::mixed;
  p.read_ratio = 0.25;
  io_stream s(p, 0);
  int reads = 0;
  for (std::uint64_t i = 0; i < 10000; ++i)
    reads += s.next(i).read ? 1 : 0;
  EXPECT_GT(reads, 2200);
  EXPECT_LT(reads, 2800);
  p.op = io_op::write;
  io_stream w(p, 0);
  for (std::uint64_t i = 0; i < 100; ++i)
    EXPECT_FALSE(w.next(i).read);
}

TEST(DataPattern, CheckFindsExactlyTheCorruptedBlocks) {
  std::vector<std::uint64_t> buf(8 * 512 / 8);
  fill_pattern(buf.data(), 512, pattern_seed, 2, 100, 8);
  EXPECT_EQ(check_pattern(buf.data(), 512, pattern_seed, 2, 100, 8), 0u);
  EXPECT_EQ(check_pattern(buf.data(), 512, pattern_seed, 2, 101, 8), 8u);  // wrong LBA
  EXPECT_EQ(check_pattern(buf.data(), 512, pattern_seed, 3, 100, 8), 8u);  // wrong SSD
  buf[64 * 3 + 17] ^= 1;                                                   // one bit of block 3
  buf[64 * 6] ^= 1;                                                        // first word of block 6
  EXPECT_EQ(check_pattern(buf.data(), 512, pattern_seed, 2, 100, 8), 2u);
}

}  // namespace
}  // namespace bam
