// bam/config/ssd_model.hpp: API. The timing model of an emulated SSD as a config value (a plain
// struct), and the registry of named presets ("optane-p5800x", "ideal", ...) that configs refer
// to by name. Engines that implement timing models register or refine presets here.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace bam {

/// Parameters of an SSD timing model. 0 means "no limit" for the rates.
struct ssd_model {
  double latency_us = 0;      ///< base read/write access latency
  double read_iops_512 = 0;   ///< random read IOPS at 512 B
  double read_iops_4k = 0;    ///< random read IOPS at 4 KiB
  double write_iops_512 = 0;  ///< random write IOPS at 512 B
  double write_iops_4k = 0;   ///< random write IOPS at 4 KiB
  double bandwidth_gbps = 0;  ///< sequential bandwidth, GB/s (10^9 bytes)

  bool operator==(const ssd_model&) const = default;
};

/// A config's `storage.model`: a preset name, or an inline model (then `name` is empty).
struct model_spec {
  std::string name = "ideal";
  std::optional<ssd_model> inline_model;

  bool operator==(const model_spec&) const = default;
};

/// Named presets. Thread-safe; a later registration of a name replaces the earlier one.
void register_ssd_model(const std::string& name, const ssd_model& model);
std::optional<ssd_model> find_ssd_model(const std::string& name);
std::vector<std::string> ssd_model_names();  ///< sorted

/// The model a spec stands for; nullopt for an unknown preset name.
std::optional<ssd_model> resolve(const model_spec& spec);

}  // namespace bam
