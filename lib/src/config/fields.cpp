// The keys of the config schema bound to run_config's members, with strict setters.
#include "fields.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <limits>
#include <string_view>
#include <utility>

#include "bam/cache/cache_config.hpp"
#include "bam/config/config_io.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/nvme/names.hpp"
#include "bam/queue/queue_state.hpp"
#include "bam/table/taxi_query.hpp"

namespace bam {

namespace {
constexpr std::array<const char*, 6> backend_names = {"emulated", "nvme",     "host",
                                                      "uring",    "zerocopy", "cufile"};
constexpr std::array<const char*, 3> media_names = {"host", "gpu", "file"};
constexpr std::array<const char*, 2> pattern_names = {"random", "sequential"};
constexpr std::array<const char*, 3> op_names = {"read", "write", "mixed"};
constexpr std::array<const char*, 3> access_mode_names = {"plain", "coalesced", "reuse"};
constexpr std::array<const char*, 2> temperature_names = {"hot", "cold"};
constexpr std::array<const char*, 2> layout_names = {"thread", "warp"};
constexpr std::array<const char*, 2> queue_mapping_names = {"warp", "thread"};
constexpr std::array<const char*, 3> engine_placement_names = {"auto", "scheduler", "first-sms"};
constexpr std::array<const char*, 2> queue_access_names = {"auto", "shared"};
constexpr std::array<const char*, 2> protocol_names = {"hardware", "emulator"};
constexpr std::array<const char*, 2> cache_error_names = {"flag", "trap"};        // cache errors
constexpr std::array<const char*, 3> taxi_impl_names = {"bam", "tiled", "both"};  // taxi
constexpr std::array<const char*, 2> taxi_source_names = {"ssd", "page_cache"};   // taxi
constexpr std::array<const char*, 5> graph_access_names = {"gpu-memory", "host-zero-copy", "uvm",
                                                           "bam", "bam-preloaded"};
}  // namespace

const char* to_string(backend_kind k) {
  return backend_names[static_cast<std::size_t>(k)];
}
const char* to_string(media_kind k) {
  return media_names[static_cast<std::size_t>(k)];
}
const char* to_string(io_pattern p) {
  return pattern_names[static_cast<std::size_t>(p)];
}
const char* to_string(io_op o) {
  return op_names[static_cast<std::size_t>(o)];
}
const char* to_string(cache_access_mode m) {
  return access_mode_names[static_cast<std::size_t>(m)];
}
const char* to_string(cache_temperature t) {
  return temperature_names[static_cast<std::size_t>(t)];
}
const char* to_string(cache_bench_layout l) {
  return layout_names[static_cast<std::size_t>(l)];
}
const char* to_string(gpu_queue_mapping m) {
  return queue_mapping_names[static_cast<std::size_t>(m)];
}
const char* to_string(gpu_engine_placement p) {
  return engine_placement_names[static_cast<std::size_t>(p)];
}
const char* to_string(gpu_queue_access a) {
  return queue_access_names[static_cast<std::size_t>(a)];
}
const char* to_string(storage_protocol p) {
  return protocol_names[static_cast<std::size_t>(p)];
}

const char* to_string(cache_error_mode m) {
  return cache_error_names[static_cast<std::size_t>(m)];
}
const char* to_string(graph_access a) {
  return graph_access_names[static_cast<std::size_t>(a)];
}

// ---- taxi (issue 16) ----
const char* to_string(taxi_impl i) {
  return taxi_impl_names[static_cast<std::size_t>(i)];
}
const char* to_string(taxi_tiled_source s) {
  return taxi_source_names[static_cast<std::size_t>(s)];
}
// ---- end taxi ----

namespace detail {
namespace {

std::string type_name(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return fmt::format("unsigned integer {}", v.dump());
  if (v.is_number_integer()) return fmt::format("integer {}", v.dump());
  if (v.is_number_float()) return fmt::format("number {}", v.dump());
  if (v.is_string()) return fmt::format("string {}", v.dump());
  if (v.is_boolean()) return fmt::format("boolean {}", v.dump());
  if (v.is_null()) return "null";
  if (v.is_array()) return "an array";
  return "an object";
}

[[noreturn]] void wrong_type(const std::string& key, const char* expected,
                             const nlohmann::json& v) {
  throw config_error(key, fmt::format("expected {}, got {}", expected, type_name(v)));
}

/// `v` as an unsigned integer in [lo, hi]; config_error naming `key` and `allowed` otherwise.
std::uint64_t uint_in_range(const std::string& key, const nlohmann::json& v, std::uint64_t lo,
                            std::uint64_t hi, const std::string& allowed) {
  if (!v.is_number_integer()) wrong_type(key, "an unsigned integer", v);
  if (!v.is_number_unsigned() && v.get<std::int64_t>() < 0) {
    throw config_error(key, fmt::format("{} is out of range, allowed {}", v.dump(), allowed));
  }
  const auto x = v.get<std::uint64_t>();
  if (x < lo || x > hi) {
    throw config_error(key, fmt::format("{} is out of range, allowed {}", x, allowed));
  }
  return x;
}

template <class T>
field uint_field(std::string key, T& ref, std::uint64_t lo, std::uint64_t hi, std::string doc) {
  std::string allowed = fmt::format("[{}, {}]", lo, hi);
  return field{key,
               "uint",
               allowed,
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key, lo, hi, allowed](const nlohmann::json& v) {
                 ref = static_cast<T>(uint_in_range(key, v, lo, hi, allowed));
               }};
}

/// An unsigned integer that is a power of two in [lo, hi].
template <class T>
field pow2_uint_field(std::string key, T& ref, std::uint64_t lo, std::uint64_t hi,
                      std::string doc) {
  std::string allowed = fmt::format("powers of two in [{}, {}]", lo, hi);
  return field{
      key,
      "uint",
      allowed,
      std::move(doc),
      [&ref] { return nlohmann::json(ref); },
      [&ref, key, lo, hi, allowed](const nlohmann::json& v) {
        const std::uint64_t x = uint_in_range(key, v, 0, hi, allowed);
        if (!std::has_single_bit(x)) {
          throw config_error(key, fmt::format("{} is not a power of two, allowed {}", x, allowed));
        }
        if (x < lo) {
          throw config_error(key, fmt::format("{} is out of range, allowed {}", x, allowed));
        }
        ref = static_cast<T>(x);
      }};
}

field uint_choice_field(std::string key, std::uint32_t& ref, std::vector<std::uint32_t> choices,
                        std::string doc) {
  std::string allowed = fmt::format("{}", fmt::join(choices, "|"));
  return field{key,
               "uint",
               allowed,
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key, choices, allowed](const nlohmann::json& v) {
                 if (!v.is_number_integer()) wrong_type(key, "an unsigned integer", v);
                 for (std::uint32_t c : choices) {
                   if (v.get<std::int64_t>() == std::int64_t{c}) {
                     ref = c;
                     return;
                   }
                 }
                 throw config_error(
                     key, fmt::format("{} is not allowed, allowed {}", v.dump(), allowed));
               }};
}

field number_field(std::string key, double& ref, double lo, double hi, std::string doc) {
  std::string allowed = fmt::format("[{}, {}]", lo, hi);
  return field{key,
               "number",
               allowed,
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key, lo, hi, allowed](const nlohmann::json& v) {
                 if (!v.is_number()) wrong_type(key, "a number", v);
                 const auto x = v.get<double>();
                 if (!(x >= lo && x <= hi)) {
                   throw config_error(key,
                                      fmt::format("{} is out of range, allowed {}", x, allowed));
                 }
                 ref = x;
               }};
}

field bool_field(std::string key, bool& ref, std::string doc) {
  return field{key,
               "bool",
               "true|false",
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key](const nlohmann::json& v) {
                 if (!v.is_boolean()) wrong_type(key, "true or false", v);
                 ref = v.get<bool>();
               }};
}

field string_field(std::string key, std::string& ref, std::string doc) {
  return field{key,
               "string",
               "any string",
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key](const nlohmann::json& v) {
                 if (!v.is_string()) wrong_type(key, "a string", v);
                 ref = v.get<std::string>();
               }};
}

/// A string restricted to `choices`, stored as a string.
field string_choice_field(std::string key, std::string& ref, std::vector<std::string> choices,
                          std::string doc) {
  std::string allowed = fmt::format("{}", fmt::join(choices, "|"));
  return field{key,
               "enum",
               allowed,
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key, choices, allowed](const nlohmann::json& v) {
                 if (!v.is_string()) wrong_type(key, "a string", v);
                 for (const std::string& c : choices) {
                   if (v.get<std::string>() == c) {
                     ref = c;
                     return;
                   }
                 }
                 throw config_error(
                     key, fmt::format("{} is not allowed, allowed {}", v.dump(), allowed));
               }};
}

template <class E, std::size_t N>
field enum_field(std::string key, E& ref, const std::array<const char*, N>& names,
                 std::string doc) {
  std::string allowed = fmt::format("{}", fmt::join(names, "|"));
  return field{key,
               "enum",
               allowed,
               std::move(doc),
               [&ref, &names] { return nlohmann::json(names[static_cast<std::size_t>(ref)]); },
               [&ref, &names, key, allowed](const nlohmann::json& v) {
                 if (!v.is_string()) wrong_type(key, "a string", v);
                 const auto s = v.get<std::string>();
                 for (std::size_t i = 0; i < N; ++i) {
                   if (s == names[i]) {
                     ref = static_cast<E>(i);
                     return;
                   }
                 }
                 throw config_error(
                     key, fmt::format("{} is not allowed, allowed {}", v.dump(), allowed));
               }};
}

field string_list_field(std::string key, std::vector<std::string>& ref,
                        std::vector<std::string> choices, std::string doc) {
  std::string allowed =
      choices.empty() ? "list of strings" : fmt::format("list of {}", fmt::join(choices, "|"));
  return field{key,
               "string list",
               allowed,
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key, choices, allowed](const nlohmann::json& v) {
                 if (!v.is_array()) wrong_type(key, "an array of strings", v);
                 std::vector<std::string> out;
                 for (const auto& e : v) {
                   if (!e.is_string()) wrong_type(key, "an array of strings", v);
                   const auto s = e.get<std::string>();
                   if (!choices.empty()) {
                     bool ok = false;
                     for (const auto& c : choices)
                       ok = ok || c == s;
                     if (!ok) {
                       throw config_error(
                           key, fmt::format("\"{}\" is not allowed, allowed {}", s, allowed));
                     }
                   }
                   out.push_back(s);
                 }
                 ref = std::move(out);
               }};
}

/// An unsigned integer in [lo, hi], or null (not given).
field optional_uint_field(std::string key, std::optional<std::uint64_t>& ref, std::uint64_t lo,
                          std::uint64_t hi, std::string doc) {
  std::string allowed = fmt::format("null or [{}, {}]", lo, hi);
  return field{key,
               "uint or null",
               allowed,
               std::move(doc),
               [&ref] { return ref ? nlohmann::json(*ref) : nlohmann::json(nullptr); },
               [&ref, key, lo, hi, allowed](const nlohmann::json& v) {
                 if (v.is_null()) {
                   ref.reset();
                   return;
                 }
                 ref = uint_in_range(key, v, lo, hi, allowed);
               }};
}

// storage.model: a preset name, a model file path, or an inline object of ssd_model's fields.
field model_field(std::string key, model_spec& ref, std::string doc) {
  std::string allowed = fmt::format("preset name, model file (.json), or {{{}}}", ssd_model_keys());
  return field{key,
               "model",
               allowed,
               std::move(doc),
               [&ref] {
                 if (!ref.inline_model) return nlohmann::json(ref.name);
                 return to_json(*ref.inline_model);
               },
               [&ref, key](const nlohmann::json& v) {
                 if (v.is_string()) {
                   ref = model_spec{v.get<std::string>(), std::nullopt};
                   return;
                 }
                 ref = model_spec{"", ssd_model_from_json(v, key)};
               }};
}

constexpr std::uint64_t max_bytes = std::uint64_t{1} << 50;
constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();

// ---- faults (issue 14): storage.faults.*, storage.faults_per_ssd, queues.timeout_ms ---------

constexpr std::uint64_t max_delay_us = 3'600'000'000;  // an hour
constexpr std::uint32_t max_timeout_ms = 3'600'000;    // an hour

nvme::status status_of_code(std::uint16_t code) {
  return nvme::status{static_cast<std::uint8_t>(code >> 8), static_cast<std::uint8_t>(code)};
}

/// An injected error status: a status name as bamkit prints it (nvme::status_name; any case,
/// '_' for ' ') or the number SCT << 8 | SC. A controller's status: not success, not one of
/// bamkit's own host-side codes. Written back as the name when the status has one.
field status_field(std::string key, std::uint16_t& ref, std::string doc) {
  std::string allowed =
      "a status name as bamkit prints it (case and _ for space ignored, e.g. \"Unrecovered Read "
      "Error\") or SCT*256+SC in [1, 2047]; not success, not bamkit's own host codes";
  return field{key,
               "status",
               allowed,
               std::move(doc),
               [&ref] {
                 const nvme::status st = status_of_code(ref);
                 const std::string_view name = nvme::status_name(st);
                 const auto back = nvme::status_from_name(name);
                 if (back && *back == st) return nlohmann::json(std::string(name));
                 return nlohmann::json(ref);
               },
               [&ref, key, allowed](const nlohmann::json& v) {
                 std::uint16_t code = 0;
                 if (v.is_string()) {
                   const auto st = nvme::status_from_name(v.get<std::string>());
                   if (!st) {
                     throw config_error(key, fmt::format("{} is not a status name, allowed {}",
                                                         v.dump(), allowed));
                   }
                   code = st->code();
                 } else if (v.is_number_integer()) {
                   code = static_cast<std::uint16_t>(uint_in_range(key, v, 1, 0x7ff, allowed));
                 } else {
                   wrong_type(key, "a status name or number", v);
                 }
                 const nvme::status st = status_of_code(code);
                 if (st.ok() || st == nvme::sc::host_timeout || st == nvme::sc::host_queue_failed) {
                   throw config_error(key, fmt::format("{} ({}) is not allowed, allowed {}",
                                                       v.dump(), nvme::status_name(st), allowed));
                 }
                 ref = code;
               }};
}

/// The keys of one faults object (storage.faults, an entry of storage.faults_per_ssd) under
/// `prefix`, bound to `f`.
std::vector<field> fault_fields(const std::string& prefix, fault_settings& f) {
  std::vector<field> out;
  out.push_back(number_field(prefix + ".error_fraction", f.error_fraction, 0.0, 1.0,
                             "emulated SSDs: fraction of I/O commands that complete with "
                             "error_status and move no data"));
  out.push_back(status_field(prefix + ".error_status", f.error_status,
                             "emulated SSDs: the status of an injected error"));
  out.push_back(number_field(prefix + ".delay_fraction", f.delay_fraction, 0.0, 1.0,
                             "emulated SSDs: fraction of I/O commands that complete delay_us "
                             "late (the commands behind them are not held up)"));
  out.push_back(uint_field(prefix + ".delay_us", f.delay_us, 0, max_delay_us,
                           "emulated SSDs: how late a delayed command completes, us"));
  out.push_back(number_field(prefix + ".drop_fraction", f.drop_fraction, 0.0, 1.0,
                             "emulated SSDs: fraction of I/O commands never completed (their "
                             "waits time out: queues.timeout_ms)"));
  out.push_back(uint_field(prefix + ".seed", f.seed, 0, u64_max,
                           "emulated SSDs: seed of the faults (a command's fate is a function of "
                           "the seed, its queue and its position in the queue)"));
  return out;
}

/// What storage.faults_per_ssd's entries may give, and how a given key is copied.
struct fault_override_key {
  const char* leaf;
  bool (*given)(const fault_overrides&);
  void (*take)(fault_overrides&, const fault_settings&);
};
constexpr fault_override_key fault_override_keys[] = {
    {"error_fraction", [](const fault_overrides& o) { return o.error_fraction.has_value(); },
     [](fault_overrides& o, const fault_settings& f) { o.error_fraction = f.error_fraction; }},
    {"error_status", [](const fault_overrides& o) { return o.error_status.has_value(); },
     [](fault_overrides& o, const fault_settings& f) { o.error_status = f.error_status; }},
    {"delay_fraction", [](const fault_overrides& o) { return o.delay_fraction.has_value(); },
     [](fault_overrides& o, const fault_settings& f) { o.delay_fraction = f.delay_fraction; }},
    {"delay_us", [](const fault_overrides& o) { return o.delay_us.has_value(); },
     [](fault_overrides& o, const fault_settings& f) { o.delay_us = f.delay_us; }},
    {"drop_fraction", [](const fault_overrides& o) { return o.drop_fraction.has_value(); },
     [](fault_overrides& o, const fault_settings& f) { o.drop_fraction = f.drop_fraction; }},
    {"seed", [](const fault_overrides& o) { return o.seed.has_value(); },
     [](fault_overrides& o, const fault_settings& f) { o.seed = f.seed; }},
};

/// storage.faults_per_ssd: a list of objects with storage.faults' keys, each checked by the same
/// field as storage.faults' (errors name e.g. storage.faults_per_ssd[1].drop_fraction).
field fault_list_field(std::string key, std::vector<fault_overrides>& ref, std::string doc) {
  std::string leaves;
  for (const fault_override_key& k : fault_override_keys)
    leaves += fmt::format("{}{}", leaves.empty() ? "" : ", ", k.leaf);
  std::string allowed = fmt::format("list of objects with any of {}", leaves);
  return field{key,
               "fault list",
               allowed,
               std::move(doc),
               [&ref, key] {
                 nlohmann::json out = nlohmann::json::array();
                 for (const fault_overrides& o : ref) {
                   fault_settings given = o.over({});
                   nlohmann::json entry = nlohmann::json::object();
                   for (const field& f : fault_fields(key, given)) {
                     for (const fault_override_key& k : fault_override_keys) {
                       if (f.key == key + "." + k.leaf && k.given(o)) entry[k.leaf] = f.get();
                     }
                   }
                   out.push_back(std::move(entry));
                 }
                 return out;
               },
               [&ref, key, leaves](const nlohmann::json& v) {
                 if (!v.is_array()) wrong_type(key, "an array of objects", v);
                 std::vector<fault_overrides> out;
                 for (std::size_t i = 0; i < v.size(); ++i) {
                   const std::string at = fmt::format("{}[{}]", key, i);
                   if (!v[i].is_object()) wrong_type(at, "an object", v[i]);
                   fault_settings scratch;
                   const std::vector<field> fs = fault_fields(at, scratch);
                   fault_overrides o;
                   for (const auto& [leaf, value] : v[i].items()) {
                     const fault_override_key* k = nullptr;
                     for (const fault_override_key& c : fault_override_keys)
                       k = leaf == c.leaf ? &c : k;
                     if (k == nullptr) {
                       throw config_error(at + "." + leaf,
                                          fmt::format("unknown key, allowed {}", leaves));
                     }
                     for (const field& f : fs)
                       if (f.key == at + "." + leaf) f.set(value);
                     k->take(o, scratch);
                   }
                   out.push_back(o);
                 }
                 ref = std::move(out);
               }};
}

// ---- end of faults ---------------------------------------------------------------------------

// ---- taxi (issue 16) ----
/// taxi.queries: "all" or a comma list of q0..q5 (bam/table/taxi_query.hpp parses it).
field taxi_queries_field(std::string key, std::string& ref, std::string doc) {
  return field{key,
               "string",
               "all, or a comma list of q0..q5",
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key](const nlohmann::json& v) {
                 if (!v.is_string()) wrong_type(key, "a string", v);
                 try {
                   taxi::parse_queries(v.get<std::string>());
                 } catch (const std::invalid_argument& e) {
                   throw config_error(key, e.what());
                 }
                 ref = v.get<std::string>();
               }};
}

/// taxi.min_distance: a positive number of miles.
field positive_number_field(std::string key, double& ref, double hi, std::string doc) {
  std::string allowed = fmt::format("(0, {}]", hi);
  return field{key,
               "number",
               allowed,
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key, hi, allowed](const nlohmann::json& v) {
                 if (!v.is_number()) wrong_type(key, "a number", v);
                 const auto x = v.get<double>();
                 if (!(x > 0 && x <= hi)) {
                   throw config_error(key,
                                      fmt::format("{} is out of range, allowed {}", x, allowed));
                 }
                 ref = x;
               }};
}

/// taxi.row_group_rows: whole reduction blocks (taxi::block_rows).
field row_group_field(std::string key, std::uint64_t& ref, std::string doc) {
  const std::uint64_t unit = taxi::block_rows;
  const std::uint64_t hi = std::uint64_t{1} << 30;
  std::string allowed = fmt::format("multiples of {} in [{}, {}]", unit, unit, hi);
  return field{key,
               "uint",
               allowed,
               std::move(doc),
               [&ref] { return nlohmann::json(ref); },
               [&ref, key, unit, hi, allowed](const nlohmann::json& v) {
                 const std::uint64_t x = uint_in_range(key, v, unit, hi, allowed);
                 if (x % unit != 0) {
                   throw config_error(key,
                                      fmt::format("{} is not allowed, allowed {}", x, allowed));
                 }
                 ref = x;
               }};
}

void add_taxi_fields(std::vector<field>& f, taxi_config& t) {
  f.push_back(string_field("taxi.data", t.data,
                           "taxi-query: the table directory (bam-data taxi-import or taxi-gen)"));
  f.push_back(taxi_queries_field("taxi.queries", t.queries,
                                 "taxi-query: the queries to run (Q0: |S| and mean distance; "
                                 "Q1..Q5: mean dollars per mile, docs/taxi.md)"));
  f.push_back(positive_number_field("taxi.min_distance", t.min_distance, 1e5,
                                    "taxi-query: D, miles: S = the rows with trip_distance >= D"));
  f.push_back(enum_field("taxi.impl", t.impl, taxi_impl_names,
                         "taxi-query: bam (one scan through bam::array, the other columns read "
                         "only for rows of S), tiled (CPU-orchestrated row groups of every "
                         "needed column, RAPIDS-like) or both in one process"));
  f.push_back(enum_field("taxi.tiled_source", t.tiled_source, taxi_source_names,
                         "taxi-query tiled: ssd (block reads from the same SSDs through host "
                         "queues) or page_cache (the table's files: the baseline's best case)"));
  f.push_back(row_group_field("taxi.row_group_rows", t.row_group_rows,
                              "taxi-query tiled: rows per row group (each needed column's "
                              "group is read, copied and reduced as one tile)"));
  f.push_back(string_field("taxi.results", t.results,
                           "taxi-query: write the results as JSON here (\"\": none)"));
}
// ---- end taxi ----

}  // namespace

std::vector<std::string> sections() {
  return {"storage", "storage.media", "queues", "cache",          "workload", "report",
          "uring",   "cache_bench",   "gpu",    "storage.faults",  // faults (issue 14)
          "taxi",                                                  // taxi (issue 16)
          "graph"};
}

std::vector<field> fields_of(run_config& c) {
  storage_config& s = c.storage;
  workload_config& w = c.workload;
  std::vector<field> f;
  f.push_back(enum_field("storage.backend", s.backend, backend_names,
                         "who serves the I/O: emulated SSDs on the GPU, real NVMe, host emulated "
                         "controllers driven by CPU threads, the io_uring CPU baseline, GPU "
                         "threads reading pinned host memory (zerocopy), or GPUDirect Storage "
                         "(cufile, builds with cufile.h)"));
  f.push_back(uint_field("storage.ssd_count", s.ssd_count, 1, 1024, "number of SSDs"));
  f.push_back(model_field("storage.model", s.model, "timing model of each emulated SSD"));
  f.push_back(
      enum_field("storage.media.kind", s.media.kind, media_names, "where the SSDs' blocks live"));
  f.push_back(uint_field("storage.media.size_bytes", s.media.size_bytes, 4096, max_bytes,
                         "bytes of media per SSD (the file size for uring and cufile)"));
  f.push_back(string_field("storage.media.path", s.media.path, "file for media.kind=file"));
  f.push_back(uint_choice_field("storage.lba_size", s.lba_size, {512, 4096},
                                "logical block size in bytes"));
  f.push_back(string_list_field("storage.device_paths", s.device_paths, {},
                                "controller device files for backend=nvme, one per SSD"));
  f.push_back(string_choice_field(
      "storage.nvme_ordering_read", s.nvme_ordering_read, {"auto", "on", "off"},
      "nvme GPU path: coalesced extra NVMe read after a completion so the data the controller "
      "wrote to GPU memory is visible (BaM paper 4.4); auto: on for backend=nvme"));
  // ---- storage.protocol (issue 14: honest emulation) ----
  f.push_back(enum_field("storage.protocol", s.protocol, protocol_names,
                         "backend=emulated: hardware (GPU threads do what a real controller "
                         "needs: MMIO doorbells, system-scope completion polling, the ordering "
                         "read of BaM paper 4.4 after every read) or emulator (device scope, only "
                         "possible with the controller on the GPU: an upper bound); other "
                         "backends: hardware"));
  // ---- end storage.protocol ----
  // faults (issue 14): every SSD's, then per SSD over them.
  for (field& x : fault_fields("storage.faults", s.faults))
    f.push_back(std::move(x));
  f.push_back(fault_list_field(
      "storage.faults_per_ssd", s.faults_per_ssd,
      "emulated SSDs: faults per SSD, one object per SSD (storage.ssd_count of them) whose keys "
      "replace storage.faults' for that SSD ([]: storage.faults for every SSD)"));
  // end of faults
  f.push_back(uint_field("queues.pairs_per_ssd", c.queues.pairs_per_ssd, 1, max_io_queue_pairs,
                         "I/O queue pairs per SSD"));
  f.push_back(uint_field("queues.depth", c.queues.depth, min_queue_entries, max_queue_entries,
                         "entries per submission/completion queue"));
  // faults (issue 14)
  f.push_back(uint_field("queues.timeout_ms", c.queues.timeout_ms, 0, max_timeout_ms,
                         "per-command timeout of every wait, ms: a command not completed by "
                         "then counts as a timeout (0: automatic, 30000 without faults, 1000 + "
                         "the longest storage.faults delay with them)"));
  // end of faults
  f.push_back(pow2_uint_field("cache.line_size", c.cache.line_size, min_line_bytes, max_line_bytes,
                              "cache line size in bytes, a multiple of storage.lba_size"));
  f.push_back(uint_field("cache.capacity", c.cache.capacity, min_line_bytes, max_bytes,
                         "cache capacity in bytes (a multiple of line_size)"));
  // ---- cache errors (issue 14) ----
  f.push_back(enum_field("cache.on_error", c.cache.on_error, cache_error_names,
                         "an array access whose line cannot be read: flag (counted in the "
                         "cache's failed accesses, the run reports it; a read gives 0, a write "
                         "is dropped) or trap (the program stops there: __trap() on the GPU, "
                         "abort on the host; for debugging)"));
  // ---- end cache errors ----
  f.push_back(
      uint_field("workload.threads", w.threads, 1, 1u << 25,
                 "client threads (CPU threads for host/uring/cufile, GPU threads on the GPU)"));
  f.push_back(uint_field("workload.io_size", w.io_size, 512, std::uint64_t{1} << 30,
                         "bytes per I/O, a multiple of storage.lba_size"));
  f.push_back(enum_field("workload.pattern", w.pattern, pattern_names, "offsets of the I/Os"));
  f.push_back(enum_field("workload.op", w.op, op_names, "operation"));
  f.push_back(number_field("workload.read_ratio", w.read_ratio, 0.0, 1.0,
                           "fraction of reads when op=mixed"));
  f.push_back(uint_field("workload.ios", w.ios, 0, u64_max,
                         "total I/Os over all threads (0: until duration_s)"));
  f.push_back(number_field("workload.duration_s", w.duration_s, 0.0, 1e6,
                           "stop after this many seconds (0: after ios I/Os)"));
  f.push_back(
      uint_field("workload.outstanding", w.outstanding, 1, 65536, "I/Os in flight per thread"));
  f.push_back(uint_field("workload.dataset_bytes", w.dataset_bytes, 0, max_bytes,
                         "bytes of each SSD the I/Os touch (0: the whole media)"));
  f.push_back(uint_field("workload.seed", w.seed, 0, u64_max, "random seed"));
  f.push_back(string_field("report.json", c.report.json, "fio json+ report file (\"\": none)"));
  f.push_back(string_field("report.csv", c.report.csv,
                           "CSV file; one row per run is appended (\"\": none)"));
  f.push_back(string_list_field("report.formats", c.report.formats, {"summary", "json", "csv"},
                                "what goes to stdout"));
  f.push_back(bool_field("report.measure_ceilings", c.report.measure_ceilings,
                         "measure the machine's ceilings (bamkit.ceilings) before the run"));
  f.push_back(bool_field("uring.direct", c.uring.direct,
                         "O_DIRECT reads (false: buffered, from the page cache)"));
  f.push_back(bool_field("uring.registered_buffers", c.uring.registered_buffers,
                         "register the buffers with io_uring (fixed-buffer reads)"));
  f.push_back(string_choice_field("uring.gpu_copy", c.uring.gpu_copy, {"auto", "on", "off"},
                                  "copy each read to GPU memory (auto: when a GPU is present)"));
  cache_bench_config& b = c.cache_bench;
  f.push_back(enum_field("cache_bench.mode", b.mode, access_mode_names,
                         "cache-bench: plain (one acquire per thread and element), coalesced "
                         "(bam::array, warp-coalesced) or reuse (bam::array_ref)"));
  f.push_back(uint_field("cache_bench.coarsening", b.coarsening, 1, 1024,
                         "cache-bench: elements each thread accesses per iteration (see "
                         "cache_bench.layout)"));
  f.push_back(enum_field("cache_bench.temperature", b.temperature, temperature_names,
                         "cache-bench: hot (a first pass loads the dataset, the measured pass "
                         "must not miss) or cold (an empty cache)"));
  f.push_back(uint_field("cache_bench.elements", b.elements, 0, max_bytes / 8,
                         "cache-bench: 8-byte elements of the dataset (0: threads * coarsening)"));
  f.push_back(uint_field("cache_bench.iterations", b.iterations, 1, 1u << 20,
                         "cache-bench: iterations per thread (each accesses coarsening "
                         "elements)"));
  f.push_back(enum_field("cache_bench.layout", b.layout, layout_names,
                         "cache-bench: thread (thread t accesses coarsening consecutive elements) "
                         "or warp (a warp, on the host 32 consecutive threads, owns 32 x "
                         "coarsening consecutive elements; lane l accesses every 32nd from the "
                         "l-th, so every warp load is coalesced)"));
  // gpu: the GPU side of the emulated backends (queue mapping of the client threads, engine size).
  gpu_config& g = c.gpu;
  f.push_back(enum_field("gpu.queue_mapping", g.queue_mapping, queue_mapping_names,
                         "nvm-block-bench emulated backend: warp (warp w = t / 32 uses SSD w % "
                         "ssd_count, queue (w / ssd_count) % pairs_per_ssd) or thread (thread t "
                         "uses SSD t % ssd_count, queue (t / ssd_count) % pairs_per_ssd, as the "
                         "BaM paper's benchmark); a sequential I/O goes to the SSD of its offset"));
  f.push_back(uint_field("gpu.engine_blocks", g.engine_blocks, 0, 1024,
                         "emulated backends: persistent blocks of the engine serving the SSDs, "
                         "at most one per SM intended (0: automatic, 16 or more when the queues "
                         "need them, each warp serving at most 32 queues; storage.protocol "
                         "hardware adds the blocks its per-SSD ordering queues' warps need, one "
                         "per 16 SSDs at 16 warps a block, where the other queues outnumber the "
                         "warps those would leave them; with gpu.engine_placement auto's even "
                         "engine, 3/5 of the GPU's SMs)"));
  f.push_back(uint_field("gpu.engine_warps_per_block", g.engine_warps_per_block, 0,
                         emu::gpu::max_engine_warps_per_block,
                         "emulated backends: warps per engine block (0: automatic, 16; in "
                         "gpu.engine_placement auto's even engine the fewest from 4 that serve "
                         "the queues)"));
  f.push_back(bool_field("gpu.engine_handover", g.engine_handover,
                         "emulated backends: an engine warp whose turns stay full hands queues "
                         "over to warps with time to spare (docs/gpu-engine.md, \"Queue "
                         "handover\"); false: each queue stays with one engine lane"));
  f.push_back(
      enum_field("gpu.engine_placement", g.engine_placement, engine_placement_names,
                 "emulated backends: where the engine's blocks run: scheduler (where the block "
                 "scheduler puts them), first-sms (block b on SM b, each taking a whole SM; "
                 "needs gpu.engine_blocks <= the GPU's SMs, those SMs free at start; with pinned"
                 " media past the GPU's translation reach it evens the latency tail; the I/O "
                 "rate rises with the SMs the engine takes, which the application loses: "
                 "docs/gpu-engine.md, \"Where the engine's blocks land\" and \"The engine's SM "
                 "share against the application's\") or auto (scheduler, but for nvm-block-"
                 "bench, whose threads only issue I/O, where its SSDs' pinned media come to 2 "
                 "GiB or more: first-sms with the even engine, 4-warp blocks on 3/5 of the SMs, "
                 "80 x 4 on an H200, or the scheduler where such an engine cannot serve the "
                 "queues: docs/gpu-engine.md, \"The even engine of nvm-block-bench\")"));
  f.push_back(enum_field("gpu.queue_access", g.queue_access, queue_access_names,
                         "emulated backend: how GPU threads use their queue pairs: auto (a thread "
                         "alone on its queue pair, one command at a time with no other thread "
                         "mapped to it, submits as its only user, without the shared protocol's "
                         "ticket, locks and batches: docs/gpu-engine.md, \"A queue pair to "
                         "itself\"; every other one as shared) or shared (BaM's protocol for "
                         "every thread)"));
  add_taxi_fields(f, c.taxi);  // taxi (issue 16)
  // graph: the graph applications bfs and cc (issue 15).
  graph_config& gr = c.graph;
  f.push_back(string_field("graph.file", gr.file,
                           "bfs/cc: the input graph (--graph): .csr (bam-data's), .mtx (Matrix "
                           "Market coordinate), .el (text edge list) or .col (EMOGI/BaM binary "
                           "CSR, .dst beside it)"));
  f.push_back(enum_field("graph.access", gr.access, graph_access_names,
                         "bfs/cc: where GPU threads read the neighbour lists: gpu-memory (HBM, "
                         "the compute-only bound), host-zero-copy (pinned mapped host memory, "
                         "EMOGI's target), uvm (managed, no prefetch), bam (SSDs through the "
                         "cache), bam-preloaded (every line in the cache before timing; "
                         "cache.capacity raised to the neighbour array if smaller); the host "
                         "backend runs bam and bam-preloaded"));
  f.push_back(optional_uint_field("graph.source", gr.source, 0, u64_max,
                                  "bfs: the source vertex (--source), in the input file's ids "
                                  "(1-based for .mtx); null: graph.sources picked by the seeded "
                                  "rule"));
  f.push_back(uint_field("graph.sources", gr.sources, 1, 1u << 16,
                         "bfs: sources picked among the vertices of degree > 2 by the seeded "
                         "rule (--sources; workload.seed), the time reported per source"));
  f.push_back(string_field("graph.dump", gr.dump,
                           "bfs: \"vertex level\" per vertex for the first source "
                           "(--dump-levels); cc: \"vertex label\" per vertex (--dump-components); "
                           "\"\": none"));
  f.push_back(bool_field("graph.direction_optimizing", gr.direction_optimizing,
                         "bfs: bottom-up levels where they read fewer edges (symmetric graphs "
                         "only; false: top-down only)"));
  return f;
}

}  // namespace detail
}  // namespace bam
