// The dataset's layout on the SSDs (bam/cache/line_map.hpp): a fixed 64 KiB stripe unit, so the
// same byte of the dataset lies at the same place on the same SSD whatever the line size.
#include <gtest/gtest.h>

#include <cstdint>

#include "bam/cache/line_map.hpp"

namespace {

using bam::line_layout;
using bam::make_line_map;

/// Where byte `b` of the dataset lies, computed by hand from the stripe rule: (SSD, byte offset).
std::pair<std::uint32_t, std::uint64_t> by_hand(std::uint64_t b, std::uint32_t ssds) {
  const std::uint64_t unit = b / 65536;
  return {static_cast<std::uint32_t>(unit % ssds), (unit / ssds) * 65536 + b % 65536};
}

TEST(LineMap, FourSsdsOfFourKiBLinesFollowTheStripeUnit) {
  const bam::line_map m = make_line_map(4, 4096, 9, line_layout::striped);
  EXPECT_EQ(m.blocks_per_line(), 8u);
  // Lines 0..15 fill stripe unit 0 on SSD 0, line 16 starts unit 1 on SSD 1, line 64 is back on
  // SSD 0 right after unit 0.
  EXPECT_EQ(m.ssd_of(0), 0u);
  EXPECT_EQ(m.lba_of(0), 0u);
  EXPECT_EQ(m.ssd_of(15), 0u);
  EXPECT_EQ(m.lba_of(15), 15u * 8);
  EXPECT_EQ(m.ssd_of(16), 1u);
  EXPECT_EQ(m.lba_of(16), 0u);
  EXPECT_EQ(m.ssd_of(63), 3u);
  EXPECT_EQ(m.lba_of(63), 15u * 8);
  EXPECT_EQ(m.ssd_of(64), 0u);
  EXPECT_EQ(m.lba_of(64), 128u);
}

TEST(LineMap, EveryLineSizeAndLbaSizePutsEachByteAtTheSamePlace) {
  for (const std::uint32_t ssds : {1u, 3u, 4u, 10u}) {
    for (const std::uint32_t lba_shift : {9u, 12u}) {
      for (std::uint32_t line = 1u << lba_shift; line <= 65536; line *= 2) {
        const bam::line_map m = make_line_map(ssds, line, lba_shift, line_layout::striped);
        for (std::uint64_t l = 0; l < 5000; l += 7) {
          const auto [ssd, off] = by_hand(l * line, ssds);
          ASSERT_EQ(m.ssd_of(l), ssd) << ssds << " SSDs, line " << line << ", line index " << l;
          ASSERT_EQ(m.lba_of(l) << lba_shift, off)
              << ssds << " SSDs, line " << line << ", line index " << l;
        }
      }
    }
  }
}

TEST(LineMap, CapacityCountsWholeStripeUnitsOnly) {
  // 1 MiB + 4 KiB per SSD: 16 whole units each; the partial one is not used.
  const std::uint64_t lbas = (1u << 20) / 512 + 8;
  EXPECT_EQ(make_line_map(4, 4096, 9, line_layout::striped).capacity(lbas), 4u * 16 * 16);
  EXPECT_EQ(make_line_map(4, 512, 9, line_layout::striped).capacity(lbas), 4u * 16 * 128);
  EXPECT_EQ(make_line_map(4, 65536, 9, line_layout::striped).capacity(lbas), 4u * 16);
  // Replicated: every SSD holds every line, partial units included.
  EXPECT_EQ(make_line_map(4, 4096, 9, line_layout::replicated).capacity(lbas), lbas / 8);
}

TEST(LineMap, ReplicatedLinesSitAtTheirOwnLbaOnEverySsdAndReadsSpreadByUnit) {
  const bam::line_map m = make_line_map(3, 4096, 9, line_layout::replicated);
  EXPECT_EQ(m.lba_of(17), 17u * 8);
  EXPECT_EQ(m.ssd_of(0), 0u);
  EXPECT_EQ(m.ssd_of(16), 1u);
  EXPECT_EQ(m.ssd_of(32), 2u);
  EXPECT_EQ(m.ssd_of(48), 0u);
}

}  // namespace
