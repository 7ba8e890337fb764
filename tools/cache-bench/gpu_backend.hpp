// cache-bench, storage.backend = emulated: GPU threads use the cache and arrays of a gpu_context
// over emu::gpu::emulated_drives (storage.model timing, pinned host or GPU media). CUDA builds
// only.
#pragma once
#include <memory>

#include "bam/harness/backend.hpp"

namespace bam::tools {

std::unique_ptr<backend> make_emulated_backend();

}  // namespace bam::tools
