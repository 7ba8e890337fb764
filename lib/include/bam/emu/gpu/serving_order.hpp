// bam/emu/gpu/serving_order.hpp: API. Which queue each lane of the GPU engine serves: warp w of
// W engine warps, lane j serves the queue at place w + j * W of the serving order, which this
// header defines. Host and device.
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam::emu::gpu {

/// The engine queue at place `place` of the serving order, with `warps` engine warps (drive d's
/// application queue i is engine queue d * queues_per_drive + i; the drives' ordering queues
/// follow them).
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
/// Every place from drives * queues_per_drive on maps to itself: the ordering queues keep their
/// places, and a place at or past the engine's queue count names no queue (the engine's lanes
/// whose place is past it serve nothing). A bijection of [0, n) for every n >= the application's
/// queues.
[[nodiscard]] BAM_HD constexpr std::uint32_t served_queue(std::uint32_t place, std::uint32_t drives,
                                                          std::uint32_t queues_per_drive,
                                                          std::uint32_t warps) noexcept {
  const std::uint32_t app = drives * queues_per_drive;
  if (place >= app || app <= warps) return place;
  return (place % drives) * queues_per_drive + place / drives;
}

}  // namespace bam::emu::gpu
