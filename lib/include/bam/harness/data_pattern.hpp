// bam/harness/data_pattern.hpp: API. The data benchmarks write and --verify checks: every 8-byte
// word of a logical block is a function of (seed, SSD, LBA, word index), so any block read back
// can be checked, whichever write (or the initial fill) put it there. Host and device.
#pragma once
#include <cstdint>

#include "bam/detail/hash.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

/// The seed of the data every bamkit benchmark writes (so files and media can be reused).
inline constexpr std::uint64_t pattern_seed = 0x62616d6b6974ull;  // "bamkit"
/// Pattern granularity of files prepared for the io_uring baseline (independent of lba_size).
inline constexpr std::uint64_t file_pattern_block = 512;

BAM_HD inline std::uint64_t pattern_base(std::uint64_t seed, std::uint32_t ssd, std::uint64_t lba) {
  return fmix64(seed * golden_gamma ^ (std::uint64_t{ssd} << 48) ^ lba);
}

/// Fills `blocks` logical blocks of `lba_size` bytes starting at `lba` with the pattern.
BAM_HD inline void fill_pattern(void* dst, std::uint64_t lba_size, std::uint64_t seed,
                                std::uint32_t ssd, std::uint64_t lba, std::uint64_t blocks) {
  auto* w = static_cast<std::uint64_t*>(dst);
  const std::uint64_t words = lba_size / 8;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t base = pattern_base(seed, ssd, lba + b);
    for (std::uint64_t i = 0; i < words; ++i)
      *w++ = base + i * 0xff51afd7ed558ccdull;
  }
}

/// Number of blocks among `blocks` starting at `lba` whose data differs from the pattern.
BAM_HD inline std::uint64_t check_pattern(const void* src, std::uint64_t lba_size,
                                          std::uint64_t seed, std::uint32_t ssd, std::uint64_t lba,
                                          std::uint64_t blocks) {
  const auto* w = static_cast<const std::uint64_t*>(src);
  const std::uint64_t words = lba_size / 8;
  std::uint64_t bad = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t base = pattern_base(seed, ssd, lba + b);
    bool ok = true;
    for (std::uint64_t i = 0; i < words; ++i)
      ok &= w[i] == base + i * 0xff51afd7ed558ccdull;
    w += words;
    bad += ok ? 0u : 1u;
  }
  return bad;
}

}  // namespace bam
