// cache-bench, storage.backend = host: CPU threads use a bam::cache<host_cache_storage> over
// host emulated controllers (one per SSD, queues.pairs_per_ssd queue pairs each).
#pragma once
#include <memory>

#include "bam/bench/backend.hpp"

namespace bam::tools {

/// Most CPU threads a host run starts.
inline constexpr std::uint32_t host_max_threads = 1024;

std::unique_ptr<backend> make_host_backend();

}  // namespace bam::tools
