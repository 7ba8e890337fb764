// bam/detail/sm_id.hpp: the SM the calling GPU thread runs on (%smid), for code that spreads work
// or counters by SM and for reports of where a kernel ran. Device code only (nvcc).
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam::detail {

#if defined(__CUDACC__)
/// The calling thread's SM (%smid: stable while its block lives; not dense across GPUs' SMs).
__device__ inline std::uint32_t sm_id() {
  std::uint32_t sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm;
}
#endif

}  // namespace bam::detail
