// Timing-model presets and their JSON form.
#include "bam/emu/timing_presets.hpp"

#include "bam/config/config_io.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace bam::emu {

std::vector<std::string> timing_preset_names() {
  return builtin_ssd_model_names();
}

timing_model timing_preset(const std::string& name) {
  const std::optional<ssd_model> m = find_ssd_model(name);
  if (!m) throw std::invalid_argument(fmt::format("unknown timing model preset '{}'", name));
  return from_ssd_model(*m);
}

timing_model timing_model_from_json(const nlohmann::json& j) {
  try {
    return from_ssd_model(ssd_model_from_json(j));
  } catch (const config_error& e) {
    throw std::invalid_argument(e.what());
  }
}

nlohmann::json to_json(const timing_model& m) {
  return bam::to_json(to_ssd_model(m));
}

timing_model from_ssd_model(const ssd_model& m) {
  timing_model t;
  t.min_latency_ns = static_cast<std::uint64_t>(m.latency_us * 1000.0 + 0.5);
  t.read_iops_512 = m.read_iops_512;
  t.read_iops_4k = m.read_iops_4k;
  t.write_iops_512 = m.write_iops_512;
  t.write_iops_4k = m.write_iops_4k;
  t.read_bandwidth = m.read_bandwidth_gbps * 1e9;
  t.write_bandwidth = m.write_bandwidth_gbps * 1e9;
  t.moves_data = m.moves_data;
  return t;
}

ssd_model to_ssd_model(const timing_model& t) {
  return ssd_model{static_cast<double>(t.min_latency_ns) / 1000.0,
                   t.read_iops_512,
                   t.read_iops_4k,
                   t.write_iops_512,
                   t.write_iops_4k,
                   t.read_bandwidth / 1e9,
                   t.write_bandwidth / 1e9,
                   t.moves_data};
}

timing_model load_timing_model(const std::string& name_or_path) {
  if (std::optional<ssd_model> m = find_ssd_model(name_or_path)) return from_ssd_model(*m);
  try {
    return from_ssd_model(load_ssd_model_file(name_or_path));
  } catch (const config_error& e) {
    throw std::invalid_argument(
        fmt::format("timing model '{}': not a preset, and {}", name_or_path, e.what()));
  }
}

}  // namespace bam::emu
