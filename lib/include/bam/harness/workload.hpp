// bam/harness/workload.hpp: API. The I/O stream of a benchmark thread, written once for host and
// device: which SSD, byte offset and direction its i-th I/O has. Random: uniform over the
// dataset in io_size-aligned slots, uniform SSD. Sequential: the threads together walk the
// dataset in order (I/O g = i * threads + t), striped over the SSDs.
#pragma once
#include <cstdint>

#include "bam/config/enums.hpp"
#include "bam/detail/hash.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

struct io_request {
  std::uint32_t ssd = 0;
  std::uint64_t offset = 0;  ///< bytes into the SSD's namespace
  bool read = true;
};

/// Plain parameters (trivially copyable into kernels).
struct workload_params {
  std::uint32_t threads = 1;
  std::uint32_t ssd_count = 1;
  std::uint64_t io_size = 4096;
  std::uint64_t dataset = 0;  ///< bytes per SSD
  bool sequential = false;
  io_op op = io_op::read;
  double read_ratio = 1.0;  ///< for io_op::mixed
  std::uint64_t seed = 1;
};

class io_stream {
 public:
  BAM_HD io_stream(const workload_params& p, std::uint32_t thread)
      : p_(p), thread_(thread), slots_(p.dataset / p.io_size) {
    rng_.state = p.seed ^ (0xd1b54a32d192ed03ull * (std::uint64_t{thread} + 1));
  }
  /// The thread's `i`-th I/O (call with i = 0, 1, 2, ...; random streams ignore i).
  BAM_HD io_request next(std::uint64_t i) {
    io_request r;
    if (p_.sequential) {
      const std::uint64_t g = i * p_.threads + thread_;
      const std::uint64_t slot = g % (slots_ * p_.ssd_count);
      r.ssd = static_cast<std::uint32_t>(slot % p_.ssd_count);
      r.offset = (slot / p_.ssd_count) * p_.io_size;
    } else {
      r.ssd = p_.ssd_count == 1 ? 0u : static_cast<std::uint32_t>(rng_.next() % p_.ssd_count);
      r.offset = (rng_.next() % slots_) * p_.io_size;
    }
    r.read = p_.op == io_op::read || (p_.op == io_op::mixed && rng_.unit() < p_.read_ratio);
    return r;
  }

 private:
  workload_params p_;
  std::uint32_t thread_;
  std::uint64_t slots_;
  split_mix64 rng_{};
};

}  // namespace bam
