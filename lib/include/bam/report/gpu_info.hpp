// bam/report/gpu_info.hpp: API. GPU, driver and CUDA runtime versions via the CUDA runtime; only
// defined in CUDA builds (lib/src/report/gpu_info.cu, library bamkit::cuda): guard calls with
// BAM_HAVE_CUDA.
#pragma once
#include "bam/report/machine_info.hpp"

namespace bam {

/// Device 0's name and the driver/runtime versions; count = 0 and "none" when no GPU is usable.
gpu_info query_gpu_info();

}  // namespace bam
