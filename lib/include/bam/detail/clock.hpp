// bam/detail/clock.hpp: one nanosecond clock for host and device code (timeouts, timing models).
// Device: the GPU's %globaltimer (ns since an arbitrary epoch, shared by all SMs). Host:
// std::chrono::steady_clock. The two epochs differ: never compare a host and a device reading.
#pragma once
#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <chrono>
#endif

#include "bam/detail/macros.hpp"

namespace bam {

/// Current time in nanoseconds on the calling side (GPU global timer or host steady clock).
BAM_HD inline std::uint64_t now_ns() {
#if BAM_DEVICE_CODE
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
#endif
}

}  // namespace bam
