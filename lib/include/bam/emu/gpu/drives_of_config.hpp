// bam/emu/gpu/drives_of_config.hpp: API. The GPU-emulated SSDs a run_config describes (storage.*,
// queues.*): the engine's timing model of storage.model and the emu::gpu::drives_config the tools'
// `emulated` backends construct emu::gpu::emulated_drives from. Host code, no CUDA needed.
#pragma once
#include "bam/config/run_config.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/emu/timing_model.hpp"

namespace bam::emu::gpu {

/// The engine's timing model for storage.model (a preset, a model file or an inline model,
/// resolved through the one preset table; `null` moves no data). Throws config_error for an
/// unknown preset.
emu::timing_model timing_of(const model_spec& spec);

/// Queues one engine warp serves at most (a queue per lane).
inline constexpr std::uint32_t queues_per_engine_warp = 32;

/// storage.ssd_count drives of storage.media.size_bytes (pinned host or GPU media as
/// storage.media.kind says) with queues.pairs_per_ssd queues of queues.depth entries, and for
/// storage.protocol hardware an ordering queue per drive (drives_config::ordering_queues). The
/// engine has gpu.engine_blocks blocks of gpu.engine_warps_per_block warps; automatic (0): 16
/// warps per block and 16 blocks, more when the queues need them (a warp serves at most 32
/// queues), and with ordering queues the blocks their warps need beside the blocks the
/// application's queues alone need (one per 16 drives at 16 warps a block;
/// drives_config::engine_app_warps) where the application's queues
/// outnumber the warps the ordering warps would leave them and those stay within an eighth of all.
/// Throws config_error naming gpu.engine_blocks when the blocks given cannot serve every queue.
drives_config drives_config_of(const run_config& c);

}  // namespace bam::emu::gpu
