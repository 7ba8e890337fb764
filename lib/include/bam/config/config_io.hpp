// bam/config/config_io.hpp: API. Strict JSON parsing, serialisation and validation of
// run_config: unknown keys, wrong types and impossible values throw config_error naming the key
// path ("workload.threads") and the allowed range. Also the schema (keys, types, defaults,
// ranges) for --help and docs/config.md.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/config/run_config.hpp"

namespace bam {

/// A rejected configuration value.
class config_error : public std::runtime_error {
 public:
  config_error(std::string key, const std::string& message)
      : std::runtime_error(key + ": " + message), key_(std::move(key)) {}
  /// Dotted key path, e.g. "workload.threads".
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

/// What a backend can do, known once it is opened; the config is checked against it before the
/// run (0 = no limit).
struct backend_caps {
  std::uint32_t max_ssds = 0;
  std::uint32_t max_queue_entries = 0;   ///< controller's CAP.MQES + 1
  std::uint32_t max_pairs_per_ssd = 0;   ///< I/O queue pairs a controller grants
  std::uint64_t max_transfer_bytes = 0;  ///< MDTS in bytes
  std::uint64_t media_bytes = 0;         ///< bytes of each SSD's namespace (or the file)
  std::uint32_t max_threads = 0;
};

/// Applies the JSON document `j` over `base` (unspecified keys keep base's values). Throws
/// config_error for unknown keys and wrong types or ranges of single values.
run_config parse_config(const nlohmann::json& j, const run_config& base = {});
/// Parses a file (JSON); config_error with key "--config" when it cannot be read or parsed.
run_config load_config_file(const std::string& path, const run_config& base = {});

/// The effective config in the same schema (every key present); parse_config(to_json(c)) == c.
nlohmann::json to_json(const run_config& c);

/// Checks every value against the schema's range for its key (what parse_config checks as it
/// reads a document), for configs built in code. Throws config_error naming the key.
void validate_ranges(const run_config& c);
/// validate_ranges, then the relations between values (io_size vs lba_size, dataset vs media,
/// backend needs).
void validate(const run_config& c);
/// The storage.device_paths checks of backend nvme (part of validate): one path per SSD
/// (storage.ssd_count), each an existing character device, no path twice. config_error naming
/// storage.device_paths otherwise. Every tool inherits them through validate().
void validate_device_paths(const storage_config& s);
/// The fault checks across keys (part of validate): storage.faults_per_ssd has one entry per
/// SSD or none; each SSD's fractions sum to at most 1; a delay has a length; faults only with
/// backends whose SSDs are emulated (host, emulated). config_error naming the key otherwise.
void validate_faults(const run_config& c);
/// Checks the config against what the opened backend reports.
void validate_against(const run_config& c, const backend_caps& caps);
/// Checks that report.json and report.csv can be written, so that a bad path is found before a
/// run rather than after it: an existing file is opened for appending (and left as it was), a
/// missing one is created and removed again. config_error naming the key and the path otherwise
/// (a missing directory, a directory, a read-only file). Not part of validate(): it touches the
/// file system, and --print-config must not.
void check_report_paths(const report_config& r);

/// One key of the schema.
struct schema_entry {
  std::string key;            ///< dotted path
  std::string type;           ///< "uint", "number", "bool", "string", "enum", "string list", ...
  std::string default_value;  ///< JSON of the struct default
  std::string allowed;        ///< e.g. "[1, 16777216]" or "random|sequential"
  std::string doc;
};
std::vector<schema_entry> config_schema();
/// The schema as a Markdown table (docs/config.md's table).
std::string schema_markdown();

/// Sets `value` at dotted `path` in `j`, creating objects on the way.
void set_json_path(nlohmann::json& j, std::string_view path, nlohmann::json value);
/// A command-line value for config key `key`: for a key whose value is a string (schema types
/// string and enum) the text itself (`--data 123` is the directory "123"; a JSON string literal
/// "..." is unquoted); for a model key (storage.model) the text itself unless it is an object
/// "{...}" (`null` is the preset "null"); for any other key JSON when it parses as JSON (numbers,
/// true, [..], {..}, "..."), else the text as a string. An object that names a key twice throws
/// config_error naming it under `key` (e.g. "storage.model.latency_us").
nlohmann::json parse_cli_value(std::string_view text, const std::string& key = {});

/// Parses JSON like nlohmann::json::parse, but refuses an object that names a key twice (which
/// nlohmann would take silently, keeping the last): config_error naming the key's dotted path
/// under `prefix` (e.g. "queues.depth"), its message ending with `where` (e.g. "in 'run.json'").
/// Text that is not JSON throws nlohmann::json::parse_error.
nlohmann::json parse_json_unique_keys(std::string_view text, const std::string& prefix = {},
                                      std::string_view where = {});
nlohmann::json parse_json_unique_keys(std::istream& in, const std::string& prefix = {},
                                      std::string_view where = {});

}  // namespace bam
