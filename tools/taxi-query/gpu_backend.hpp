// taxi-query's GPU backend (storage.backend emulated, CUDA builds): bam is one kernel over
// bam::arrays of a gpu_context (GPU-emulated SSDs, media in pinned host memory); tiled reads row
// groups on the CPU from host-emulated controllers of the same storage.model (or the table's
// files), copies them to the GPU and reduces them there, double-buffered.
#pragma once
#include <memory>

#include "bam/harness/backend.hpp"

namespace bam::tools {

std::unique_ptr<backend> make_taxi_gpu_backend();

}  // namespace bam::tools
