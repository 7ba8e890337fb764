// GPU identification through the CUDA runtime (CUDA builds only).
#include <cuda_runtime.h>

#include <string>

#include "bam/report/gpu_info.hpp"

namespace bam {
namespace {
std::string version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
}  // namespace

gpu_info query_gpu_info() {
  gpu_info g;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) g.cuda_runtime = version_string(runtime);
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    g.driver = version_string(driver);
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    cudaGetLastError();  // clear the sticky "no device" error
    return g;
  }
  g.count = count;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
    g.name = prop.name;
    g.sms = prop.multiProcessorCount;
  }
  return g;
}

}  // namespace bam
