// Timing models: cost tables from the presets, the drive pipe's reservations and due times, and
// the JSON form (built-in presets equal the files in configs/models/).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>

#include "bam/config/config_io.hpp"
#include "bam/emu/timing_model.hpp"
#include "bam/emu/timing_presets.hpp"

namespace {

using namespace bam::emu;

TEST(TimingModel, OptaneCostsComeFromItsIopsAndBandwidthCaps) {
  const service_table t = make_service_table(timing_preset("optane-p5800x"));
  EXPECT_TRUE(t.throttled);
  EXPECT_EQ(t.min_latency_ns, 10'000u);
  EXPECT_EQ(t.cost_ps(false, 512), 196'078u);   // 1 / 5.1 M
  EXPECT_EQ(t.cost_ps(false, 4096), 666'667u);  // 1 / 1.5 M
  EXPECT_EQ(t.cost_ps(true, 512), 1'000'000u);  // 1 / 1 M
  EXPECT_EQ(t.cost_ps(true, 4096), 666'667u);   // 1 / 1.5 M
  // 128 KiB reads: 32 x 666.667 ns = 21.3 us of IOPS cost exceeds the bandwidth cost
  // (128 KiB / 7.2 GB/s = 18.2 us), so the IOPS cost holds.
  EXPECT_EQ(t.cost_ps(false, 128 * 1024), 32u * 666'667u);
  // Between 512 B and 4 KiB the cost is interpolated and stays between the two points.
  for (std::uint32_t b = 1024; b < 4096; b += 512) {
    EXPECT_GT(t.cost_ps(false, b), t.cost_ps(false, 512)) << b;
    EXPECT_LT(t.cost_ps(false, b), t.cost_ps(false, 4096)) << b;
  }
}

TEST(TimingModel, BandwidthCapDominatesLargeTransfersOfAFastDrive) {
  timing_model m;
  m.read_iops_512 = m.read_iops_4k = 10e6;  // 100 ns per command
  m.read_bandwidth = 1e9;                   // 1 GB/s: 4096 B take 4.096 us
  const service_table t = make_service_table(m);
  EXPECT_EQ(t.cost_ps(false, 4096), 4'096'000u);
  EXPECT_EQ(t.cost_ps(false, 512), 512'000u);
}

TEST(TimingModel, IdealAndNullReserveNothing) {
  for (const char* name : {"ideal", "null"}) {
    const service_table t = make_service_table(timing_preset(name));
    EXPECT_FALSE(t.throttled) << name;
    EXPECT_FALSE(t.timed()) << name;  // complete at once
    EXPECT_EQ(t.cost_ps(false, 4096), 0u) << name;
  }
  EXPECT_TRUE(timing_preset("ideal").moves_data);
  EXPECT_FALSE(timing_preset("null").moves_data);
}

TEST(TimingModel, LatencyAloneDelaysEveryCommandWithoutAPipe) {
  timing_model m;
  m.min_latency_ns = 50'000;  // no caps: nothing to book, but nothing completes sooner
  const service_table t = make_service_table(m);
  EXPECT_FALSE(t.throttled);
  EXPECT_TRUE(t.timed());
  EXPECT_EQ(t.cost_ps(false, 4096), 0u);
  // Due the latency after the fetch (the pipe's end is the fetch time: no pipe).
  const std::uint64_t fetched_ps = 7'000'000;  // 7 us
  EXPECT_EQ(due_ns(t, fetched_ps), 7'000u + 50'000u);
  // A throttled model is timed too.
  EXPECT_TRUE(make_service_table(timing_preset("optane-p5800x")).timed());
}

TEST(TimingModel, PipeRunsAtTheCapAndNeverBanksIdleTime) {
  const service_table t = make_service_table(timing_preset("optane-p5800x"));
  drive_clock clock;
  // 1000 commands arriving at once: the last completes 1000 service times plus the latency later.
  std::uint64_t end = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t c = t.cost_ps(false, 512);
    end = reserve(clock, 0, c) + c;
  }
  EXPECT_EQ(end, 1000u * 196'078u);
  EXPECT_EQ(due_ns(t, end), (1000u * 196'078u + 999) / 1000 + 10'000u);
  // After an idle gap the pipe starts at the arrival time: no burst credit.
  const std::uint64_t later = 1'000'000'000'000ull;  // 1 s
  EXPECT_EQ(reserve(clock, later, 500), later);
  EXPECT_EQ(clock.busy_until_ps, later + 500);
  // Arrivals while booked queue behind the booking.
  EXPECT_EQ(reserve(clock, later + 100, 200), later + 500);
}

TEST(TimingPresets, NamesAndErrors) {
  const auto names = timing_preset_names();
  EXPECT_EQ(names.size(), 5u);
  EXPECT_THROW(timing_preset("no-such-drive"), std::invalid_argument);
  EXPECT_THROW(load_timing_model("/nonexistent/model.json"), std::invalid_argument);
  EXPECT_THROW(timing_model_from_json(nlohmann::json::array()), std::invalid_argument);
  EXPECT_THROW(timing_model_from_json(nlohmann::json{{"latency_us", -1}}), std::invalid_argument);
  EXPECT_THROW(timing_model_from_json(nlohmann::json{{"read_iops", 5}}), std::invalid_argument);
}

TEST(TimingPresets, ConfigFilesEqualTheBuiltInPresets) {
  for (const auto& name : timing_preset_names()) {
    const timing_model file =
        load_timing_model(std::string(BAM_SOURCE_DIR) + "/configs/models/" + name + ".json");
    const timing_model built = timing_preset(name);
    EXPECT_EQ(to_json(file), to_json(built)) << name;
  }
}

TEST(TimingPresets, JsonRoundTrip) {
  timing_model m;
  m.min_latency_ns = 25'000;
  m.read_iops_512 = 1.1e6;
  m.read_iops_4k = 1.6e6;
  m.write_iops_512 = 351e3;
  m.write_iops_4k = 351e3;
  m.read_bandwidth = 8e9;
  m.write_bandwidth = 3.8e9;
  const timing_model back = timing_model_from_json(to_json(m));
  EXPECT_EQ(back.min_latency_ns, m.min_latency_ns);
  EXPECT_DOUBLE_EQ(back.read_iops_4k, m.read_iops_4k);
  EXPECT_DOUBLE_EQ(back.write_bandwidth, m.write_bandwidth);
  EXPECT_TRUE(back.moves_data);
}

TEST(TimingPresets, FromRunConfigModel) {
  const bam::ssd_model m{10.0, 5.1e6, 1.5e6, 1e6, 1.5e6, 7.2, 6.2, true};
  const timing_model t = from_ssd_model(m);
  EXPECT_EQ(t.min_latency_ns, 10'000u);
  EXPECT_DOUBLE_EQ(t.read_iops_512, 5.1e6);
  EXPECT_DOUBLE_EQ(t.write_iops_4k, 1.5e6);
  EXPECT_DOUBLE_EQ(t.read_bandwidth, 7.2e9);
  EXPECT_DOUBLE_EQ(t.write_bandwidth, 6.2e9);
  EXPECT_TRUE(t.moves_data);
  EXPECT_EQ(to_ssd_model(t), m);
}

// One table: what a config names and what the engine runs are the same numbers.
TEST(TimingPresets, ConfigPresetsAreTheEnginePresets) {
  for (const auto& name : timing_preset_names()) {
    const auto cfg = bam::find_ssd_model(name);
    ASSERT_TRUE(cfg.has_value()) << name;
    EXPECT_EQ(to_json(from_ssd_model(*cfg)), to_json(timing_preset(name))) << name;
  }
  EXPECT_FALSE(timing_preset("null").moves_data);
  EXPECT_EQ(timing_preset("optane-p5800x").min_latency_ns, 10'000u);
}

TEST(TimingPresets, ModelFileErrorsNameTheKey) {
  EXPECT_THROW(bam::load_ssd_model_file("/nonexistent/drive.json"), bam::config_error);
  try {
    bam::ssd_model_from_json(nlohmann::json{{"read_iops_4k", "fast"}}, "storage.model");
    FAIL() << "a string rate was accepted";
  } catch (const bam::config_error& e) {
    EXPECT_EQ(e.key(), "storage.model.read_iops_4k");
  }
}

}  // namespace
