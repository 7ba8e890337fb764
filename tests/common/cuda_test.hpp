// tests/common/cuda_test.hpp: what every GPU test shares: CUDA_OK asserts a CUDA call succeeded
// (naming the call and CUDA's message), have_gpu() says whether a device is usable (GPU tests
// skip themselves without one).
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "bam/detail/cuda.hpp"

#define CUDA_OK(expr)                                                          \
  do {                                                                         \
    const cudaError_t err_ = (expr);                                           \
    ASSERT_EQ(err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(err_); \
  } while (0)

inline bool have_gpu() {
  std::string why;
  return bam::cuda_device_usable(why);
}
