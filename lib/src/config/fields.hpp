// Internal: the list of run_config's keys, each with a getter and a strict setter. The one place
// that ties key names, types and ranges to the struct members.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/config/run_config.hpp"

namespace bam::detail {

struct field {
  std::string key;      ///< dotted path
  std::string type;     ///< for the schema
  std::string allowed;  ///< for messages and the schema
  std::string doc;
  std::function<nlohmann::json()> get;
  std::function<void(const nlohmann::json&)> set;  ///< throws config_error
};

/// The fields of `c`, bound to its members.
std::vector<field> fields_of(run_config& c);

/// Section names (the top-level keys and nested objects, e.g. "storage.media").
std::vector<std::string> sections();

}  // namespace bam::detail
