// bam/config/ssd_model.hpp: API. The timing model of an emulated SSD as a config value (a plain
// struct), its JSON form, and THE table of named presets ("optane-p5800x", "ideal", ...) that
// configs, model files and the engines (via bam/emu/timing_presets.hpp) all resolve through.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bam {

/// Parameters of an SSD timing model. 0 means "no limit" for the rates.
struct ssd_model {
  double latency_us = 0;            ///< minimum read/write latency, added after the pipe
  double read_iops_512 = 0;         ///< random read IOPS cap at 512 B
  double read_iops_4k = 0;          ///< random read IOPS cap at 4 KiB
  double write_iops_512 = 0;        ///< random write IOPS cap at 512 B
  double write_iops_4k = 0;         ///< random write IOPS cap at 4 KiB
  double read_bandwidth_gbps = 0;   ///< read bandwidth cap (the drive's own link), 10^9 B/s
  double write_bandwidth_gbps = 0;  ///< write bandwidth cap, 10^9 B/s
  bool moves_data = true;           ///< false: completes without touching media (`null`)

  bool operator==(const ssd_model&) const = default;
};

/// A config's `storage.model`: a preset name, a path to a model file (a name containing '/' or
/// ending in ".json"), or an inline model (then `name` is empty).
struct model_spec {
  std::string name = "ideal";
  std::optional<ssd_model> inline_model;

  bool operator==(const model_spec&) const = default;
};

/// The JSON form: {"latency_us", "read_iops_512", "read_iops_4k", "write_iops_512",
/// "write_iops_4k", "read_bandwidth_gbps", "write_bandwidth_gbps", "moves_data"}. Reading:
/// missing numbers are 0 (no cap), `moves_data` defaults to true, "name" and "source" strings
/// (a model file's description) are allowed and ignored; anything else throws config_error
/// naming `key` + "." + the offending key and what is allowed.
nlohmann::json to_json(const ssd_model& m);
ssd_model ssd_model_from_json(const nlohmann::json& j, const std::string& key = "model");
/// The keys of the JSON form, comma separated (for messages and docs).
const char* ssd_model_keys();

/// Presets. Thread-safe; a later registration of a name replaces the earlier one.
void register_ssd_model(const std::string& name, const ssd_model& model);
std::optional<ssd_model> find_ssd_model(const std::string& name);
std::vector<std::string> ssd_model_names();  ///< sorted
/// The presets bamkit ships (BaM paper Table 2 / dissertation Table 2.1, plus ideal and null).
std::vector<std::string> builtin_ssd_model_names();

/// True when a model name is a path to a model file rather than a preset name.
bool is_model_file(const std::string& name);
/// Reads a model file; throws config_error (key "storage.model") when it cannot be read or
/// parsed.
ssd_model load_ssd_model_file(const std::string& path);

/// The model a spec stands for; nullopt for an unknown preset name. A file path is loaded
/// (errors throw config_error).
std::optional<ssd_model> resolve(const model_spec& spec);

}  // namespace bam
