// cache-bench: the measured pass's access pattern, written once for CPU and GPU threads
// (BAM_HD): which elements a thread touches (thread or warp layout), whether it writes them,
// and the values the dataset holds (for --verify).
#pragma once
#include <cstdint>

#include "bam/config/enums.hpp"
#include "bam/detail/hash.hpp"
#include "bam/detail/macros.hpp"

namespace bam::tools {

/// Threads of a group in the warp layout: a GPU warp; on the host, 32 consecutive thread ids.
inline constexpr std::uint32_t layout_group = 32;

/// The measured pass, as plain data (copied into kernels). A chunk is what one owner accesses
/// in one iteration: thread layout, the thread's `coarsening` consecutive elements; warp
/// layout, its group's 32 x `coarsening` consecutive elements, lane l taking every 32nd from
/// the l-th (step j: chunk start + 32 j + l).
struct bench_params {
  std::uint64_t threads = 0;
  std::uint64_t elements = 0;  ///< dataset elements (8 B)
  std::uint64_t owners = 0;    ///< threads (thread layout) or groups of 32 threads (warp layout)
  std::uint64_t chunks = 0;    ///< elements / chunk_elements
  std::uint32_t coarsening = 1;
  std::uint32_t iterations = 1;
  cache_access_mode mode = cache_access_mode::coalesced;
  io_op op = io_op::read;
  std::uint32_t write_share = 0;  ///< mixed: writes per 2^16 chunks
  bool warp_layout = false;
  bool sequential = true;
  bool verify = false;
  std::uint64_t seed = 1;
};

/// What element i holds before the run (the fill pass writes it to the SSDs).
BAM_HD inline std::uint64_t initial_value(std::uint64_t i) {
  return mix64(i) | 1;
}
/// What a write of the measured pass stores at element i (never the initial value).
BAM_HD inline std::uint64_t written_value(std::uint64_t i) {
  return mix64(i) & ~std::uint64_t{1};
}

/// Elements of one chunk.
BAM_HD inline std::uint64_t chunk_elements(const bench_params& p) {
  return p.warp_layout ? std::uint64_t{p.coarsening} * layout_group : p.coarsening;
}
/// The owner (thread or group) of thread t.
BAM_HD inline std::uint64_t owner_of(const bench_params& p, std::uint64_t t) {
  return p.warp_layout ? t / layout_group : t;
}
/// The chunk owner o accesses in iteration k (random: a hash per owner and iteration).
BAM_HD inline std::uint64_t chunk_of(const bench_params& p, std::uint64_t o, std::uint64_t k) {
  const std::uint64_t n = k * p.owners + o;
  return p.sequential ? n % p.chunks : mix64(n ^ (p.seed << 40)) % p.chunks;
}
/// Whether owner o writes its chunk in iteration k (all its threads do, or none).
BAM_HD inline bool writes_in(const bench_params& p, std::uint64_t o, std::uint64_t k) {
  if (p.op != io_op::mixed) return p.op == io_op::write;
  return (mix64((k * p.owners + o) ^ ~p.seed) & 0xffff) < p.write_share;
}
/// The element thread t accesses at step j (0 <= j < coarsening) of chunk ch.
BAM_HD inline std::uint64_t element_of(const bench_params& p, std::uint64_t ch, std::uint64_t t,
                                       std::uint32_t j) {
  if (!p.warp_layout) return ch * p.coarsening + j;
  return ch * chunk_elements(p) + std::uint64_t{j} * layout_group + t % layout_group;
}

}  // namespace bam::tools
