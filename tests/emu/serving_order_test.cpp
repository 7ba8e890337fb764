// The engine's serving order (bam/emu/gpu/serving_order.hpp): every queue served exactly once,
// places past the queues naming none, and the queues a client's consecutive units use spread over
// distinct warps.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include "bam/emu/gpu/serving_order.hpp"

namespace bam {
namespace {

using emu::gpu::served_queue;

struct shape {
  std::uint32_t drives, queues_per_drive, ordering;  // ordering: 0 or drives
};

constexpr std::uint32_t few_warps = 4;  // fewer than most shapes' application queues: dealt out

TEST(ServingOrder, EveryQueueIsServedAtExactlyOnePlace) {
  for (const shape s : {shape{1, 1, 0}, shape{1, 128, 1}, shape{3, 5, 3}, shape{4, 128, 0},
                        shape{10, 128, 10}, shape{7, 1, 7}}) {
    const std::uint32_t n = s.drives * s.queues_per_drive + s.ordering;
    std::vector<int> seen(n, 0);
    for (std::uint32_t place = 0; place < n; ++place) {
      const std::uint32_t q = served_queue(place, s.drives, s.queues_per_drive, few_warps);
      ASSERT_LT(q, n) << s.drives << " drives x " << s.queues_per_drive << ", place " << place;
      ++seen[q];
    }
    for (std::uint32_t q = 0; q < n; ++q)
      EXPECT_EQ(seen[q], 1) << s.drives << " drives x " << s.queues_per_drive << ", queue " << q;
    // The ordering queues (after the application's) keep their places, and so does every place
    // past the queues, up to the last lane of the last warp: the engine's lanes there serve
    // nothing (a place that mapped below n would serve a queue twice).
    for (std::uint32_t place = s.drives * s.queues_per_drive; place < 32 * few_warps + n; ++place)
      EXPECT_EQ(served_queue(place, s.drives, s.queues_per_drive, few_warps), place);
  }
}

TEST(ServingOrder, DriveOrderWhenEveryWarpServesOneQueueAtMost) {
  for (std::uint32_t place = 0; place < 129; ++place)
    EXPECT_EQ(served_queue(place, 1, 128, 16), place);  // one drive: the same either way
  for (std::uint32_t place = 0; place < 258; ++place)
    EXPECT_EQ(served_queue(place, 2, 128, 256), place);  // 256 queues, 256 warps
  // 3 drives x 100 queues over 256 warps: dealt out, drive 1's queue 0 at place 1, drive 0's
  // queue 1 at place 3.
  EXPECT_EQ(served_queue(1, 3, 100, 256), 100u);
  EXPECT_EQ(served_queue(3, 3, 100, 256), 1u);
  static_assert(served_queue(1, 3, 100, 256) == 100u);  // usable in constant expressions
}

using order = std::function<std::uint32_t(std::uint32_t place)>;

/// Warps serving the queues that units [first, first + count) of a client use (unit u: drive
/// u % drives, queue (u / drives) % queues_per_drive), with `warps` engine warps and the queue
/// at each place given by `queue_at`.
std::set<std::uint32_t> warps_of_units(std::uint32_t first, std::uint32_t count,
                                       std::uint32_t drives, std::uint32_t queues_per_drive,
                                       std::uint32_t warps, const order& queue_at) {
  const std::uint32_t n = drives * queues_per_drive;
  std::vector<std::uint32_t> place_of(n);
  for (std::uint32_t place = 0; place < n; ++place)
    place_of[queue_at(place)] = place;
  std::set<std::uint32_t> used;
  for (std::uint32_t u = first; u < first + count; ++u) {
    const std::uint32_t q = (u % drives) * queues_per_drive + (u / drives) % queues_per_drive;
    used.insert(place_of[q] % warps);
  }
  return used;
}

TEST(ServingOrder, AClientsConsecutiveUnitsGoToDistinctWarps) {
  // 10 drives x 128 queues over 256 warps, the issue-19 point: any 256 consecutive units use
  // 256 distinct warps.
  const order dealt = [](std::uint32_t place) { return served_queue(place, 10, 128, 256); };
  for (const std::uint32_t first : {0u, 1u, 123u, 1000u, 1279u})
    EXPECT_EQ(warps_of_units(first, 256, 10, 128, 256, dealt).size(), 256u) << "from " << first;
  // Drive order (drive d's queue i at place d * 128 + i), the order before: queue i of drives
  // 0, 2, 4, 6 and 8 on one warp, so the same 256 units used 52 warps.
  const order drive_order = [](std::uint32_t place) { return place; };
  EXPECT_EQ(warps_of_units(0, 256, 10, 128, 256, drive_order).size(), 52u);
  // 4 drives x 128 queues over 256 warps: the same.
  const order dealt4 = [](std::uint32_t place) { return served_queue(place, 4, 128, 256); };
  EXPECT_EQ(warps_of_units(17, 256, 4, 128, 256, dealt4).size(), 256u);
}

}  // namespace
}  // namespace bam
