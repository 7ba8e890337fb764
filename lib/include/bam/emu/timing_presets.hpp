// bam/emu/timing_presets.hpp: API for naming and loading timing models (host only).
// The presets themselves live in one table (bam/config/ssd_model.hpp); this converts them to the
// engines' timing_model. Models are data: JSON files in configs/models/ have the same fields,
// so users add their own drives.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/config/ssd_model.hpp"
#include "bam/emu/timing_model.hpp"

namespace bam::emu {

/// The names of the built-in presets (bam/config/ssd_model.hpp holds the one table).
std::vector<std::string> timing_preset_names();

/// A preset by name (built-in or registered); throws std::invalid_argument for unknown names.
timing_model timing_preset(const std::string& name);

/// Parses a model in ssd_model's JSON form (bam/config/ssd_model.hpp). Missing caps mean no
/// cap. Throws std::invalid_argument on malformed input.
timing_model timing_model_from_json(const nlohmann::json& j);

/// The JSON form of a model (what timing_model_from_json reads back).
nlohmann::json to_json(const timing_model& m);

/// The engine's model of a config's ssd_model, and back.
timing_model from_ssd_model(const ssd_model& m);
ssd_model to_ssd_model(const timing_model& t);

/// A preset name, or a path to a JSON model file.
timing_model load_timing_model(const std::string& name_or_path);

}  // namespace bam::emu
