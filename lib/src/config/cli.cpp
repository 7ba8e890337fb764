// The shared command-line options of bamkit tools.
#include "bam/config/cli.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace bam {

config_cli::config_cli(CLI::App& app)
    : threads_(defaults_.workload.threads),
      ssds_(defaults_.storage.ssd_count),
      depth_(defaults_.queues.depth),
      pairs_(defaults_.queues.pairs_per_ssd),
      outstanding_(defaults_.workload.outstanding),
      io_size_(defaults_.workload.io_size),
      ios_(defaults_.workload.ios),
      seed_(defaults_.workload.seed),
      duration_(defaults_.workload.duration_s),
      op_(to_string(defaults_.workload.op)),
      pattern_(to_string(defaults_.workload.pattern)),
      backend_(to_string(defaults_.storage.backend)),
      model_(defaults_.storage.model.name),
      report_(defaults_.report.json),
      csv_(defaults_.report.csv),
      media_path_(defaults_.storage.media.path) {
  app.add_option("--config", config_file_, "JSON config file (schema: docs/config.md)")
      ->check(CLI::ExistingFile);
  app.add_option("--set", sets_,
                 "override any key: --set section.key=VALUE (VALUE is JSON or a bare string; a "
                 "string key, and storage.model unless {...}, takes the text); "
                 "repeatable, applied last")
      ->type_name("KEY=VALUE")
      ->take_all();
  auto add = [&](const char* flag, auto& var, const char* key, const char* help) {
    CLI::Option* o = app.add_option(flag, var, help)->capture_default_str();
    flags_.push_back(friendly{o, key, [&var] { return nlohmann::json(var); }});
    return o;
  };
  add("--backend", backend_, "storage.backend", "emulated|nvme|host|uring|zerocopy|cufile");
  add("--ssds", ssds_, "storage.ssd_count", "number of SSDs");
  add("--model", model_, "storage.model",
      "SSD model: a preset, a model file (.json) or an inline JSON object");
  // The model flag's text is read as --set reads storage.model's (parse_cli_value: a preset name
  // or a model file, or an object when it is "{...}").
  flags_.back().value = [this] { return parse_cli_value(model_, "storage.model"); };
  add("--media-path", media_path_, "storage.media.path", "media file (media.kind=file)");
  add("--pairs", pairs_, "queues.pairs_per_ssd", "I/O queue pairs per SSD");
  add("--depth", depth_, "queues.depth", "entries per queue");
  add("--threads", threads_, "workload.threads", "client threads");
  add("--io-size", io_size_, "workload.io_size", "bytes per I/O");
  add("--pattern", pattern_, "workload.pattern", "random|sequential");
  add("--op", op_, "workload.op", "read|write|mixed");
  add("--ios", ios_, "workload.ios", "total I/Os (0: until --duration)");
  add("--duration", duration_, "workload.duration_s", "seconds (0: until --ios I/Os)");
  add("--outstanding", outstanding_, "workload.outstanding", "I/Os in flight per thread");
  add("--seed", seed_, "workload.seed", "random seed");
  add("--report", report_, "report.json", "write the fio json+ report here");
  add("--csv", csv_, "report.csv", "append a CSV row here");
  CLI::Option* mc = app.add_flag("--measure-ceilings", measure_ceilings_,
                                 "measure the machine's ceilings (report: bamkit.ceilings)");
  flags_.push_back(friendly{mc, "report.measure_ceilings",
                            [this] { return nlohmann::json(measure_ceilings_); }});
  app.add_flag("--print-config", print_config_, "print the effective config as JSON and exit");
  app.add_flag("--print-schema", print_schema_,
               "print the config schema (keys, defaults, ranges) as Markdown and exit");

  std::string footer = "Config keys (for --set and config files) and their defaults:\n";
  for (const schema_entry& e : config_schema()) {
    footer += fmt::format("  {} = {}  ({})\n", e.key, e.default_value, e.allowed);
  }
  app.footer(footer);
}

void config_cli::add_key_option(CLI::App& app, const std::string& flag, const std::string& key,
                                const std::string& help) {
  std::string& var = key_values_.emplace_back();
  CLI::Option* o = app.add_option(flag, var, help + " (config key " + key + ")");
  flags_.push_back(friendly{o, key, [&var, key] { return parse_cli_value(var, key); }});
}

run_config config_cli::resolve() const {
  run_config c = defaults_;
  if (!config_file_.empty()) c = load_config_file(config_file_, c);
  nlohmann::json overlay = nlohmann::json::object();
  for (const friendly& f : flags_) {
    if (f.option->count() > 0) set_json_path(overlay, f.key, f.value());
  }
  c = parse_config(overlay, c);
  for (const std::string& s : sets_) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw config_error("--set",
                         fmt::format("'{}' is not KEY=VALUE (e.g. workload.threads=8)", s));
    }
    const std::string key = s.substr(0, eq);
    nlohmann::json one = nlohmann::json::object();
    set_json_path(one, key, parse_cli_value(std::string_view(s).substr(eq + 1), key));
    c = parse_config(one, c);
  }
  validate(c);
  return c;
}

run_config parse_command_line(CLI::App& app, config_cli& cli, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    std::exit(rc == 0 ? 0 : config_error_exit);
  }
  if (cli.print_schema()) {
    std::cout << schema_markdown();
    std::exit(0);
  }
  run_config c;
  try {
    c = cli.resolve();
  } catch (const config_error& e) {
    std::cerr << app.get_name() << ": invalid configuration: " << e.what() << "\n";
    std::exit(config_error_exit);
  }
  if (cli.print_config()) {
    std::cout << to_json(c).dump(2) << "\n";
    std::exit(0);
  }
  return c;
}

}  // namespace bam
