// The two ways sum_array sums the same array: the values it stores and the paths that read them.
#pragma once
#include <cstdint>

/// Element i of the array.
constexpr std::uint64_t value(std::uint64_t i) {
  return (i * 0x9e3779b97f4a7c15ull) ^ (i >> 7);
}

/// The plain sum of value(0 .. n-1).
inline std::uint64_t plain_sum(std::uint64_t n) {
  std::uint64_t s = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    s += value(i);
  return s;
}

/// Writes the array through a host cache onto an emulated SSD, then sums it through a cold cache
/// (every line read back from the SSD). True when the sum matches plain_sum.
bool sum_on_host(std::uint64_t n);

/// The same array on a GPU-emulated drive, summed by a CUDA kernel through a GPU cache. True when
/// the sum matches, or when there is no GPU (it says it skipped).
bool sum_on_gpu(std::uint64_t n);
