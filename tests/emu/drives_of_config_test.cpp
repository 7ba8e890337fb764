// drives_config_of: the GPU engine's size from the gpu section (automatic when 0, as given
// otherwise), and explicit sizes too small for the queues refused naming gpu.engine_blocks.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>

#include "bam/config/config_io.hpp"
#include "bam/emu/gpu/drives_of_config.hpp"
#include "bam/emu/gpu/serving_order.hpp"

namespace bam {
namespace {

/// Protocol emulator: the application's queues only (hardware adds an ordering queue per SSD).
run_config with_queues(std::uint32_t ssds, std::uint32_t pairs) {
  run_config c;
  c.storage.backend = backend_kind::emulated;
  c.storage.protocol = storage_protocol::emulator;
  c.storage.ssd_count = ssds;
  c.queues.pairs_per_ssd = pairs;
  return c;
}

TEST(DrivesOfConfig, AutomaticEngineIs16Blocks16WarpsOrMoreForManyQueues) {
  const emu::gpu::drives_config small = emu::gpu::drives_config_of(with_queues(4, 128));
  EXPECT_EQ(small.engine_warps_per_block, 16u);
  EXPECT_EQ(small.engine_blocks, 16u);  // 512 queues: 16 warps of 32 queues would do
  EXPECT_EQ(small.drives.size(), 4u);
  EXPECT_EQ(small.queues_per_drive, 128u);
  // 10 x 1024 queues need 10240 / 32 = 320 warps = 20 blocks of 16.
  const emu::gpu::drives_config many = emu::gpu::drives_config_of(with_queues(10, 1024));
  EXPECT_EQ(many.engine_blocks, 20u);
  EXPECT_EQ(many.engine_warps_per_block, 16u);
}

TEST(DrivesOfConfig, GpuEngineHandoverIsPassedOn) {
  run_config c = with_queues(2, 8);
  EXPECT_TRUE(emu::gpu::drives_config_of(c).engine_handover);  // the default
  c.gpu.engine_handover = false;
  EXPECT_FALSE(emu::gpu::drives_config_of(c).engine_handover);
}

TEST(DrivesOfConfig, GpuEnginePlacementIsPassedOn) {
  run_config c = with_queues(2, 8);
  EXPECT_FALSE(emu::gpu::drives_config_of(c).engine_on_first_sms);  // the default: auto
  c.gpu.engine_placement = gpu_engine_placement::first_sms;
  EXPECT_TRUE(emu::gpu::drives_config_of(c).engine_on_first_sms);
  c.gpu.engine_placement = gpu_engine_placement::scheduler;
  EXPECT_FALSE(emu::gpu::drives_config_of(c).engine_on_first_sms);
}

/// Issue 19's 10 GiB point: 10 SSDs x 128 pairs over 1 GiB of pinned media each.
run_config ten_gib(storage_protocol p) {
  run_config c = with_queues(10, 128);
  c.storage.protocol = p;
  c.storage.media.size_bytes = std::uint64_t{1} << 30;
  return c;
}

constexpr emu::gpu::engine_client nbb_on_h200{.io_only = true, .gpu_sms = 132};

TEST(DrivesOfConfig, AutoPlacementGivesAnIoOnlyClientTheEvenEngineOverTwoGib) {
  static_assert(emu::gpu::even_engine_blocks(132) == 80);
  static_assert(emu::gpu::even_engine_blocks(114) == 69);
  static_assert(emu::gpu::even_engine_blocks(1) == 1);
  for (const auto p : {storage_protocol::hardware, storage_protocol::emulator}) {
    SCOPED_TRACE(to_string(p));
    // As the named even point gives it explicitly: 80 x 4 on the first SMs, no block added for
    // the ordering warps.
    run_config named = ten_gib(p);
    named.gpu.engine_placement = gpu_engine_placement::first_sms;
    named.gpu.engine_blocks = 80;
    named.gpu.engine_warps_per_block = 4;
    const emu::gpu::drives_config want = emu::gpu::drives_config_of(named);
    const emu::gpu::drives_config got = emu::gpu::drives_config_of(ten_gib(p), nbb_on_h200);
    EXPECT_TRUE(got.engine_on_first_sms);
    EXPECT_EQ(got.engine_blocks, 80u);
    EXPECT_EQ(got.engine_warps_per_block, 4u);
    EXPECT_EQ(got.engine_app_warps, want.engine_app_warps);
    EXPECT_EQ(got.engine_app_warps, 0u);
    // An application, or an unknown GPU: the scheduler's 16 x 16 (+ 1 block for the ordering
    // warps in the hardware protocol).
    for (const emu::gpu::engine_client other :
         {emu::gpu::engine_client{}, emu::gpu::engine_client{.io_only = false, .gpu_sms = 132},
          emu::gpu::engine_client{.io_only = true, .gpu_sms = 0}}) {
      const emu::gpu::drives_config app = emu::gpu::drives_config_of(ten_gib(p), other);
      EXPECT_FALSE(app.engine_on_first_sms);
      EXPECT_EQ(app.engine_blocks, p == storage_protocol::hardware ? 17u : 16u);
      EXPECT_EQ(app.engine_warps_per_block, 16u);
    }
  }
}

TEST(DrivesOfConfig, AutoPlacementKeepsTheSchedulerUnderTwoGibOrOnGpuMedia) {
  run_config c = ten_gib(storage_protocol::hardware);
  // 2 GiB exactly is past the line; a block a drive less is not (2 x (1 GiB - 512 B)).
  c.storage.ssd_count = 2;
  EXPECT_TRUE(emu::gpu::drives_config_of(c, nbb_on_h200).engine_on_first_sms);
  c.storage.media.size_bytes -= 512;
  EXPECT_FALSE(emu::gpu::drives_config_of(c, nbb_on_h200).engine_on_first_sms);
  // The drives' media count, not a point's dataset (the drives opened once serve every point of a
  // sweep over it): 10 x 1 GiB with a dataset of 128 MiB each is past the line.
  c = ten_gib(storage_protocol::hardware);
  c.workload.dataset_bytes = std::uint64_t{128} << 20;
  EXPECT_TRUE(emu::gpu::drives_config_of(c, nbb_on_h200).engine_on_first_sms);
  // Media in GPU memory: no host reads to divide.
  c = ten_gib(storage_protocol::hardware);
  c.storage.media.kind = bam::media_kind::gpu;
  EXPECT_FALSE(emu::gpu::drives_config_of(c, nbb_on_h200).engine_on_first_sms);
  // scheduler given: as before.
  c = ten_gib(storage_protocol::hardware);
  c.gpu.engine_placement = gpu_engine_placement::scheduler;
  const emu::gpu::drives_config s = emu::gpu::drives_config_of(c, nbb_on_h200);
  EXPECT_FALSE(s.engine_on_first_sms);
  EXPECT_EQ(s.engine_blocks, 17u);
}

TEST(DrivesOfConfig, TheEvenEngineTakesTheBlocksOrWarpsGiven) {
  run_config c = ten_gib(storage_protocol::emulator);
  c.gpu.engine_warps_per_block = 8;
  emu::gpu::drives_config dc = emu::gpu::drives_config_of(c, nbb_on_h200);
  EXPECT_TRUE(dc.engine_on_first_sms);
  EXPECT_EQ(dc.engine_blocks, 80u);
  EXPECT_EQ(dc.engine_warps_per_block, 8u);
  c = ten_gib(storage_protocol::emulator);
  c.gpu.engine_blocks = 48;
  dc = emu::gpu::drives_config_of(c, nbb_on_h200);
  EXPECT_TRUE(dc.engine_on_first_sms);
  EXPECT_EQ(dc.engine_blocks, 48u);
  EXPECT_EQ(dc.engine_warps_per_block, 4u);
  // More blocks than 3/5 of the SMs: the scheduler's placement, with its automatic warps.
  for (const std::uint32_t blocks : {81u, 200u}) {
    c.gpu.engine_blocks = blocks;
    dc = emu::gpu::drives_config_of(c, nbb_on_h200);
    EXPECT_FALSE(dc.engine_on_first_sms) << blocks;
    EXPECT_EQ(dc.engine_blocks, blocks);
    EXPECT_EQ(dc.engine_warps_per_block, 16u);
  }
  // Warps given that cannot serve the queues on 80 blocks: the scheduler's placement, whose
  // automatic blocks then serve them (1,280 queues at 1 warp of 32: 40 blocks; 16 the least).
  c = ten_gib(storage_protocol::emulator);
  c.gpu.engine_warps_per_block = 1;  // 80 x 1 x 32 = 2,560 >= 1,280: even
  EXPECT_TRUE(emu::gpu::drives_config_of(c, nbb_on_h200).engine_on_first_sms);
  c.queues.pairs_per_ssd = 512;  // 5,120 queues > 2,560
  dc = emu::gpu::drives_config_of(c, nbb_on_h200);
  EXPECT_FALSE(dc.engine_on_first_sms);
  EXPECT_EQ(dc.engine_blocks, 160u);
}

// The even engine keeps its blocks at 3/5 of the SMs and serves more queues with more warps, up to
// 16 a block; beyond that, or where 3/5 of the SMs would leave the client none, the scheduler's.
TEST(DrivesOfConfig, TheEvenEngineGrowsInWarpsNotBlocks) {
  // 16 SSDs x 1,024 pairs: 16,384 queues on 80 blocks need 6.4 warps each: 7.
  run_config c = ten_gib(storage_protocol::emulator);
  c.storage.ssd_count = 16;
  c.queues.pairs_per_ssd = 1024;
  emu::gpu::drives_config dc = emu::gpu::drives_config_of(c, nbb_on_h200);
  EXPECT_TRUE(dc.engine_on_first_sms);
  EXPECT_EQ(dc.engine_blocks, 80u);
  EXPECT_EQ(dc.engine_warps_per_block, 7u);
  // 48 x 1,024 = 49,152 queues: more than 80 x 16 x 32 = 40,960.
  c.storage.ssd_count = 48;
  dc = emu::gpu::drives_config_of(c, nbb_on_h200);
  EXPECT_FALSE(dc.engine_on_first_sms);
  EXPECT_EQ(dc.engine_warps_per_block, 16u);
  // A small GPU: 3/5 of its SMs, rounded up, with the warps the queues need (1,280 queues).
  const run_config ten = ten_gib(storage_protocol::emulator);
  dc = emu::gpu::drives_config_of(ten, {.io_only = true, .gpu_sms = 12});
  EXPECT_TRUE(dc.engine_on_first_sms);
  EXPECT_EQ(dc.engine_blocks, 8u);
  EXPECT_EQ(dc.engine_warps_per_block, 5u);  // 8 x 5 x 32 = 1,280
  // 3/5 of 2 SMs is both of them: none left for the client.
  dc = emu::gpu::drives_config_of(ten, {.io_only = true, .gpu_sms = 2});
  EXPECT_FALSE(dc.engine_on_first_sms);
  EXPECT_EQ(dc.engine_blocks, 16u);
}

TEST(DrivesOfConfig, GpuSectionSetsTheEngineSize) {
  run_config c = with_queues(2, 64);
  c.gpu.engine_blocks = 3;
  c.gpu.engine_warps_per_block = 2;  // 6 warps x 32 = 192 queues >= 128
  const emu::gpu::drives_config dc = emu::gpu::drives_config_of(c);
  EXPECT_EQ(dc.engine_blocks, 3u);
  EXPECT_EQ(dc.engine_warps_per_block, 2u);
  // Warps given, blocks automatic: at least 16, more when the queues need them.
  c = with_queues(10, 1024);
  c.gpu.engine_warps_per_block = 4;  // 320 warps = 80 blocks of 4
  const emu::gpu::drives_config auto_blocks = emu::gpu::drives_config_of(c);
  EXPECT_EQ(auto_blocks.engine_warps_per_block, 4u);
  EXPECT_EQ(auto_blocks.engine_blocks, 80u);
  c = with_queues(2, 64);
  c.gpu.engine_warps_per_block = 16;  // 128 queues: 1 block would do, 16 is the least
  EXPECT_EQ(emu::gpu::drives_config_of(c).engine_blocks, 16u);
}

TEST(DrivesOfConfig, TooFewEngineBlocksAreRefusedNamingTheKey) {
  run_config c = with_queues(4, 128);  // 512 queues: 16 warps
  c.gpu.engine_blocks = 1;
  c.gpu.engine_warps_per_block = 8;  // 8 warps serve 256
  try {
    (void)emu::gpu::drives_config_of(c);
    FAIL() << "1 block of 8 warps cannot serve 512 queues";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "gpu.engine_blocks");
    EXPECT_NE(std::string(e.what()).find("need at least 2 blocks"), std::string::npos) << e.what();
  }
  c.gpu.engine_blocks = 2;  // exactly enough
  EXPECT_EQ(emu::gpu::drives_config_of(c).engine_blocks, 2u);
}

TEST(DrivesOfConfig, ProtocolHardwareAddsAnOrderingQueuePerSsdAndTheEngineServesIt) {
  run_config c = with_queues(4, 128);
  EXPECT_FALSE(emu::gpu::drives_config_of(c).ordering_queues);
  EXPECT_EQ(emu::gpu::drives_config_of(c).engine_queues(), 512u);
  c.storage.protocol = storage_protocol::hardware;
  const emu::gpu::drives_config dc = emu::gpu::drives_config_of(c);
  EXPECT_TRUE(dc.ordering_queues);
  EXPECT_EQ(dc.queues_per_drive, 128u);  // the application's
  // The ordering reads wait as long as every other wait of the run: queues.timeout_ms, or its
  // automatic value (30 s without faults, 1 s + the longest delay with them).
  EXPECT_EQ(dc.ordering_timeout_ns, 30'000'000'000u);
  EXPECT_EQ(dc.ordering_timeout_ns, command_timeout_ns(c));
  run_config timed = c;
  timed.queues.timeout_ms = 250;
  EXPECT_EQ(emu::gpu::drives_config_of(timed).ordering_timeout_ns, 250'000'000u);
  timed.queues.timeout_ms = 0;
  timed.storage.faults.delay_fraction = 0.1;
  timed.storage.faults.delay_us = 5000;
  EXPECT_EQ(emu::gpu::drives_config_of(timed).ordering_timeout_ns, 1'005'000'000u);
  EXPECT_EQ(dc.engine_queues(), 516u);
  // 516 queues need 17 warps: 2 blocks of 8 no longer do.
  c.gpu.engine_blocks = 2;
  c.gpu.engine_warps_per_block = 8;
  try {
    (void)emu::gpu::drives_config_of(c);
    FAIL() << "2 blocks of 8 warps cannot serve 516 queues";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "gpu.engine_blocks");
    EXPECT_NE(std::string(e.what()).find("ordering queue) = 516 need at least 3 blocks"),
              std::string::npos)
        << e.what();
  }
}

TEST(DrivesOfConfig, AnAutomaticEngineAddsABlockForTheOrderingWarpsBesideTheApplications) {
  run_config c = with_queues(10, 128);
  c.storage.protocol = storage_protocol::hardware;
  const emu::gpu::drives_config dc = emu::gpu::drives_config_of(c);
  EXPECT_EQ(dc.engine_blocks, 17u);                 // 16 for the application's 1280 queues, 1 more
  EXPECT_EQ(dc.engine_app_warps, 256u);             // the application's queues stay on 256 warps
  c.storage.protocol = storage_protocol::emulator;  // no ordering queues: no block more
  EXPECT_EQ(emu::gpu::drives_config_of(c).engine_blocks, 16u);
  EXPECT_EQ(emu::gpu::drives_config_of(c).engine_app_warps, 0u);
  c.storage.protocol = storage_protocol::hardware;
  c.gpu.engine_blocks = 16;  // a shape given: as given, the ordering warps taken from it
  EXPECT_EQ(emu::gpu::drives_config_of(c).engine_blocks, 16u);
  EXPECT_EQ(emu::gpu::drives_config_of(c).engine_app_warps, 0u);
  // Queues that have a warp each beside the ordering warps (1 SSD x 128 + 1: 129 of 256 warps;
  // 254 + 2) take no block more; one more queue (2 x 128 + 2 = 258) does.
  for (const auto& [ssds, pairs, blocks] :
       {std::tuple{1u, 128u, 16u}, {2u, 127u, 16u}, {2u, 128u, 17u}, {1u, 1u, 16u}}) {
    run_config few = with_queues(ssds, pairs);
    few.storage.protocol = storage_protocol::hardware;
    const emu::gpu::drives_config f = emu::gpu::drives_config_of(few);
    EXPECT_EQ(f.engine_blocks, blocks) << ssds << " x " << pairs;
    EXPECT_EQ(f.engine_app_warps, blocks == 16 ? 0u : 256u) << ssds << " x " << pairs;
  }
  // 16 to 38 SSDs take as many blocks more as their ordering warps fill (16 warps each), so long
  // as those stay within an eighth of all the warps.
  for (const auto& [ssds, blocks] :
       {std::pair{16u, 17u}, {17u, 18u}, {32u, 18u}, {33u, 19u}, {38u, 19u}}) {
    run_config more = with_queues(ssds, 16);
    more.storage.protocol = storage_protocol::hardware;
    const emu::gpu::drives_config m = emu::gpu::drives_config_of(more);
    EXPECT_EQ(m.engine_blocks, blocks) << ssds << " SSDs";
    EXPECT_EQ(m.engine_app_warps, 256u) << ssds << " SSDs";
    // What emulated_drives asserts of a shape with application warps.
    EXPECT_TRUE(emu::gpu::ordering_warp(ssds, 16, m.engine_blocks * m.engine_warps_per_block, ssds,
                                        m.engine_app_warps))
        << ssds << " SSDs";
  }
  // 39 and 40 SSDs' ordering warps would be more than an eighth of 16 + 3 blocks: no block more,
  // the ordering queues served among the application's.
  for (const std::uint32_t ssds : {39u, 40u}) {
    run_config many = with_queues(ssds, 16);
    many.storage.protocol = storage_protocol::hardware;
    EXPECT_EQ(emu::gpu::drives_config_of(many).engine_blocks, 16u) << ssds << " SSDs";
    EXPECT_EQ(emu::gpu::drives_config_of(many).engine_app_warps, 0u) << ssds << " SSDs";
  }
  // Queues that need more than 16 blocks: the blocks more come after the ones the application's
  // queues need, counted without the ordering queues (10 x 1024 = 10,240 queues fill 20 blocks
  // exactly; with the 10 ordering queues `least` is 21, and 20 + 1 serve them all).
  for (const auto& [ssds, app_blocks] : {std::pair{10u, 20u}, {8u, 16u}, {9u, 18u}}) {
    run_config big = with_queues(ssds, 1024);
    big.storage.protocol = storage_protocol::hardware;
    const emu::gpu::drives_config b = emu::gpu::drives_config_of(big);
    EXPECT_EQ(b.engine_blocks, app_blocks + 1) << ssds << " SSDs";
    EXPECT_EQ(b.engine_app_warps, app_blocks * 16) << ssds << " SSDs";
    EXPECT_GE(std::uint64_t{b.engine_blocks} * 16 * emu::gpu::queues_per_engine_warp,
              b.engine_queues())
        << ssds << " SSDs";
    EXPECT_TRUE(emu::gpu::ordering_warp(ssds, 1024, b.engine_blocks * 16, ssds, app_blocks * 16))
        << ssds << " SSDs";
  }
}

}  // namespace
}  // namespace bam
