// bench/registers/register_probe.cuh: the body and array types of the register probe's kernels
// (register_probe.cu: what the code needs; register_probe_capped.cu: held to issue 20's budget).
#pragma once
#include <cstdint>

#include "bam/storage/gpu_context.hpp"

namespace register_probe {

/// The kernel body, force-inlined as an application's is (bam::array's accesses are too).
template <class Elements>
__device__ __forceinline__ void sum_elements(const Elements& a, std::uint64_t n,
                                             std::uint64_t* out) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  std::uint64_t sum = 0;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    sum += a[i];
  atomicAdd(reinterpret_cast<unsigned long long*>(out), static_cast<unsigned long long>(sum));
}

template <bam::storage_protocol P>
using probe_array = typename bam::basic_gpu_context<P>::template array_type<std::uint64_t>;
using emulator_array = probe_array<bam::storage_protocol::emulator>;
using hardware_array = probe_array<bam::storage_protocol::hardware>;

/// Issue 20's goal: 3 resident blocks of 256 threads per SM (at most 80 registers on sm_90).
constexpr int goal_blocks = 3;

}  // namespace register_probe
