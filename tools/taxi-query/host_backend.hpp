// taxi-query's CPU-thread backend (storage.backend host): host-emulated SSDs at the pace of
// storage.model; bam: CPU threads scan through bam::array; tiled: row groups read through host
// queues (or the files), reduced by CPU threads. Every result checkable without a GPU.
#pragma once
#include <memory>

#include "bam/harness/backend.hpp"

namespace bam::tools {

/// Most CPU threads a host run starts.
inline constexpr std::uint32_t taxi_host_max_threads = 256;

std::unique_ptr<backend> make_taxi_host_backend();

}  // namespace bam::tools
