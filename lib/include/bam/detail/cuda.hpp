// bam/detail/cuda.hpp: API (CUDA builds only). The one CUDA error check of bamkit and the small
// runtime helpers every GPU owner needs: whether a device is usable, and loading a kernel's
// module before a persistent kernel (the GPU-emulated drives' engine) occupies the device.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bam {

/// Throws std::runtime_error("<what>: <CUDA's message>") unless `e` is cudaSuccess.
inline void cuda_check(cudaError_t e, std::string_view what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// True when a CUDA device is usable; otherwise `why` says what is missing (and the runtime's
/// sticky "no device" error is cleared).
inline bool cuda_device_usable(std::string& why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    why = cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  }
  if (n == 0) {
    why = "no CUDA device";
    return false;
  }
  return true;
}

/// The current device's SMs. Throws as cuda_check does.
inline int cuda_sm_count() {
  int device = 0, sms = 0;
  cuda_check(cudaGetDevice(&device), "current device");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
  return sms;
}

/// Makes `kernel` launchable while a persistent kernel runs: call it for every application
/// kernel before one starts (emu::gpu::emulated_drives::start()). Two things would otherwise
/// make a launch wait for the whole device to go idle, which never happens while the engine
/// runs: lazy module loading (CUDA's default) loads the kernel's module at its first launch, and
/// a kernel that needs more local memory per thread (spills, local arrays) than the device has
/// reserved makes the driver grow the reservation first. So this loads the module and raises
/// the per-thread stack limit to the kernel's local memory.
template <class Kernel>
inline cudaError_t preload_kernel(Kernel kernel) {
  cudaFuncAttributes a{};
  if (const cudaError_t e = cudaFuncGetAttributes(&a, kernel); e != cudaSuccess) return e;
  std::size_t stack = 0;
  if (const cudaError_t e = cudaDeviceGetLimit(&stack, cudaLimitStackSize); e != cudaSuccess)
    return e;
  if (a.localSizeBytes <= stack) return cudaSuccess;
  return cudaDeviceSetLimit(cudaLimitStackSize, a.localSizeBytes);
}

}  // namespace bam
