// cache-bench's CPU-thread backends: a host storage context (bam/storage/host_context.hpp) with
// queues.pairs_per_ssd queue pairs per SSD. storage.backend = host: host-emulated controllers;
// storage.backend = nvme: real controllers bound to bamkit.ko (host mode).
#pragma once
#include <memory>

#include "bam/harness/backend.hpp"

namespace bam::tools {

/// Most CPU threads a host or nvme run starts.
inline constexpr std::uint32_t host_max_threads = 1024;

std::unique_ptr<backend> make_host_backend();
/// nullptr in builds without the kmod user-space side (non-Linux).
std::unique_ptr<backend> make_nvme_backend();

}  // namespace bam::tools
