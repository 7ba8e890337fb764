// bam/emu/gpu/engine_report.hpp: API. The GPU-emulated drives' engine as every report names it:
// its shape, the SM each of its blocks ran on and the queues it handed over (one list for
// nvm-block-bench, cache-bench and the tools on gpu_context). Host code, no CUDA needed.
#pragma once
#include <nlohmann/json.hpp>

#include "bam/emu/gpu/emulated_drives.hpp"

namespace bam::emu::gpu {

/// engine_warps, engine_blocks, engine_app_warps, engine_placement (first-sms or scheduler, as
/// resolved), engine_sms (block b on SM engine_sms[b], at the last start) and engine_handovers (the
/// last run's) of `drives`.
nlohmann::json engine_report(const emulated_drives& drives);

}  // namespace bam::emu::gpu
