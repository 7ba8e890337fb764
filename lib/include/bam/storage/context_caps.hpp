// bam/storage/context_caps.hpp: API. The capabilities (backend_caps) of a tool's backend whose
// storage is a storage context (host_context, gpu_context): what the harness checks the config
// against before a run. The context checks its controllers' own limits (queue entries, transfer
// size, media size) itself when it opens, so the backend states only the cache's and its own.
#pragma once
#include <cstdint>

#include "bam/config/config_io.hpp"

namespace bam {

/// As many SSDs as the cache stripes lines over (cache_max_ssds) and at most `max_threads`
/// threads (workload.threads; 0: no limit).
backend_caps context_backend_caps(std::uint32_t max_threads = 0);

}  // namespace bam
