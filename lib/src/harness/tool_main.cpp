// The shared main loop of the benchmark tools: sweeps, repeats, backends, progress, reports.
#include "bam/harness/tool_main.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string_view>
#include <thread>

#include "bam/config/cli.hpp"

namespace bam {
namespace {

/// Prints "units done" on stderr once a second after the first two seconds.
class progress_line {
 public:
  progress_line(const tool_spec& spec, const std::atomic<std::uint64_t>& done, std::uint64_t total)
      : thread_([this, &spec, &done, total] { loop(spec, done, total); }) {}
  ~progress_line() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void loop(const tool_spec& spec, const std::atomic<std::uint64_t>& done, std::uint64_t total) {
    const auto start = std::chrono::steady_clock::now();
    auto next = start + std::chrono::seconds(2);
    bool printed = false;
    std::unique_lock lock(mutex_);
    while (!cv_.wait_until(lock, next, [this] { return stop_; })) {
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::uint64_t n = done.load(std::memory_order_relaxed);
      const std::string& u = spec.unit;
      if (total != 0) {
        fmt::print(stderr, "\r{}: {:.0f} s, {}/{} {} ({:.0f}%), {:.0f} {}/s   ", spec.name, s, n,
                   total, u, 100.0 * double(n) / double(total), double(n) / s, u);
      } else {
        fmt::print(stderr, "\r{}: {:.0f} s, {} {}, {:.0f} {}/s   ", spec.name, s, n, u,
                   double(n) / s, u);
      }
      printed = true;
      next += std::chrono::seconds(1);
    }
    if (printed) fmt::print(stderr, "\n");
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

/// Whether two points can share one opened backend (only workload-like keys differ).
bool same_backend(const run_config& a, const run_config& b) {
  return a.storage == b.storage && a.queues == b.queues && a.uring == b.uring && a.cache == b.cache;
}

/// Writes the reports of every point (stdout formats of `cfg`, report.json, report.csv).
int write_reports(const tool_spec& spec, const run_config& cfg,
                  const std::vector<report_inputs>& ins, bool multi, const std::string& command) {
  nlohmann::json report = multi ? fio_jsonplus_multi(ins) : fio_jsonplus(ins[0]);
  report["bamkit"]["command"] = command;
  auto stdout_has = [&](const char* f) {
    return std::find(cfg.report.formats.begin(), cfg.report.formats.end(), f) !=
           cfg.report.formats.end();
  };
  if (stdout_has("summary")) {
    for (const auto& in : ins) {
      print_summary(std::cout, in);
      if (spec.print_extra) spec.print_extra(std::cout, in);
      if (in.repeats > 1) {
        fmt::print("  repeat: {} runs, median {:.0f} {}/s, min {:.0f}, max {:.0f}\n", in.repeats,
                   in.result->iops(), spec.unit,
                   *std::min_element(in.repeat_iops.begin(), in.repeat_iops.end()),
                   *std::max_element(in.repeat_iops.begin(), in.repeat_iops.end()));
      }
    }
  }
  if (stdout_has("json")) std::cout << report.dump(2) << "\n";
  if (stdout_has("csv")) {
    std::cout << csv_header(ins.front()) << "\n";
    for (const auto& in : ins)
      std::cout << csv_row(in) << "\n";
  }
  try {
    if (!cfg.report.json.empty()) write_json_file(cfg.report.json, report);
    if (!cfg.report.csv.empty()) {
      for (const auto& in : ins)
        append_csv(cfg.report.csv, in);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", spec.name, e.what());
    return 1;
  }
  return 0;
}

}  // namespace

std::vector<sweep_axis> parse_sweeps(const std::vector<std::string>& specs) {
  std::vector<sweep_axis> axes;
  for (const std::string& s : specs) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      throw config_error(
          "--sweep", fmt::format("'{}' is not KEY=V1,V2,... (e.g. workload.threads=1024,4096)", s));
    }
    sweep_axis a{s.substr(0, eq), {}};
    if (a.key.rfind("report.", 0) == 0) {
      throw config_error("--sweep", fmt::format("'{}': report keys cannot be swept, allowed "
                                                "storage.*, queues.*, cache.*, workload.*, "
                                                "uring.*, cache_bench.*",
                                                a.key));
    }
    std::string_view rest = std::string_view(s).substr(eq + 1);
    while (true) {
      const auto comma = rest.find(',');
      a.values.push_back(parse_cli_value(rest.substr(0, comma), a.key));
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    axes.push_back(std::move(a));
  }
  return axes;
}

std::vector<run_config> expand_sweeps(const run_config& base, const std::vector<sweep_axis>& axes) {
  std::vector<run_config> points{base};
  for (const sweep_axis& a : axes) {
    std::vector<run_config> next;
    for (const run_config& p : points) {
      for (const nlohmann::json& v : a.values) {
        nlohmann::json one = nlohmann::json::object();
        set_json_path(one, a.key, v);
        next.push_back(parse_config(one, p));
      }
    }
    points = std::move(next);
  }
  for (const run_config& p : points)
    validate(p);
  return points;
}

int run_bench_tool(const tool_spec& spec, int argc, char** argv) {
  CLI::App app{spec.description, spec.name};
  config_cli cli(app);
  bool verify = false;
  app.add_flag("--verify", verify, spec.verify_help);
  std::vector<std::string> sweep_specs;
  app.add_option("--sweep", sweep_specs,
                 "run one job per value: --sweep KEY=V1,V2,... (repeatable: the cartesian "
                 "product, first --sweep outermost); one report with a job per point, one CSV "
                 "row per point; the backend is reused while only workload keys change")
      ->type_name("KEY=V1,V2")
      ->take_all();
  std::uint32_t repeat = 1;
  app.add_option("--repeat", repeat,
                 "runs per point; the job is the run with the median rate, bamkit.repeat and the "
                 "CSV give min/max over the runs")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  const run_config cfg = parse_command_line(app, cli, argc, argv);
  const std::string& name = spec.name;

  std::vector<run_config> points;
  try {
    points = expand_sweeps(cfg, parse_sweeps(sweep_specs));
    if (spec.validate) {
      for (const run_config& p : points)
        spec.validate(p);
    }
  } catch (const config_error& e) {
    fmt::print(stderr, "{}: invalid configuration: {}\n", name, e.what());
    return config_error_exit;
  }

  gpu_info gpu;
  bool have_machine = false;
  machine_info machine;
  std::unique_ptr<backend> be;
  const run_config* opened_for = nullptr;
  std::uint64_t ceilings_io_size = 0;
  nlohmann::json ceilings;
  std::vector<run_result> results(points.size());
  std::vector<std::vector<double>> repeat_iops(points.size());
  std::vector<nlohmann::json> point_ceilings(points.size());
  bool failed = false;

  for (std::size_t i = 0; i < points.size(); ++i) {
    const run_config& c = points[i];
    if (!be || !same_backend(*opened_for, c)) {
      be.reset();
      be = spec.make_backend(c.storage.backend);
      if (!be) {
        fmt::print(stderr,
                   "{}: invalid configuration: storage.backend: \"{}\" is not available in this "
                   "build{}, allowed {}\n",
                   name, to_string(c.storage.backend),
                   spec.unavailable_reason ? spec.unavailable_reason(c.storage.backend) : "",
                   spec.available_backends());
        return config_error_exit;
      }
      try {
        be->open(c);
      } catch (const config_error& e) {
        fmt::print(stderr, "{}: invalid configuration: {}\n", name, e.what());
        return config_error_exit;
      } catch (const std::exception& e) {
        fmt::print(stderr, "{}: cannot open backend: {}\n", name, e.what());
        return 1;
      }
      opened_for = &c;
      ceilings_io_size = 0;
    }
    try {
      validate_against(c, be->capabilities());
    } catch (const config_error& e) {
      fmt::print(stderr, "{}: invalid configuration: {}\n", name, e.what());
      return config_error_exit;
    }
    if (!have_machine) {
      if (spec.query_gpu) gpu = spec.query_gpu();
      machine = collect_machine_info(gpu);
      have_machine = true;
    }
    run_result& result = results[i];
    try {
      if (c.report.measure_ceilings && ceilings_io_size != c.workload.io_size) {
        ceilings = be->measure_ceilings(c);
        ceilings_io_size = c.workload.io_size;
      }
      point_ceilings[i] = c.report.measure_ceilings ? ceilings : nlohmann::json(nullptr);
      std::vector<run_result> runs;
      for (std::uint32_t r = 0; r < repeat; ++r) {
        std::atomic<std::uint64_t> done{0};
        run_hooks hooks{&done, verify};
        progress_line progress(spec, done, spec.progress_total ? spec.progress_total(c) : 0);
        runs.push_back(be->run(c, hooks));
        if (!runs.back().error.empty()) break;
      }
      if (runs.size() > 1) {
        for (const auto& r : runs)
          repeat_iops[i].push_back(r.iops());
        std::vector<std::size_t> order(runs.size());
        for (std::size_t k = 0; k < order.size(); ++k)
          order[k] = k;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t x, std::size_t y) { return runs[x].iops() < runs[y].iops(); });
        result = std::move(runs[order[(order.size() - 1) / 2]]);
      } else {
        result = std::move(runs.front());
      }
    } catch (const config_error& e) {
      fmt::print(stderr, "{}: invalid configuration: {}\n", name, e.what());
      return config_error_exit;
    } catch (const std::exception& e) {
      result.error = e.what();
    }
    if (!result.error.empty()) failed = true;
    if (points.size() > 1) {
      fmt::print(stderr, "{}: point {}/{} done: {:.0f} {}/s{}\n", name, i + 1, points.size(),
                 result.iops(), spec.unit, result.error.empty() ? "" : " (failed)");
    }
  }

  std::vector<report_inputs> ins;
  for (std::size_t i = 0; i < points.size(); ++i) {
    report_inputs in;
    in.tool = name;
    in.config = &points[i];
    in.result = &results[i];
    in.machine = &machine;
    in.ceilings = point_ceilings[i];
    in.repeats = static_cast<std::uint32_t>(std::max<std::size_t>(1, repeat_iops[i].size()));
    in.repeat_iops = repeat_iops[i];
    if (spec.decorate) spec.decorate(in);
    ins.push_back(std::move(in));
  }
  std::string command;
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);
  if (write_reports(spec, cfg, ins, ins.size() > 1 || repeat > 1, command) != 0) return 1;
  if (failed) {
    for (const auto& r : results) {
      if (!r.error.empty()) fmt::print(stderr, "{}: run failed: {}\n", name, r.error);
    }
    return 1;
  }
  return 0;
}

}  // namespace bam
