// The register probe's array kernels (register_probe.cu) held to issue 20's budget, 3 resident
// blocks of 256 threads per SM (80 registers on sm_90): ptxas's report of this file says where it
// spills to fit (the kernel's own frame, i.e. every access, or the out-of-line miss path). A file
// of its own, so that its out-of-line functions are reported as compiled under the cap.
#include "register_probe.cuh"

using namespace register_probe;

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
