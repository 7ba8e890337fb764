// Wire-format layout beyond the static_asserts: field encodings round-trip.
#include <gtest/gtest.h>

#include "bam/nvme/spec.hpp"

namespace {
using namespace bam::nvme;

TEST(NvmeLayout, CompletionDw3RoundTrip) {
  const std::uint32_t dw3 = completion::make_dw3(0xbeef, true, sc::lba_out_of_range);
  completion c{};
  c.cid = static_cast<std::uint16_t>(dw3 & 0xffff);
  c.sf = static_cast<std::uint16_t>(dw3 >> 16);
  EXPECT_EQ(c.cid, 0xbeef);
  EXPECT_TRUE(c.phase());
  EXPECT_EQ(c.status(), sc::lba_out_of_range);
  EXPECT_FALSE(c.status().ok());
}
}  // namespace
