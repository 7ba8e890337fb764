// bam/detail/hash.hpp: the one 64-bit hash of bamkit (SplitMix64, Steele et al.), for host and
// device: fmix64 is its finaliser, mix64(x) the generator's output for state x (the finaliser
// of x + the golden-ratio increment), split_mix64 the generator. Workload offsets, data
// patterns, fault decisions and test values all draw from these.
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam {

/// SplitMix64's increment (2^64 / golden ratio, odd).
inline constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ull;

/// SplitMix64's finaliser: a bijective, well-mixed function of `z`.
BAM_HD constexpr std::uint64_t fmix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// A hash of `x`: what split_mix64 returns from state x.
BAM_HD constexpr std::uint64_t mix64(std::uint64_t x) {
  return fmix64(x + golden_gamma);
}

/// The SplitMix64 generator: small, fast, good enough for offsets and test data.
struct split_mix64 {
  std::uint64_t state = 0;
  BAM_HD constexpr std::uint64_t next() {
    const std::uint64_t s = state;
    state += golden_gamma;
    return mix64(s);
  }
  /// Uniform in [0, 1).
  BAM_HD constexpr double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
};

}  // namespace bam
