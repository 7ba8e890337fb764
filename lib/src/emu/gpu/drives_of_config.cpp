// The GPU-emulated SSDs of a run_config.
#include "bam/emu/gpu/drives_of_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>

#include "bam/config/config_io.hpp"
#include "bam/emu/faults_of_config.hpp"
#include "bam/emu/gpu/serving_order.hpp"
#include "bam/emu/timing_presets.hpp"

namespace bam::emu::gpu {

emu::timing_model timing_of(const model_spec& spec) {
  const auto m = resolve(spec);
  if (!m) throw config_error("storage.model", fmt::format("unknown preset \"{}\"", spec.name));
  return emu::from_ssd_model(*m);
}

namespace {

/// The even engine's shape: blocks on the first SMs x warps per block.
struct engine_shape {
  std::uint32_t blocks;
  std::uint32_t warps;
};

/// gpu.engine_placement auto's even engine for `client` and `queues` engine queues, or none where
/// it does not apply (drives_of_config.hpp): even_engine_blocks(gpu_sms) blocks (or the blocks
/// given, if no more) of the fewest warps from 4 that serve the queues (or the warps given). None
/// where no such shape serves them, or where it would leave the client no SM.
std::optional<engine_shape> even_engine(const run_config& c, const engine_client& client,
                                        std::uint64_t queues) {
  if (c.gpu.engine_placement != gpu_engine_placement::automatic || !client.io_only ||
      c.storage.media.kind == bam::media_kind::gpu ||
      std::uint64_t{c.storage.ssd_count} * c.storage.media.size_bytes < uneven_host_reads_bytes)
    return std::nullopt;
  const std::uint32_t most = even_engine_blocks(client.gpu_sms);
  const std::uint32_t blocks = c.gpu.engine_blocks != 0 ? c.gpu.engine_blocks : most;
  if (blocks == 0 || blocks > most || blocks >= client.gpu_sms) return std::nullopt;
  const std::uint64_t per_warp = std::uint64_t{queues_per_engine_warp} * blocks;
  const std::uint64_t warps = c.gpu.engine_warps_per_block != 0
                                  ? c.gpu.engine_warps_per_block
                                  : std::max<std::uint64_t>(4, (queues + per_warp - 1) / per_warp);
  if (warps > max_engine_warps_per_block || warps * per_warp < queues) return std::nullopt;
  return engine_shape{blocks, static_cast<std::uint32_t>(warps)};
}

}  // namespace

drives_config drives_config_of(const run_config& c, const engine_client& client) {
  drives_config dc;
  const emu::timing_model tm = timing_of(c.storage.model);
  for (std::uint32_t i = 0; i < c.storage.ssd_count; ++i) {
    drive_config d;
    d.lba_shift = lba_shift_of(c.storage);
    d.lbas = c.storage.media.size_bytes / c.storage.lba_size;
    d.media =
        c.storage.media.kind == bam::media_kind::gpu ? media_kind::device : media_kind::pinned_host;
    d.model = tm;
    d.faults = fault_config_of(c, i);
    dc.drives.push_back(d);
  }
  dc.queues_per_drive = c.queues.pairs_per_ssd;
  dc.queue_entries = c.queues.depth;
  dc.ordering_queues = c.storage.protocol == storage_protocol::hardware;
  dc.ordering_timeout_ns = command_timeout_ns(c);  // queues.timeout_ms, as every other wait
  // Aborts of commands whose wait gave up, as the host's queues have (host_context).
  dc.recovery = true;
  dc.recovery_opts.timeout_ns = command_timeout_ns(c);
  const std::uint64_t queues = dc.engine_queues();
  dc.engine_handover = c.gpu.engine_handover;
  if (const std::optional<engine_shape> even = even_engine(c, client, queues)) {
    // As the shape given explicitly would be: no block added for the ordering warps.
    dc.engine_blocks = even->blocks;
    dc.engine_warps_per_block = even->warps;
    dc.engine_on_first_sms = true;
    return dc;
  }
  const std::uint32_t warps = c.gpu.engine_warps_per_block != 0 ? c.gpu.engine_warps_per_block : 16;
  const std::uint64_t per_block = std::uint64_t{queues_per_engine_warp} * warps;
  const std::uint64_t least = (queues + per_block - 1) / per_block;
  // The automatic shape's blocks for `q` queues: 16, more when the queues need them.
  const auto automatic_blocks = [per_block](std::uint64_t q) {
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(16, (q + per_block - 1) / per_block));
  };
  dc.engine_warps_per_block = warps;
  dc.engine_on_first_sms = c.gpu.engine_placement == gpu_engine_placement::first_sms;
  dc.engine_blocks = c.gpu.engine_blocks != 0 ? c.gpu.engine_blocks : automatic_blocks(queues);
  // The drives' ordering queues get warps of their own beside the application's (an automatic
  // shape only) where the application's queues outnumber the warps the ordering warps would leave
  // them: the blocks they need more, so that those queues keep the even spread they have without
  // ordering queues (docs/gpu-engine.md, "The ordering warps beside the application's"). Fewer
  // queues have a warp each either way, and the engine no SM more. The application's blocks are
  // counted from its queues alone: where the ordering queues pushed `least` past 16 (8 SSDs x
  // 1024 pairs: 8,200 queues), counting them too would add a block nobody needs.
  if (dc.ordering_queues && c.gpu.engine_blocks == 0 &&
      queues > std::uint64_t{dc.engine_blocks} * warps) {
    const auto n = static_cast<std::uint32_t>(dc.drives.size());
    const std::uint32_t app_blocks = automatic_blocks(std::uint64_t{n} * dc.queues_per_drive);
    const std::uint32_t apps = app_blocks * warps;
    const std::uint32_t more = (n + warps - 1) / warps;
    const std::uint32_t total = apps + more * warps;
    if (ordering_warp(n, dc.queues_per_drive, total, n, apps)) {
      dc.engine_blocks = app_blocks + more;
      dc.engine_app_warps = apps;
    }
  }
  if (dc.engine_blocks < least) {
    throw config_error(
        "gpu.engine_blocks",
        fmt::format("{} blocks of {} warps serve at most {} queues ({} per warp); "
                    "storage.ssd_count x queues.pairs_per_ssd{} = {} need at least {} blocks, "
                    "allowed [{}, 1024] or 0 (automatic)",
                    dc.engine_blocks, warps, dc.engine_blocks * per_block, queues_per_engine_warp,
                    dc.ordering_queues ? " (+ 1 per SSD: storage.protocol hardware's ordering "
                                         "queue)"
                                       : "",
                    queues, least, least));
  }
  return dc;
}

}  // namespace bam::emu::gpu
