// The engine's serving order (bam/emu/gpu/serving_order.hpp): every queue served exactly once,
// places past the queues naming none, the ordering queues on a warp of their own where they fit,
// and the queues a client's consecutive units use spread over distinct warps.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include "bam/emu/gpu/serving_order.hpp"

namespace bam {
namespace {

using emu::gpu::no_served_queue;
using emu::gpu::ordering_warp;
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

TEST(ServingOrder, EachOrderingQueueGetsAWarpOfItsOwnWhereTheyFit) {
  // shape, warps: every queue at exactly one place below warps * 32; with ordering warps, lane 0
  // of each of the last `ordering` warps serves one ordering queue and nothing else is served on
  // those warps, and no other warp serves an ordering queue.
  struct with_warps {
    shape s;
    std::uint32_t warps;
    bool own_warps;
  };
  for (const with_warps c : {with_warps{{10, 128, 10}, 256, true}, with_warps{{1, 1, 1}, 256, true},
                             with_warps{{1, 128, 1}, 256, true}, with_warps{{4, 128, 4}, 64, true},
                             with_warps{{3, 5, 3}, 24, true}, with_warps{{3, 5, 3}, 16, false},
                             with_warps{{8, 125, 8}, 32, false},  // 8 warps are more than 32 / 8
                             with_warps{{2, 500, 2}, 32, false},  // 1000 queues: more than 30 x 32
                             with_warps{{4, 128, 0}, 64, false}}) {
    const shape s = c.s;
    const std::uint32_t app = s.drives * s.queues_per_drive, n = app + s.ordering;
    ASSERT_EQ(ordering_warp(s.drives, s.queues_per_drive, c.warps, s.ordering), c.own_warps)
        << s.drives << " drives x " << s.queues_per_drive << ", " << c.warps << " warps";
    std::vector<int> seen(n, 0);
    for (std::uint32_t place = 0; place < 32 * c.warps; ++place) {
      const std::uint32_t q =
          served_queue(place, s.drives, s.queues_per_drive, c.warps, s.ordering);
      const std::uint32_t w = place % c.warps, lane = place / c.warps;
      const bool ordering_warp_place = c.own_warps && w >= c.warps - s.ordering;
      if (ordering_warp_place && lane != 0) {
        EXPECT_EQ(q, no_served_queue) << "place " << place;
      }
      if (q == no_served_queue || (!c.own_warps && q >= n)) continue;
      ASSERT_LT(q, n) << "place " << place;
      ++seen[q];
      if (c.own_warps) {
        EXPECT_EQ(q >= app, ordering_warp_place) << "place " << place << " serves queue " << q;
        if (ordering_warp_place) {
          EXPECT_EQ(q, app + w - (c.warps - s.ordering));  // warp first + k: ordering queue k
        }
      }
    }
    for (std::uint32_t q = 0; q < n; ++q)
      EXPECT_EQ(seen[q], 1) << s.drives << " drives x " << s.queues_per_drive << ", " << c.warps
                            << " warps, queue " << q;
  }
  // Without ordering queues the order is the one before (the default argument).
  for (std::uint32_t place = 0; place < 32 * 256; ++place)
    EXPECT_EQ(served_queue(place, 10, 128, 256, 0), served_queue(place, 10, 128, 256));
  static_assert(served_queue(246, 10, 128, 256, 10) == 1280u);  // warp 246, lane 0
  static_assert(served_queue(255, 10, 128, 256, 10) == 1289u);
  static_assert(served_queue(246 + 256, 10, 128, 256, 10) == no_served_queue);
}

TEST(ServingOrder, OrderingWarpsBesideTheApplicationsKeepItsSpread) {
  // 272 warps, the application's queues on the first 256: each application queue is where it is
  // without ordering queues on 256 warps, ordering queue k on lane 0 of warp 256 + k, and the
  // warps after those serve nothing.
  for (const std::uint32_t drives : {1u, 2u, 4u, 10u}) {
    ASSERT_TRUE(ordering_warp(drives, 128, 272, drives, 256)) << drives;
    for (std::uint32_t place = 0; place < 32 * 272; ++place) {
      const std::uint32_t w = place % 272, lane = place / 272;
      const std::uint32_t q = served_queue(place, drives, 128, 272, drives, 256);
      if (w < 256) {
        // Without ordering queues the places past the application's queues name none (their
        // served_queue is the place itself, past the queues).
        const std::uint32_t alone = lane * 256 + w;
        EXPECT_EQ(q, alone < drives * 128 ? served_queue(alone, drives, 128, 256) : no_served_queue)
            << "place " << place;
      } else if (lane == 0 && w < 256 + drives) {
        EXPECT_EQ(q, drives * 128 + (w - 256)) << "place " << place;
      } else {
        EXPECT_EQ(q, no_served_queue) << "place " << place;
      }
    }
  }
  // The application's queues must fit the warps given them, and the ordering warps the rest.
  EXPECT_FALSE(ordering_warp(10, 1024, 272, 10, 256));  // 10240 queues > 256 x 32
  EXPECT_FALSE(ordering_warp(10, 128, 262, 10, 256));   // 6 warps left for 10 ordering queues
  EXPECT_FALSE(ordering_warp(10, 128, 272, 10, 273));   // more application warps than warps
  EXPECT_FALSE(ordering_warp(40, 16, 304, 40, 256));    // 40 ordering warps > 304 / 8
}

TEST(ServingOrder, TheShapesBesideServeEveryQueueExactlyOnce) {
  // The shapes drives_config_of makes with the ordering warps beside the application's: 17 SSDs
  // x 16 (288 warps, 15 after the ordering warps), 10 x 1024 (352 warps, 336 for the
  // application's queues, which outnumber them: dealt out across the drives), 16 x 16 of 8-warp
  // blocks (144 warps: 2 blocks of 8 for the 16 ordering warps).
  struct beside {
    std::uint32_t drives, queues_per_drive, warps, apps;
  };
  for (const beside b : {beside{17, 16, 288, 256}, beside{10, 1024, 352, 336},
                         beside{16, 16, 144, 128}, beside{2, 128, 272, 256}}) {
    ASSERT_TRUE(ordering_warp(b.drives, b.queues_per_drive, b.warps, b.drives, b.apps))
        << b.drives << " x " << b.queues_per_drive << " on " << b.warps;
    const std::uint32_t app = b.drives * b.queues_per_drive, n = app + b.drives;
    std::vector<int> seen(n, 0);
    for (std::uint32_t place = 0; place < 32 * b.warps; ++place) {
      const std::uint32_t q =
          served_queue(place, b.drives, b.queues_per_drive, b.warps, b.drives, b.apps);
      if (q == no_served_queue) continue;
      ASSERT_LT(q, n) << b.drives << " x " << b.queues_per_drive << ", place " << place;
      ++seen[q];
      // The application's queues on its warps, ordering queue k on warp apps + k.
      if (q < app)
        EXPECT_LT(place % b.warps, b.apps) << "queue " << q;
      else
        EXPECT_EQ(place % b.warps, b.apps + (q - app)) << "ordering queue " << q - app;
    }
    for (std::uint32_t q = 0; q < n; ++q)
      EXPECT_EQ(seen[q], 1) << b.drives << " x " << b.queues_per_drive << ", queue " << q;
  }
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
  // With the drives' ordering queues on the last 10 warps, the application's 1280 queues are
  // dealt over the other 246: any 246 consecutive units that do not wrap past the last queue use
  // 246 distinct warps (that the ordering warps serve none of them is checked above).
  const order dealt_o = [](std::uint32_t place) {
    // place among the 246 warps' places -> the queue that warp serves there
    const std::uint32_t w = place % 246, lane = place / 246;
    return served_queue(lane * 256 + w, 10, 128, 256, 10);
  };
  for (const std::uint32_t first : {0u, 1u, 123u, 1000u, 1034u})
    EXPECT_EQ(warps_of_units(first, 246, 10, 128, 246, dealt_o).size(), 246u) << "from " << first;
  // 4 drives x 128 queues over 256 warps: the same.
  const order dealt4 = [](std::uint32_t place) { return served_queue(place, 4, 128, 256); };
  EXPECT_EQ(warps_of_units(17, 256, 4, 128, 256, dealt4).size(), 256u);
}

TEST(ServingOrder, OrderingWarpsOnlyWhereTheApplicationsQueuesFitTheWarpsLeft) {
  // 64 warps, 2 drives: the ordering warps leave 62 warps, 1984 lanes; 2 x 992 queues fit them
  // exactly, 2 x 993 do not (the order is then the one without ordering warps).
  EXPECT_TRUE(ordering_warp(2, 992, 64, 2));
  EXPECT_FALSE(ordering_warp(2, 993, 64, 2));
  EXPECT_EQ(served_queue(62, 2, 992, 64, 2), 1984u);  // warp 62, lane 0: drive 0's ordering queue
  EXPECT_EQ(served_queue(62 + 64, 2, 992, 64, 2), no_served_queue);
  EXPECT_EQ(served_queue(62, 2, 993, 64, 2), served_queue(62, 2, 993, 64));
  // An eighth of the warps at most: 8 ordering warps of 64, not 9.
  EXPECT_TRUE(ordering_warp(8, 1, 64, 8));
  EXPECT_FALSE(ordering_warp(9, 1, 64, 9));
}

}  // namespace
}  // namespace bam
