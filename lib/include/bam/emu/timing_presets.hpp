// bam/emu/timing_presets.hpp: API for naming and loading timing models (host only).
// Built-in presets from the BaM paper's Table 2 (dissertation Table 2.1): optane-p5800x, pm1735,
// 980pro; plus ideal (no caps) and null (no data movement). Models are data: JSON files in
// configs/models/ have the same fields, so users can add their own drives.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/config/ssd_model.hpp"
#include "bam/emu/timing_model.hpp"

namespace bam::emu {

/// The names of the built-in presets.
std::vector<std::string> timing_preset_names();

/// A built-in preset by name; throws std::invalid_argument for unknown names.
timing_model timing_preset(const std::string& name);

/// Parses a model: {"min_latency_us", "read_iops": {"512", "4096"}, "write_iops": {...},
/// "read_bandwidth_gbps", "write_bandwidth_gbps", "moves_data"}. Missing caps mean no cap.
/// Throws std::invalid_argument on malformed input.
timing_model timing_model_from_json(const nlohmann::json& j);

/// The JSON form of a model (what timing_model_from_json reads back).
nlohmann::json to_json(const timing_model& m);

/// The engine's model of a run config's `ssd_model` (bam/config): one bandwidth cap for reads
/// and writes, data moved.
timing_model from_ssd_model(const ssd_model& m);

/// A preset name, or a path to a JSON model file.
timing_model load_timing_model(const std::string& name_or_path);

}  // namespace bam::emu
