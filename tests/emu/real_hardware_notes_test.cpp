// emulated_media_note and protocol_note: the reports' words for what GPU-emulated media differ in
// from a real SSD, chosen by where the media are, and what the run's protocol made the threads do.
#include <gtest/gtest.h>

#include <string>

#include "bam/emu/gpu/real_hardware_notes.hpp"

namespace bam {
namespace {

bool has(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

TEST(RealHardwareNotes, PinnedMediaCrossPcieAndPayTheFootprintGpuMediaDoNot) {
  const std::string pinned = emu::gpu::emulated_media_note(true);
  const std::string gpu = emu::gpu::emulated_media_note(false);
  EXPECT_TRUE(has(pinned, "media in pinned host memory")) << pinned;
  EXPECT_TRUE(has(pinned, "every read and write crosses PCIe")) << pinned;
  EXPECT_TRUE(has(pinned, "report.measure_ceilings")) << pinned;  // the ceiling to compare with
  EXPECT_TRUE(has(gpu, "media in GPU memory: no data crosses PCIe")) << gpu;
  EXPECT_FALSE(has(gpu, "footprint")) << gpu;
  // Only pinned media pay the uneven division of host reads among SMs, which the placement moves.
  EXPECT_TRUE(has(pinned, "gpu.engine_placement")) << pinned;
  EXPECT_FALSE(has(gpu, "gpu.engine_placement")) << gpu;
  // Either way the engine's SMs are named: a real SSD's controller takes none of the GPU.
  EXPECT_TRUE(has(pinned, "engine_sms")) << pinned;
  EXPECT_TRUE(has(gpu, "engine_sms")) << gpu;
}

TEST(RealHardwareNotes, TheHardwareProtocolWaitsForTheOrderingTheEmulatorOneIsAnUpperBound) {
  const std::string hw = emu::gpu::protocol_note(storage_protocol::hardware);
  const std::string emu = emu::gpu::protocol_note(storage_protocol::emulator);
  EXPECT_TRUE(has(hw, "storage.protocol hardware")) << hw;
  EXPECT_TRUE(has(hw, "ordering read of BaM paper 4.4")) << hw;
  // A read's latency includes its wait for the ordering: a reader comparing the protocols' latency
  // is told where the difference goes.
  EXPECT_TRUE(has(hw, "a read's latency includes")) << hw;
  EXPECT_TRUE(has(hw, "cross PCIe")) << hw;
  EXPECT_TRUE(has(emu, "storage.protocol emulator")) << emu;
  EXPECT_TRUE(has(emu, "upper bound")) << emu;
  EXPECT_FALSE(has(emu, "ordering read of BaM")) << emu;
}

}  // namespace
}  // namespace bam
