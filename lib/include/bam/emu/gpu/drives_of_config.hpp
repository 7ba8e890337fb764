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

/// The drives' pinned media (storage.ssd_count x storage.media.size_bytes: what the opened drives
/// are, whatever a point's dataset) from which gpu.engine_placement auto gives an I/O-only client
/// the even engine. The H200 measured divides random reads of pinned host memory evenly among its
/// SMs over 1 GiB and unevenly over 10 GiB (per-SM shares measured), so that the engine blocks the
/// scheduler puts on short-changed SMs carry the latency tail (docs/gpu-engine.md, "Where the
/// engine's blocks land"); over 2, 3 and 4 GiB the even engine's lower tails at an equal or higher
/// share of the ceiling say the same (inferred), and at 1 GiB it cost 6 % ("The even engine of
/// nvm-block-bench").
inline constexpr std::uint64_t uneven_host_reads_bytes = std::uint64_t{2} << 30;

/// What shares the GPU with the engine: what gpu.engine_placement auto decides from.
struct engine_client {
  /// The client's threads do nothing but issue I/O (nvm-block-bench): SMs the engine takes cost
  /// it no work. false: an application, whose SMs are its own.
  bool io_only = false;
  std::uint32_t gpu_sms = 0;  ///< the GPU's SMs (0: unknown, and auto keeps the scheduler's)
};

/// The even engine's blocks on a GPU of `sms` SMs: 3/5 of them, rounded up (80 of an H200's 132;
/// docs/gpu-engine.md, "The even engine of nvm-block-bench").
constexpr std::uint32_t even_engine_blocks(std::uint32_t sms) {
  return static_cast<std::uint32_t>((std::uint64_t{sms} * 3 + 4) / 5);
}

/// storage.ssd_count drives of storage.media.size_bytes (pinned host or GPU media as
/// storage.media.kind says) with queues.pairs_per_ssd queues of queues.depth entries, and for
/// storage.protocol hardware an ordering queue per drive (drives_config::ordering_queues). The
/// engine has gpu.engine_blocks blocks of gpu.engine_warps_per_block warps; automatic (0): 16
/// warps per block and 16 blocks, more when the queues need them (a warp serves at most 32
/// queues), and with ordering queues the blocks their warps need beside the blocks the
/// application's queues alone need (one per 16 drives at 16 warps a block;
/// drives_config::engine_app_warps) where the application's queues
/// outnumber the warps the ordering warps would leave them and those stay within an eighth of all.
/// gpu.engine_placement auto is the scheduler's placement, but for an I/O-only `client` over
/// pinned media of uneven_host_reads_bytes or more the even engine, block b on SM b:
/// even_engine_blocks(gpu_sms) blocks (or gpu.engine_blocks where set, if no more) of the fewest
/// warps from 4 that serve every queue (or gpu.engine_warps_per_block where set). Where no such
/// shape serves the queues within 16 warps a block, or it would leave the client no SM, auto is
/// the scheduler's placement with the automatic shape above.
/// Throws config_error naming gpu.engine_blocks when the blocks given cannot serve every queue.
drives_config drives_config_of(const run_config& c, const engine_client& client = {});

}  // namespace bam::emu::gpu
