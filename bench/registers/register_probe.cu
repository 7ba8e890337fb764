// The register probe of the cache's access path (issue 20). Small kernels summing
// std::uint64_t elements through bam::array over the GPU cache, for each storage protocol (the
// array type an application of that protocol gets: basic_gpu_context<P>::array_type), and the
// same kernel summing plain device memory. The difference of their registers (ptxas, sm_90) is
// what an access through the cache, its miss path included, adds to an application kernel.
// Compiled only, never run: scripts/register-cost reads ptxas's report of this file.
#include "register_probe.cuh"

using namespace register_probe;

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
