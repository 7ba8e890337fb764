// cache-bench, storage.backend = emulated: GPU threads use a bam::cache<gpu_cache_storage> over
// emu::gpu::emulated_drives (storage.model timing, pinned host or GPU media). CUDA builds only.
#pragma once
#include <memory>

#include "bam/harness/backend.hpp"

namespace bam::tools {

std::unique_ptr<backend> make_emulated_backend();

}  // namespace bam::tools
