// bam/emu/gpu/serving_order.hpp: API. Which queue each lane of the GPU engine serves: warp w of
// W engine warps, lane j serves the queue at place w + j * W of the serving order, which this
// header defines. Host and device.
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam::emu::gpu {

/// What served_queue returns for a place that names no queue (the engine's lane there serves
/// nothing).
inline constexpr std::uint32_t no_served_queue = ~0u;

/// The warps the application's queues are dealt over when the ordering queues have warps of their
/// own: `apps` (drives_config::engine_app_warps, the ordering warps right after them), or (0) all
/// but the last `ordering` warps.
[[nodiscard]] BAM_HD constexpr std::uint32_t application_warps(std::uint32_t warps,
                                                               std::uint32_t ordering,
                                                               std::uint32_t apps) noexcept {
  return apps != 0 ? apps : warps - ordering;
}

/// Whether each of the drives' `ordering` queues (§4.4 ordering reads, one per drive; 0: none)
/// gets an engine warp of its own, right after the application_warps(warps, ordering, apps): when
/// they are at most an eighth of the `warps`, fit after the application's warps, and the
/// application's queues fit those warps' lanes. Otherwise they share warps with the application's
/// queues, and a drive's ordering read then waits for turns that move other queues' data: on an
/// H200 at the 10-SSD 1 GiB point (hardware protocol) each drive's ordering reads, one at a time,
/// took about 50 to 360 us (inferred from their counts), and every read of the drive waits for one
/// (docs/gpu-engine.md, "The ordering read's warp"; one warp for all of them lost 6-8 % where
/// each drive has few reads in flight).
[[nodiscard]] BAM_HD constexpr bool ordering_warp(std::uint32_t drives,
                                                  std::uint32_t queues_per_drive,
                                                  std::uint32_t warps, std::uint32_t ordering,
                                                  std::uint32_t apps = 0) noexcept {
  const std::uint32_t first = application_warps(warps, ordering, apps);
  return ordering != 0 && ordering <= warps / 8 && apps <= warps && ordering <= warps - first &&
         std::uint64_t{drives} * queues_per_drive <= std::uint64_t{first} * 32;
}

/// The engine queue at place `place` of the serving order, with `warps` engine warps (warp w's
/// lane j is place w + j * warps; drive d's application queue i is engine queue
/// d * queues_per_drive + i, and the drives' `ordering` queues follow them), or no_served_queue.
///
/// With ordering warps (ordering_warp): the application's queues are placed over the first
/// `apps` warps (0: warps - ordering) as below (place w + j * apps of their order is warp w's lane
/// j), lane 0 of warp apps + k serves ordering queue k and its other lanes nothing, and warps past
/// apps + ordering serve nothing. An engine launched with its ordering warps beside the
/// application's (drives_config::engine_app_warps) keeps the application's queues spread as
/// evenly as without ordering queues.
///
/// When the application's queues outnumber the warps (a warp serves several), they are dealt out
/// number by number across the drives: place i * drives + d is drive d's queue i. A client that
/// spreads its threads over the drives first and then over the queues (unit u: drive u % drives,
/// queue (u / drives) % queues_per_drive, as nvm-block-bench's mappings and the BaM paper's
/// benchmark do) then keeps consecutive units on consecutive places, so the queues its resident
/// threads use together are spread over every warp; in drive order they sat on the few warps
/// that serve the same queue numbers of every drive. When every warp serves one queue at most,
/// each queue has a warp of its own either way and drive order is kept (docs/gpu-engine.md,
/// "Serving order", has the measurements behind both).
///
/// Without an ordering warp, every place from drives * queues_per_drive on maps to itself: the
/// ordering queues keep their places, and a place at or past the engine's queue count names no
/// queue. Either way every queue is served at exactly one place below warps * 32.
[[nodiscard]] BAM_HD constexpr std::uint32_t served_queue(std::uint32_t place, std::uint32_t drives,
                                                          std::uint32_t queues_per_drive,
                                                          std::uint32_t warps,
                                                          std::uint32_t ordering = 0,
                                                          std::uint32_t apps = 0) noexcept {
  const std::uint32_t app = drives * queues_per_drive;
  if (ordering_warp(drives, queues_per_drive, warps, ordering, apps)) {
    const std::uint32_t w = place % warps, lane = place / warps,
                        first = application_warps(warps, ordering, apps);
    if (w >= first) return lane == 0 && w - first < ordering ? app + (w - first) : no_served_queue;
    place = lane * first + w;  // the place in the application's order over the other warps
    if (place >= app) return no_served_queue;
    warps = first;
  }
  if (place >= app || app <= warps) return place;
  return (place % drives) * queues_per_drive + place / drives;
}

}  // namespace bam::emu::gpu
