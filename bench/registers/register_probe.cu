// The register probe of the cache's access path (issue 20). Small kernels summing
// std::uint64_t elements through bam::array over the GPU cache, for each storage protocol (the
// array type an application of that protocol gets: basic_gpu_context<P>::array_type), and the
// same kernel summing plain device memory. The difference of their registers (ptxas, sm_90) is
// what an access through the cache, its miss path included, adds to an application kernel.
// Compiled only, never run: scripts/register-cost reads ptxas's report of this file.
#include <cstdint>

#include "bam/storage/gpu_context.hpp"

namespace {

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

}  // namespace

// No __launch_bounds__: ptxas reports what the code needs, not a cap (with a maximum of 256
// threads per block alone it already caps sm_90 kernels at 128 registers and spills the rest).
__global__ void register_probe_plain(const std::uint64_t* a, std::uint64_t n, std::uint64_t* out) {
  sum_elements(a, n, out);
}
__global__ void register_probe_array_emulator(emulator_array a, std::uint64_t n,
                                              std::uint64_t* out) {
  sum_elements(a, n, out);
}
__global__ void register_probe_array_hardware(hardware_array a, std::uint64_t n,
                                              std::uint64_t* out) {
  sum_elements(a, n, out);
}

// The same array kernels held to the goal's register budget: where ptxas spills to fit it (the
// kernel's own frame, i.e. every access, or only the out-of-line miss path).
__global__ void __launch_bounds__(256, goal_blocks)
    register_probe_array_emulator_capped(emulator_array a, std::uint64_t n, std::uint64_t* out) {
  sum_elements(a, n, out);
}
__global__ void __launch_bounds__(256, goal_blocks)
    register_probe_array_hardware_capped(hardware_array a, std::uint64_t n, std::uint64_t* out) {
  sum_elements(a, n, out);
}
