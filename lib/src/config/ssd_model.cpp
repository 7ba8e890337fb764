// The SSD model presets (the one table every part of bamkit resolves names through) and the
// model's JSON form.
#include "bam/config/ssd_model.hpp"

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>

#include "bam/config/config_io.hpp"

namespace bam {
namespace {

// IOPS and latency: BaM paper Table 2 / dissertation Table 2.1. Bandwidth caps: the drives'
// sequential ratings (their own PCIe links): P5800X 7.2/6.2 GB/s, PM1735 8.0/3.8 GB/s,
// 980 PRO 7.0/5.0 GB/s. configs/models/<name>.json hold the same values (a test checks).
const std::pair<const char*, ssd_model> builtin[] = {
    {"optane-p5800x", {10.0, 5.1e6, 1.5e6, 1.0e6, 1.5e6, 7.2, 6.2, true}},
    {"pm1735", {25.0, 1.1e6, 1.6e6, 351e3, 351e3, 8.0, 3.8, true}},
    {"980pro", {100.0, 750e3, 750e3, 172e3, 172e3, 7.0, 5.0, true}},
    {"ideal", {0, 0, 0, 0, 0, 0, 0, true}},  // no latency, no rate limit
    {"null", {0, 0, 0, 0, 0, 0, 0, false}},  // completes without touching the media
};

constexpr std::array<std::pair<const char*, double ssd_model::*>, 7> numbers = {{
    {"latency_us", &ssd_model::latency_us},
    {"read_iops_512", &ssd_model::read_iops_512},
    {"read_iops_4k", &ssd_model::read_iops_4k},
    {"write_iops_512", &ssd_model::write_iops_512},
    {"write_iops_4k", &ssd_model::write_iops_4k},
    {"read_bandwidth_gbps", &ssd_model::read_bandwidth_gbps},
    {"write_bandwidth_gbps", &ssd_model::write_bandwidth_gbps},
}};

struct registry {
  std::mutex mutex;
  std::map<std::string, ssd_model> models;
  registry() {
    for (const auto& [name, model] : builtin)
      models[name] = model;
  }
};

registry& get() {
  static registry r;
  return r;
}

[[noreturn]] void bad(const std::string& key, const std::string& what, const nlohmann::json& v) {
  throw config_error(key, fmt::format("expected {}, got {}", what, v.dump()));
}

}  // namespace

const char* ssd_model_keys() {
  return "latency_us, read_iops_512, read_iops_4k, write_iops_512, write_iops_4k, "
         "read_bandwidth_gbps, write_bandwidth_gbps, moves_data";
}

nlohmann::json to_json(const ssd_model& m) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [name, member] : numbers)
    o[name] = m.*member;
  o["moves_data"] = m.moves_data;
  return o;
}

ssd_model ssd_model_from_json(const nlohmann::json& j, const std::string& key) {
  if (!j.is_object()) bad(key, "a preset name or an object", j);
  ssd_model m{};
  for (const auto& [k, v] : j.items()) {
    const std::string sub = key + "." + k;
    if (k == "moves_data") {
      if (!v.is_boolean()) bad(sub, "true or false", v);
      m.moves_data = v.get<bool>();
      continue;
    }
    if (k == "name" || k == "source") {
      if (!v.is_string()) bad(sub, "a string", v);
      continue;
    }
    bool known = false;
    for (const auto& [name, member] : numbers) {
      if (k != name) continue;
      known = true;
      if (!v.is_number()) bad(sub, "a number", v);
      const auto x = v.get<double>();
      if (!(x >= 0 && x <= 1e12))
        throw config_error(sub, fmt::format("{} is out of range, allowed [0, 1e12]", x));
      m.*member = x;
    }
    if (!known) throw config_error(sub, fmt::format("unknown key, allowed {}", ssd_model_keys()));
  }
  return m;
}

void register_ssd_model(const std::string& name, const ssd_model& model) {
  registry& r = get();
  std::lock_guard lock(r.mutex);
  r.models[name] = model;
}

std::optional<ssd_model> find_ssd_model(const std::string& name) {
  registry& r = get();
  std::lock_guard lock(r.mutex);
  auto it = r.models.find(name);
  if (it == r.models.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> ssd_model_names() {
  registry& r = get();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, model] : r.models)
    names.push_back(name);
  return names;
}

std::vector<std::string> builtin_ssd_model_names() {
  std::vector<std::string> names;
  for (const auto& [name, model] : builtin)
    names.emplace_back(name);
  return names;
}

bool is_model_file(const std::string& name) {
  return name.find('/') != std::string::npos ||
         (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
}

ssd_model load_ssd_model_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw config_error("storage.model", fmt::format("cannot read model file '{}'", path));
  nlohmann::json j;
  try {
    j = parse_json_unique_keys(in, "storage.model(" + path + ")");
  } catch (const nlohmann::json::exception& e) {
    throw config_error("storage.model", fmt::format("model file '{}': {}", path, e.what()));
  }
  return ssd_model_from_json(j, "storage.model(" + path + ")");
}

std::optional<ssd_model> resolve(const model_spec& spec) {
  if (spec.inline_model) return spec.inline_model;
  if (is_model_file(spec.name)) return load_ssd_model_file(spec.name);
  return find_ssd_model(spec.name);
}

}  // namespace bam
