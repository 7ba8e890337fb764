// The shared config schema in-process: defaults, strict parsing (unknown keys, wrong types,
// ranges, duplicate keys) with key-path messages, the schema's bounds being the library's
// constants, cross-key validation, capability checks, report path checks and round trips.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "bam/cache/cache_config.hpp"
#include "bam/config/config_io.hpp"
#include "bam/harness/tool_main.hpp"
#include "bam/queue/queue_state.hpp"
#include "tool_runner.hpp"

namespace bam {
namespace {

using nlohmann::json;

/// Expects `fn` to throw config_error for `key` with a message containing every `parts`.
template <class Fn>
void expect_error(Fn&& fn, const std::string& key, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no config_error for " << key;
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), key) << e.what();
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(key + ": ", 0), 0u) << what;
    for (const auto& p : parts)
      EXPECT_NE(what.find(p), std::string::npos) << what << " / " << p;
  }
}

run_config parse_and_validate(const json& j) {
  run_config c = parse_config(j);
  validate(c);
  return c;
}

TEST(Config, DefaultsAreValidAndDocumented) {
  const run_config c{};
  EXPECT_NO_THROW(validate(c));
  EXPECT_EQ(c.storage.backend, backend_kind::host);
  EXPECT_EQ(c.workload.threads, 2u);
  const auto schema = config_schema();
  ASSERT_FALSE(schema.empty());
  // Every schema entry's default is what the struct holds.
  const json j = to_json(c);
  for (const auto& e : schema) {
    const json* node = &j;
    std::string rest = e.key;
    for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      node = &node->at(rest.substr(0, dot));
      rest = rest.substr(dot + 1);
    }
    EXPECT_EQ(node->at(rest).dump(), e.default_value) << e.key;
  }
}

TEST(Config, RoundTripOfEveryKey) {
  run_config c{};
  c.storage.backend = backend_kind::uring;
  c.storage.ssd_count = 1;
  c.storage.model = model_spec{"", ssd_model{5, 1, 2, 3, 4, 6.5}};
  c.storage.media = media_config{media_kind::file, 1 << 20, "/tmp/x"};
  c.storage.lba_size = 4096;
  c.storage.device_paths = {"/dev/a", "/dev/b"};
  c.storage.nvme_ordering_read = "off";
  c.queues = queues_config{3, 1024};
  c.cache = run_cache_config{8192, 1 << 24};
  c.workload = workload_config{
      7, 8192, io_pattern::sequential, io_op::mixed, 0.25, 99, 1.5, 16, 1 << 19, 42};
  c.report = report_config{"a.json", "b.csv", {"json", "csv"}, true};
  c.uring = uring_config{true, false, "off"};
  const json j = to_json(c);
  EXPECT_EQ(parse_config(j), c);
  // And through text.
  EXPECT_EQ(parse_config(json::parse(j.dump())), c);
  // A preset model serialises as its name.
  run_config d{};
  d.storage.model = model_spec{"optane-p5800x", std::nullopt};
  EXPECT_EQ(to_json(d)["storage"]["model"], "optane-p5800x");
  EXPECT_EQ(parse_config(to_json(d)), d);
}

TEST(Config, PartialDocumentKeepsBase) {
  run_config base{};
  base.workload.threads = 9;
  const run_config c = parse_config(json{{"queues", {{"depth", 64}}}}, base);
  EXPECT_EQ(c.workload.threads, 9u);
  EXPECT_EQ(c.queues.depth, 64u);
}

TEST(Config, UnknownKeysAreRejected) {
  expect_error(
      [] {
        parse_config(json{{"workload", {{"thread", 4}}}});
      },
      "workload.thread", {"unknown key", "threads"});
  expect_error(
      [] {
        parse_config(json{{"bogus", 1}});
      },
      "bogus", {"unknown key", "storage", "workload"});
  expect_error(
      [] {
        parse_config(json{{"storage", {{"media", {{"sizebytes", 1}}}}}});
      },
      "storage.media.sizebytes", {"unknown key", "size_bytes"});
  expect_error(
      [] {
        parse_config(json{{"storage", {{"model", {{"latency", 1}}}}}});
      },
      "storage.model.latency", {"unknown key", "latency_us"});
}

TEST(Config, WrongTypesAreRejected) {
  expect_error(
      [] {
        parse_config(json{{"workload", {{"threads", "4"}}}});
      },
      "workload.threads", {"expected an unsigned integer", "string"});
  expect_error(
      [] {
        parse_config(json{{"workload", {{"threads", 1.5}}}});
      },
      "workload.threads", {"expected an unsigned integer"});
  expect_error(
      [] {
        parse_config(json{{"workload", {{"op", 1}}}});
      },
      "workload.op", {"expected a string"});
  expect_error([] { parse_config(json{{"workload", 3}}); }, "workload", {"expected an object"});
  expect_error(
      [] {
        parse_config(json{{"uring", {{"direct", "yes"}}}});
      },
      "uring.direct", {"true or false"});
  expect_error(
      [] {
        parse_config(json{{"storage", {{"device_paths", {1, 2}}}}});
      },
      "storage.device_paths", {"array of strings"});
}

TEST(Config, OutOfRangeValuesNameTheRange) {
  expect_error(
      [] {
        parse_config(json{{"workload", {{"threads", 0}}}});
      },
      "workload.threads", {"0 is out of range", "[1, 33554432]"});
  expect_error(
      [] {
        parse_config(json{{"workload", {{"threads", -3}}}});
      },
      "workload.threads", {"-3 is out of range"});
  expect_error(
      [] {
        parse_config(json{{"workload", {{"read_ratio", 1.5}}}});
      },
      "workload.read_ratio", {"out of range", "[0, 1]"});
  expect_error(
      [] {
        parse_config(json{{"workload", {{"read_ratio", -0.1}}}});
      },
      "workload.read_ratio", {"out of range", "[0, 1]"});
  expect_error(
      [] {
        parse_config(json{{"storage", {{"lba_size", 1024}}}});
      },
      "storage.lba_size", {"1024 is not allowed", "512|4096"});
  expect_error(
      [] {
        parse_config(json{{"queues", {{"depth", 1}}}});
      },
      "queues.depth", {"[2, 65536]"});
  expect_error(
      [] {
        parse_config(json{{"workload", {{"pattern", "zigzag"}}}});
      },
      "workload.pattern", {"random|sequential"});
  expect_error(
      [] {
        parse_config(json{{"report", {{"formats", {"xml"}}}}});
      },
      "report.formats", {"\"xml\" is not allowed", "summary|json|csv"});
}

TEST(Config, CrossKeyValidation) {
  expect_error(
      [] {
        parse_and_validate(json{{"workload", {{"io_size", 1000}}}});
      },
      "workload.io_size", {"not a multiple of storage.lba_size (512)"});
  expect_error(
      [] {
        parse_and_validate(
            json{{"storage", {{"lba_size", 4096}}}, {"workload", {{"io_size", 512}}}});
      },
      "workload.io_size", {"not a multiple of storage.lba_size (4096)"});
  expect_error(
      [] {
        parse_and_validate(json{{"storage", {{"media", {{"size_bytes", 1 << 20}}}}},
                                {"workload", {{"dataset_bytes", 1 << 21}}}});
      },
      "workload.dataset_bytes", {"larger than the media", "1048576"});
  expect_error(
      [] {
        parse_and_validate(json{{"storage", {{"media", {{"size_bytes", 8192}}}}},
                                {"workload", {{"io_size", 16384}}}});
      },
      "workload.io_size", {"larger than the dataset"});
  expect_error(
      [] {
        parse_and_validate(json{{"workload", {{"ios", 0}}}});
      },
      "workload.ios", {"never stop"});
  EXPECT_NO_THROW(parse_and_validate(json{{"workload", {{"ios", 0}, {"duration_s", 1}}}}));
  expect_error(
      [] {
        parse_and_validate(json{{"storage", {{"model", "optane"}}}});
      },
      "storage.model", {"unknown preset \"optane\"", "optane-p5800x"});
  expect_error(
      [] {
        parse_and_validate(json{{"storage", {{"backend", "nvme"}, {"ssd_count", 2}}}});
      },
      "storage.device_paths", {"0 device file(s) for storage.ssd_count = 2"});
  expect_error(
      [] {
        parse_and_validate(json{{"storage", {{"backend", "uring"}}}});
      },
      "storage.media.kind", {"allowed file"});
  expect_error(
      [] {
        parse_and_validate(json{{"storage", {{"media", {{"kind", "file"}}}}}});
      },
      "storage.media.path", {"required"});
  expect_error(
      [] {
        parse_and_validate(
            json{{"storage", {{"lba_size", 4096}}}, {"cache", {{"line_size", 2048}}}});
      },
      "cache.line_size",
      {"2048 is not a multiple of storage.lba_size (4096)", "powers of two in [4096, 65536]"});
  EXPECT_NO_THROW(parse_and_validate(json{{"storage", {{"lba_size", 4096}}},
                                          {"cache", {{"line_size", 4096}, {"capacity", 8192}}}}));
  expect_error(
      [] {
        parse_and_validate(json{
            {"storage", {{"backend", "uring"}, {"media", {{"kind", "file"}, {"path", "/tmp/m"}}}}},
            {"uring", {{"direct", true}}},
            {"workload", {{"io_size", 512}}}});
      },
      "workload.io_size", {"512 with uring.direct = true (O_DIRECT)", "multiples of 4096"});
}

TEST(Config, KeyOnlyRulesAreTheSchemas) {
  // A power of two in [512, 65536] whatever the other keys say: parse_config refuses the rest.
  expect_error(
      [] {
        parse_config(json{{"cache", {{"line_size", 3000}}}});
      },
      "cache.line_size", {"3000 is not a power of two", "allowed powers of two in [512, 65536]"});
  expect_error(
      [] {
        parse_config(json{{"cache", {{"line_size", 131072}}}});
      },
      "cache.line_size", {"131072 is out of range", "allowed powers of two in [512, 65536]"});
  expect_error(
      [] {
        parse_config(json{{"cache", {{"line_size", 256}}}});
      },
      "cache.line_size", {"256 is out of range"});
  expect_error(
      [] {
        parse_config(json{{"cache", {{"line_size", 0}}}});
      },
      "cache.line_size", {"0 is not a power of two"});
  EXPECT_EQ(parse_config(json{{"cache", {{"line_size", 65536}}}}).cache.line_size, 65536u);
  expect_error(
      [] {
        parse_config(json{{"queues", {{"pairs_per_ssd", 65536}}}});
      },
      "queues.pairs_per_ssd", {"[1, 65535]"});
}

TEST(Config, SchemaBoundsAreTheLibrarysConstants) {
  auto allowed = [](const std::string& key) {
    for (const schema_entry& e : config_schema()) {
      if (e.key == key) return e.allowed;
    }
    return std::string("(no such key)");
  };
  EXPECT_EQ(allowed("queues.depth"), fmt::format("[{}, {}]", min_queue_entries, max_queue_entries));
  EXPECT_EQ(allowed("queues.pairs_per_ssd"), fmt::format("[1, {}]", max_io_queue_pairs));
  EXPECT_EQ(allowed("cache.line_size"),
            fmt::format("powers of two in [{}, {}]", min_line_bytes, max_line_bytes));
  EXPECT_EQ(allowed("cache.capacity").rfind(fmt::format("[{}, ", min_line_bytes), 0), 0u);
}

TEST(Config, ModelFilesAreModels) {
  const std::string path = std::string(BAM_SOURCE_DIR) + "/configs/models/pm1735.json";
  const run_config c = parse_and_validate(json{{"storage", {{"model", path}}}});
  ASSERT_TRUE(resolve(c.storage.model).has_value());
  EXPECT_EQ(*resolve(c.storage.model), *find_ssd_model("pm1735"));
  expect_error(
      [] {
        parse_and_validate(json{{"storage", {{"model", "/no/such/drive.json"}}}});
      },
      "storage.model", {"cannot read model file", "/no/such/drive.json"});
  expect_error(
      [] {
        parse_and_validate(json{{"storage", {{"model", {{"moves_data", 1}}}}}});
      },
      "storage.model.moves_data", {"true or false"});
}

TEST(Config, ZerocopyBackend) {
  const run_config c = parse_and_validate(json{{"storage", {{"backend", "zerocopy"}}}});
  EXPECT_EQ(c.storage.backend, backend_kind::zerocopy);
  EXPECT_EQ(to_json(c)["storage"]["backend"], "zerocopy");
  EXPECT_EQ(parse_config(to_json(c)), c);
  expect_error(
      [] {
        parse_and_validate(
            json{{"storage", {{"backend", "zerocopy"}, {"media", {{"kind", "gpu"}}}}}});
      },
      "storage.media.kind", {"\"gpu\" is not allowed with backend \"zerocopy\"", "allowed host"});
  expect_error(
      [] {
        parse_config(json{{"storage", {{"backend", "zero-copy"}}}});
      },
      "storage.backend", {"emulated|nvme|host|uring|zerocopy"});
  // emulated keeps its rule: host or GPU media, never a file.
  EXPECT_NO_THROW(parse_and_validate(
      json{{"storage", {{"backend", "emulated"}, {"media", {{"kind", "gpu"}}}}}}));
}

TEST(Config, CufileBackend) {
  const json file = {{"kind", "file"}, {"path", "/tmp/m.dat"}};
  for (const char* op : {"read", "write", "mixed"}) {
    SCOPED_TRACE(op);
    const run_config c =
        parse_and_validate(json{{"storage", {{"backend", "cufile"}, {"media", file}}},
                                {"workload", {{"outstanding", 1}, {"op", op}}}});
    EXPECT_EQ(c.storage.backend, backend_kind::cufile);
    EXPECT_EQ(to_json(c)["storage"]["backend"], "cufile");
    EXPECT_EQ(parse_config(to_json(c)), c);
  }
  expect_error(
      [] {
        parse_and_validate(
            json{{"storage", {{"backend", "cufile"}}}, {"workload", {{"outstanding", 1}}}});
      },
      "storage.media.kind", {"\"host\" is not allowed with backend \"cufile\", allowed file"});
  expect_error(
      [&] {
        parse_and_validate(
            json{{"storage", {{"backend", "cufile"}, {"ssd_count", 2}, {"media", file}}},
                 {"workload", {{"outstanding", 1}}}});
      },
      "storage.ssd_count", {"backend \"cufile\" (one file), allowed [1, 1]"});
  expect_error(
      [&] {
        parse_and_validate(json{{"storage", {{"backend", "cufile"}, {"media", file}}}});
      },
      "workload.outstanding", {"4 is out of range for backend \"cufile\"", "allowed [1, 1]"});
  expect_error(
      [&] {
        parse_and_validate(json{{"storage", {{"backend", "cufile"}, {"media", file}}},
                                {"workload", {{"outstanding", 1}, {"io_size", 512}}}});
      },
      "workload.io_size", {"512 with backend \"cufile\"", "allowed multiples of 4096"});
}

TEST(Config, CapabilitiesOfTheBackend) {
  run_config c{};
  backend_caps caps;
  caps.max_queue_entries = 128;
  caps.max_ssds = 2;
  caps.max_pairs_per_ssd = 4;
  caps.max_transfer_bytes = 131072;
  caps.media_bytes = 1 << 20;
  c.queues.depth = 128;
  c.workload.dataset_bytes = 1 << 20;
  EXPECT_NO_THROW(validate_against(c, caps));
  c.queues.depth = 256;
  expect_error([&] { validate_against(c, caps); }, "queues.depth",
               {"256", "maximum queue size 128", "[2, 128]"});
  c.queues.depth = 64;
  c.storage.ssd_count = 3;
  expect_error([&] { validate_against(c, caps); }, "storage.ssd_count", {"[1, 2]"});
  c.storage.ssd_count = 1;
  c.queues.pairs_per_ssd = 5;
  expect_error([&] { validate_against(c, caps); }, "queues.pairs_per_ssd", {"[1, 4]"});
  c.queues.pairs_per_ssd = 1;
  c.workload.io_size = 262144;
  expect_error([&] { validate_against(c, caps); }, "workload.io_size", {"131072"});
  c.workload.io_size = 4096;
  c.workload.dataset_bytes = 1 << 21;
  expect_error([&] { validate_against(c, caps); }, "workload.dataset_bytes",
               {"larger than the media"});
}

TEST(Config, JsonPathsAndCliValues) {
  json j = json::object();
  set_json_path(j, "storage.media.size_bytes", 5);
  EXPECT_EQ(j["storage"]["media"]["size_bytes"], 5);
  EXPECT_EQ(parse_cli_value("12"), json(12));
  EXPECT_EQ(parse_cli_value("true"), json(true));
  EXPECT_EQ(parse_cli_value("random"), json("random"));
  EXPECT_EQ(parse_cli_value("[\"a\"]"), json::array({"a"}));
  EXPECT_EQ(parse_cli_value("{\"latency_us\": 3}")["latency_us"], 3);
  EXPECT_THROW(set_json_path(j, "a..b", 1), config_error);
}

TEST(Config, CliValuesOfStringKeysAreTheirText) {
  // A string or enum key takes the text as it is, whatever JSON it would also be.
  EXPECT_EQ(parse_cli_value("123", "graph.file"), json("123"));
  EXPECT_EQ(parse_cli_value("true", "taxi.data"), json("true"));
  EXPECT_EQ(parse_cli_value("null", "report.json"), json("null"));
  EXPECT_EQ(parse_cli_value("[1]", "taxi.results"), json("[1]"));
  EXPECT_EQ(parse_cli_value("1", "taxi.impl"), json("1"));  // enum: "not allowed", not a type
  EXPECT_EQ(parse_cli_value("q0,q1", "taxi.queries"), json("q0,q1"));
  // A JSON string literal is still read as JSON ("..." on the command line is that string).
  EXPECT_EQ(parse_cli_value("\"a b\"", "graph.file"), json("a b"));
  // A model key (a preset name, a model file or an object) takes the text unless it is an
  // object: `null` is the preset "null", not JSON null.
  EXPECT_EQ(parse_cli_value("null", "storage.model"), json("null"));
  EXPECT_EQ(parse_cli_value("12", "storage.model"), json("12"));
  EXPECT_EQ(parse_cli_value("\"null\"", "storage.model"), json("null"));
  EXPECT_EQ(parse_cli_value("{\"latency_us\": 3}", "storage.model")["latency_us"], 3);
  EXPECT_EQ(parse_cli_value(" {\"latency_us\": 3}", "storage.model")["latency_us"], 3);
  // Swept the same way: each value of a model axis is a name unless it is an object.
  const std::vector<sweep_axis> axes = parse_sweeps(
      {"storage.model=null,ideal", "workload.op=read, write", "queues.depth= 64 ,128"});
  ASSERT_EQ(axes.size(), 3u);
  EXPECT_EQ(axes[0].values, (std::vector<json>{json("null"), json("ideal")}));
  // Blanks around a swept value are the list's layout, not the value's.
  EXPECT_EQ(axes[1].values, (std::vector<json>{json("read"), json("write")}));
  EXPECT_EQ(axes[2].values, (std::vector<json>{json(64), json(128)}));
  // Other keys: JSON first, as before.
  EXPECT_EQ(parse_cli_value("12", "workload.threads"), json(12));
  EXPECT_EQ(parse_cli_value("[\"a\"]", "report.formats"), json::array({"a"}));
  // Through the config: a numeric file name is a file name.
  run_config c;
  nlohmann::json one = json::object();
  set_json_path(one, "graph.file", parse_cli_value("123", "graph.file"));
  EXPECT_EQ(parse_config(one, c).graph.file, "123");
}

TEST(Config, DuplicateKeysAreRefusedNamingTheKey) {
  expect_error([] { parse_json_unique_keys(R"({"queues": {"depth": 64, "depth": 128}})"); },
               "queues.depth", {"duplicate key", "given twice"});
  expect_error([] { parse_json_unique_keys(R"({"queues": {}, "workload": {}, "queues": {}})"); },
               "queues", {"duplicate key"});
  // Objects inside arrays are named by their index.
  expect_error([] { parse_json_unique_keys(R"({"a": [{"x": 1}, 2, {"x": 1, "y": [], "x": 2}]})"); },
               "a[2].x", {"duplicate key"});
  // Under a prefix (a value given for a key on the command line), with where it came from.
  expect_error(
      [] {
        parse_json_unique_keys(R"({"latency_us": 3, "latency_us": 4})", "storage.model",
                               "in 'run.json'");
      },
      "storage.model.latency_us", {"duplicate key", "in 'run.json'"});
  // The same key in different objects is no duplicate; the document is nlohmann's own.
  const std::string ok =
      R"({"queues": {"depth": 64}, "cache": {"depth": [1, {"depth": 2}]}, "x": [[{"a": 1}]]})";
  EXPECT_EQ(parse_json_unique_keys(ok), json::parse(ok));
  EXPECT_THROW(parse_json_unique_keys(R"({"queues": )"), json::parse_error);
}

TEST(Config, DuplicateKeysInCliValues) {
  expect_error([] { parse_cli_value(R"({"latency_us": 3, "latency_us": 4})", "storage.model"); },
               "storage.model.latency_us", {"duplicate key"});
  EXPECT_EQ(parse_cli_value(R"({"latency_us": 3})", "storage.model"), json({{"latency_us", 3}}));
  // Text that is not JSON stays a string.
  EXPECT_EQ(parse_cli_value("{not json", "report.json"), json("{not json"));
}

TEST(Config, DuplicateKeysInFiles) {
  test::temp_dir dir;
  {
    std::ofstream(dir / "dup.json") << R"({"queues": {"depth": 64, "depth": 128}})";
    std::ofstream(dir / "model.json") << R"({"latency_us": 3, "latency_us": 4})";
  }
  expect_error([&] { load_config_file(dir / "dup.json"); }, "queues.depth",
               {"duplicate key", dir / "dup.json"});
  expect_error(
      [&] {
        parse_and_validate(json{{"storage", {{"model", dir / "model.json"}}}});
      },
      "storage.model(" + (dir / "model.json") + ").latency_us", {"duplicate key"});
}

TEST(Config, ReportPathsAreCheckedLeavingNoTrace) {
  test::temp_dir dir;
  report_config r;
  r.json = dir / "r.json";
  r.csv = dir / "r.csv";
  EXPECT_NO_THROW(check_report_paths(r));
  EXPECT_FALSE(std::filesystem::exists(r.json));  // created to try, removed again
  EXPECT_FALSE(std::filesystem::exists(r.csv));
  { std::ofstream(r.csv) << "kept\n"; }
  EXPECT_NO_THROW(check_report_paths(r));
  EXPECT_EQ(test::read_file(r.csv), "kept\n");  // an existing file is left as it was

  report_config missing;
  missing.json = dir / "no-such-dir/r.json";
  expect_error([&] { check_report_paths(missing); }, "report.json",
               {"cannot write '" + missing.json + "'", "No such file or directory"});
  report_config is_dir;
  is_dir.csv = dir.path().string();
  expect_error([&] { check_report_paths(is_dir); }, "report.csv",
               {"cannot write '" + is_dir.csv + "'", "Is a directory"});
  EXPECT_NO_THROW(check_report_paths(report_config{}));  // "": no report
}

/// Runs `fn` in a child process, as user nobody when this one is root (root writes read-only
/// files); its exit status, or 100 when the user cannot be changed.
int run_unprivileged(const std::function<int()>& fn) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(100);
    ::_exit(fn());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Config, ReadOnlyReportFileIsRefused) {
  test::temp_dir dir;
  namespace fs = std::filesystem;
  fs::permissions(dir.path(), fs::perms::all);  // nobody may look inside
  const std::string writable = dir / "w.json";
  const std::string read_only = dir / "r.json";
  { std::ofstream(writable) << "old\n"; }
  { std::ofstream(read_only) << "old\n"; }
  fs::permissions(writable, fs::perms::all);
  fs::permissions(read_only,
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const int rc = run_unprivileged([&] {
    report_config r;
    r.json = writable;
    try {
      check_report_paths(r);
    } catch (const config_error&) {
      return 1;  // a writable file refused
    }
    r.json = read_only;
    try {
      check_report_paths(r);
      return 2;  // a read-only file accepted
    } catch (const config_error& e) {
      const std::string what = e.what();
      const bool named = e.key() == "report.json" &&
                         what.find("cannot write '" + read_only + "'") != std::string::npos &&
                         what.find("Permission denied") != std::string::npos;
      return named ? 0 : 3;
    }
  });
  if (rc == 100) GTEST_SKIP() << "cannot switch to an unprivileged user";
  EXPECT_EQ(rc, 0) << "1: writable file refused, 2: read-only file accepted, 3: message";
  EXPECT_EQ(test::read_file(read_only), "old\n");
  EXPECT_EQ(test::read_file(writable), "old\n");
}

TEST(Config, SchemaMarkdownListsEveryKey) {
  const std::string md = schema_markdown();
  for (const auto& e : config_schema())
    EXPECT_NE(md.find("`" + e.key + "`"), std::string::npos);
}

}  // namespace
}  // namespace bam
