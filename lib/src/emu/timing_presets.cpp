// Timing-model presets and their JSON form.
#include "bam/emu/timing_presets.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace bam::emu {
namespace {

struct preset {
  const char* name;
  timing_model model;
};

// IOPS and latency: BaM paper Table 2 / dissertation Table 2.1. Bandwidth caps: the drives'
// sequential ratings (their own PCIe links): P5800X 7.2/6.2 GB/s, PM1735 8.0/3.8 GB/s,
// 980 PRO 7.0/5.0 GB/s.
const preset presets[] = {
    {"optane-p5800x", {10'000, 5.1e6, 1.5e6, 1.0e6, 1.5e6, 7.2e9, 6.2e9, true}},
    {"pm1735", {25'000, 1.1e6, 1.6e6, 351e3, 351e3, 8.0e9, 3.8e9, true}},
    {"980pro", {100'000, 750e3, 750e3, 172e3, 172e3, 7.0e9, 5.0e9, true}},
    {"ideal", {0, 0, 0, 0, 0, 0, 0, true}},
    {"null", {0, 0, 0, 0, 0, 0, 0, false}},
};

double number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) return 0;
  if (!j.at(key).is_number() || j.at(key).get<double>() < 0)
    throw std::invalid_argument(fmt::format("timing model: '{}' must be a number >= 0", key));
  return j.at(key).get<double>();
}

}  // namespace

std::vector<std::string> timing_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : presets)
    names.emplace_back(p.name);
  return names;
}

timing_model timing_preset(const std::string& name) {
  for (const auto& p : presets)
    if (name == p.name) return p.model;
  throw std::invalid_argument(fmt::format("unknown timing model preset '{}'", name));
}

timing_model timing_model_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("timing model: expected a JSON object");
  timing_model m;
  m.min_latency_ns = static_cast<std::uint64_t>(number(j, "min_latency_us") * 1000.0 + 0.5);
  for (const char* key : {"read_iops", "write_iops"}) {
    if (!j.contains(key)) continue;
    const auto& t = j.at(key);
    if (!t.is_object())
      throw std::invalid_argument(fmt::format("timing model: '{}' must map sizes to IOPS", key));
    const double v512 = number(t, "512"), v4k = number(t, "4096");
    (key[0] == 'r' ? m.read_iops_512 : m.write_iops_512) = v512;
    (key[0] == 'r' ? m.read_iops_4k : m.write_iops_4k) = v4k;
  }
  m.read_bandwidth = number(j, "read_bandwidth_gbps") * 1e9;
  m.write_bandwidth = number(j, "write_bandwidth_gbps") * 1e9;
  if (j.contains("moves_data")) m.moves_data = j.at("moves_data").get<bool>();
  return m;
}

nlohmann::json to_json(const timing_model& m) {
  return {{"min_latency_us", static_cast<double>(m.min_latency_ns) / 1000.0},
          {"read_iops", {{"512", m.read_iops_512}, {"4096", m.read_iops_4k}}},
          {"write_iops", {{"512", m.write_iops_512}, {"4096", m.write_iops_4k}}},
          {"read_bandwidth_gbps", m.read_bandwidth / 1e9},
          {"write_bandwidth_gbps", m.write_bandwidth / 1e9},
          {"moves_data", m.moves_data}};
}

timing_model from_ssd_model(const ssd_model& m) {
  timing_model t;
  t.min_latency_ns = static_cast<std::uint64_t>(m.latency_us * 1000.0 + 0.5);
  t.read_iops_512 = m.read_iops_512;
  t.read_iops_4k = m.read_iops_4k;
  t.write_iops_512 = m.write_iops_512;
  t.write_iops_4k = m.write_iops_4k;
  t.read_bandwidth = t.write_bandwidth = m.bandwidth_gbps * 1e9;
  return t;
}

timing_model load_timing_model(const std::string& name_or_path) {
  for (const auto& p : presets)
    if (name_or_path == p.name) return p.model;
  std::ifstream in(name_or_path);
  if (!in)
    throw std::invalid_argument(
        fmt::format("timing model '{}': not a preset and not a readable file", name_or_path));
  try {
    return timing_model_from_json(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("timing model '{}': {}", name_or_path, e.what()));
  }
}

}  // namespace bam::emu
