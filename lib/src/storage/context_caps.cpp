// The capabilities of a backend over a storage context (bam/storage/context_caps.hpp).
#include "bam/storage/context_caps.hpp"

#include "bam/cache/cache_stats.hpp"

namespace bam {

backend_caps context_backend_caps(std::uint32_t max_threads) {
  backend_caps caps;
  caps.max_ssds = cache_max_ssds;
  caps.max_threads = max_threads;
  return caps;
}

}  // namespace bam
