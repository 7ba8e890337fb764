// Strict parsing and serialisation of run_config, and its schema.
#include "bam/config/config_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "fields.hpp"

namespace bam {
namespace {

std::string parent_of(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? std::string{} : path.substr(0, dot);
}
std::string leaf_of(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

/// Names allowed directly under `prefix` ("" = top level).
std::vector<std::string> children(const std::vector<detail::field>& fields,
                                  const std::string& prefix) {
  std::vector<std::string> out;
  auto add = [&](const std::string& path) {
    if (parent_of(path) != prefix) return;
    const std::string leaf = leaf_of(path);
    if (std::find(out.begin(), out.end(), leaf) == out.end()) out.push_back(leaf);
  };
  for (const auto& s : detail::sections())
    add(s);
  for (const auto& f : fields)
    add(f.key);
  return out;
}

void apply(const nlohmann::json& obj, const std::string& prefix,
           const std::map<std::string, const detail::field*>& by_key,
           const std::vector<detail::field>& fields) {
  const auto secs = detail::sections();
  if (!obj.is_object()) {
    throw config_error(prefix.empty() ? "(document)" : prefix,
                       fmt::format("expected an object, got {}", obj.type_name()));
  }
  for (const auto& [k, v] : obj.items()) {
    const std::string path = prefix.empty() ? k : prefix + "." + k;
    if (auto it = by_key.find(path); it != by_key.end()) {
      it->second->set(v);
    } else if (std::find(secs.begin(), secs.end(), path) != secs.end()) {
      apply(v, path, by_key, fields);
    } else {
      throw config_error(
          path, fmt::format("unknown key, allowed {}", fmt::join(children(fields, prefix), ", ")));
    }
  }
}

}  // namespace

run_config parse_config(const nlohmann::json& j, const run_config& base) {
  run_config c = base;
  const std::vector<detail::field> fields = detail::fields_of(c);
  std::map<std::string, const detail::field*> by_key;
  for (const auto& f : fields)
    by_key[f.key] = &f;
  apply(j, "", by_key, fields);
  return c;
}

run_config load_config_file(const std::string& path, const run_config& base) {
  std::ifstream in(path);
  if (!in) throw config_error("--config", fmt::format("cannot read '{}'", path));
  nlohmann::json j;
  try {
    j = parse_json_unique_keys(in, "", fmt::format("in '{}'", path));
  } catch (const nlohmann::json::parse_error& e) {
    throw config_error("--config", fmt::format("'{}' is not valid JSON: {}", path, e.what()));
  }
  return parse_config(j, base);
}

void validate_ranges(const run_config& c) {
  run_config copy = c;
  for (const auto& f : detail::fields_of(copy))
    f.set(f.get());  // the schema's own check of the key, on the value the struct holds
}

nlohmann::json to_json(const run_config& c) {
  run_config copy = c;
  nlohmann::json j = nlohmann::json::object();
  for (const auto& f : detail::fields_of(copy))
    set_json_path(j, f.key, f.get());
  return j;
}

std::vector<schema_entry> config_schema() {
  run_config defaults{};
  std::vector<schema_entry> out;
  for (const auto& f : detail::fields_of(defaults)) {
    out.push_back(schema_entry{f.key, f.type, f.get().dump(), f.allowed, f.doc});
  }
  return out;
}

std::string schema_markdown() {
  std::ostringstream os;
  os << "| key | type | default | allowed | meaning |\n";
  os << "|---|---|---|---|---|\n";
  for (const auto& e : config_schema()) {
    std::string allowed = e.allowed;
    std::replace(allowed.begin(), allowed.end(), '|', '/');
    os << "| `" << e.key << "` | " << e.type << " | `" << e.default_value << "` | " << allowed
       << " | " << e.doc << " |\n";
  }
  return os.str();
}

void set_json_path(nlohmann::json& j, std::string_view path, nlohmann::json value) {
  nlohmann::json* node = &j;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    const std::string part(
        path.substr(start, dot == std::string_view::npos ? path.npos : dot - start));
    if (part.empty()) throw config_error(std::string(path), "empty component in key path");
    if (!node->is_object()) *node = nlohmann::json::object();
    if (dot == std::string_view::npos) {
      (*node)[part] = std::move(value);
      return;
    }
    node = &(*node)[part];
    start = dot + 1;
  }
}

namespace {

/// The schema type of `key` ("" for no key or one the schema does not know).
std::string key_type(const std::string& key) {
  if (key.empty()) return {};
  run_config c{};
  for (const detail::field& f : detail::fields_of(c)) {
    if (f.key == key) return f.type;
  }
  return {};
}

}  // namespace

nlohmann::json parse_cli_value(std::string_view text, const std::string& key) {
  const bool quoted = text.size() >= 2 && text.front() == '"' && text.back() == '"';
  const std::string type = key_type(key);
  const auto first = text.find_first_not_of(" \t\r\n");  // JSON may start with white space
  const bool object = first != std::string_view::npos && text[first] == '{';
  const bool text_itself = type == "string" || type == "enum" || (type == "model" && !object);
  if (!quoted && text_itself) return nlohmann::json(std::string(text));
  try {
    return parse_json_unique_keys(text, key);
  } catch (const nlohmann::json::parse_error&) {
    return nlohmann::json(std::string(text));
  }
}

}  // namespace bam
