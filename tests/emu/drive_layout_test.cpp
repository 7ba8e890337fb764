// drive_layout: the GPU owner's placement of rings, doorbells and bookkeeping in one block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "bam/emu/gpu/drive_layout.hpp"

namespace {

TEST(DriveLayout, RegionsAreAlignedAndDisjoint) {
  for (auto [queues, entries] : {std::pair{128u, 1024u}, {1u, 2u}, {3u, 65536u}, {33u, 100u}}) {
    const bam::emu::gpu::drive_layout l(queues, entries, entries);
    std::vector<std::byte> block(l.bytes);
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;  // [begin, end)
    const bam::queue_state_layout st(entries, entries);
    for (std::uint32_t i = 0; i < queues; ++i) {
      const bam::queue_pointers p = l.pointers(block.data(), i);
      EXPECT_EQ(p.qid, i + 1);
      EXPECT_EQ(p.sq_entries, entries);
      EXPECT_EQ((reinterpret_cast<std::uintptr_t>(p.sq) -
                 reinterpret_cast<std::uintptr_t>(block.data())) %
                    4096,
                0u);
      EXPECT_EQ((reinterpret_cast<std::uintptr_t>(p.cq) -
                 reinterpret_cast<std::uintptr_t>(block.data())) %
                    4096,
                0u);
      auto add = [&](const void* b, std::size_t n) {
        ranges.emplace_back(reinterpret_cast<std::uintptr_t>(b),
                            reinterpret_cast<std::uintptr_t>(b) + n);
      };
      add(p.sq, entries * sizeof(bam::nvme::command));
      add(p.cq, entries * sizeof(bam::nvme::completion));
      add(p.sq_doorbell, 4);
      add(p.cq_doorbell, 4);
      add(p.counters, st.bytes);  // the bookkeeping block starts with the counters
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p.counters) % 128,
                reinterpret_cast<std::uintptr_t>(block.data()) % 128);
      EXPECT_EQ(reinterpret_cast<std::byte*>(p.boxes) - reinterpret_cast<std::byte*>(p.cid_bits),
                static_cast<std::ptrdiff_t>(st.boxes - st.cid_bits));
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t k = 1; k < ranges.size(); ++k)
      EXPECT_LE(ranges[k - 1].second, ranges[k].first);
    EXPECT_LE(ranges.back().second, reinterpret_cast<std::uintptr_t>(block.data()) + l.bytes);
    EXPECT_GE(ranges.front().first, reinterpret_cast<std::uintptr_t>(block.data()));
  }
}

TEST(DriveLayout, DoorbellsArePackedForOneWarpLoad) {
  const bam::emu::gpu::drive_layout l(64, 16, 16);
  std::vector<std::byte> block(l.bytes);
  const bam::queue_pointers a = l.pointers(block.data(), 0), b = l.pointers(block.data(), 31);
  EXPECT_EQ(b.sq_doorbell - a.sq_doorbell, 31);
  EXPECT_EQ(b.cq_doorbell - a.cq_doorbell, 31);
}

}  // namespace
