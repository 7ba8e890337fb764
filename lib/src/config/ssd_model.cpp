// The SSD model preset registry, seeded with the presets the configs name.
#include "bam/config/ssd_model.hpp"

#include <map>
#include <mutex>

namespace bam {
namespace {

struct registry {
  std::mutex mutex;
  std::map<std::string, ssd_model> models;
  registry() {
    // Seed values from the vendors' data sheets (random 4 KiB / 512 B IOPS, sequential read
    // bandwidth, typical read latency). The GPU timing models own their exact meaning and may
    // re-register these names with refined parameters.
    models["optane-p5800x"] = {5.0, 5'000'000, 1'500'000, 1'000'000, 1'500'000, 7.2};
    models["pm1735"] = {80.0, 1'500'000, 1'500'000, 250'000, 250'000, 8.0};
    models["980pro"] = {60.0, 1'000'000, 1'000'000, 1'000'000, 1'000'000, 7.0};
    models["ideal"] = {0, 0, 0, 0, 0, 0};  // no latency, no rate limit
    models["null"] = {0, 0, 0, 0, 0, 0};   // completes without touching the media
  }
};

registry& get() {
  static registry r;
  return r;
}

}  // namespace

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

std::optional<ssd_model> resolve(const model_spec& spec) {
  if (spec.inline_model) return spec.inline_model;
  return find_ssd_model(spec.name);
}

}  // namespace bam
