// The shared main loop of the benchmark tools, as named steps: parse the command line, plan the
// points (sweeps), check the report paths, run the points (backend reuse, ceilings once per
// io_size, repeats and their median), then write the reports and give the exit status.
#include "bam/harness/tool_main.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "bam/config/cli.hpp"
#include "bam/harness/exit_status.hpp"
#include "bam/report/percentiles.hpp"

namespace bam {
namespace {

/// The unit of run_result::iops() in the lines that print it (tool_spec::rate_unit).
const std::string& rate_unit_of(const tool_spec& spec) {
  return spec.rate_unit.empty() ? spec.unit : spec.rate_unit;
}

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

/// The command line of a benchmark tool, parsed.
struct tool_command {
  run_config config;                ///< the effective config (before the sweeps)
  std::vector<std::string> sweeps;  ///< --sweep KEY=V1,V2,...
  std::uint32_t repeat = 1;         ///< --repeat N
  bool verify = false;              ///< --verify
  std::string text;                 ///< the command line as typed (bamkit.command)
};

std::string joined(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) out += ' ';
    out += argv[i];
  }
  return out;
}

/// The shared options plus --verify, --sweep and --repeat, parsed. Exits as parse_command_line
/// does: on --help, --print-config, --print-schema and rejected command lines.
tool_command parse_tool_command(const tool_spec& spec, int argc, char** argv) {
  CLI::App app{spec.description, spec.name};
  config_cli cli(app);
  for (const tool_option& o : spec.options)
    cli.add_key_option(app, o.flag, o.key, o.help);
  tool_command cmd;
  app.add_flag("--verify", cmd.verify, spec.verify_help);
  app.add_option("--sweep", cmd.sweeps,
                 "run one job per value: --sweep KEY=V1,V2,... (repeatable: the cartesian "
                 "product, first --sweep outermost); one report with a job per point, one CSV "
                 "row per point; the backend is reused while only workload keys change")
      ->type_name("KEY=V1,V2")
      ->take_all();
  app.add_option("--repeat", cmd.repeat,
                 "runs per point; the job is the run with the median rate, bamkit.repeat and the "
                 "CSV give min/max over the runs")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  cmd.config = parse_command_line(app, cli, argc, argv);
  cmd.text = joined(argc, argv);
  return cmd;
}

/// The points to run: the sweeps over the config, each validated, also by the tool's own
/// checks. Throws config_error.
std::vector<run_config> plan_points(const tool_spec& spec, const tool_command& cmd) {
  std::vector<run_config> points = expand_sweeps(cmd.config, parse_sweeps(cmd.sweeps));
  if (spec.validate) {
    for (const run_config& p : points)
      spec.validate(p);
  }
  return points;
}

/// A backend that failed to open for a reason other than its configuration (exit status 1).
class backend_open_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Whether two points can share one opened backend (only workload-like keys differ).
bool same_backend(const run_config& a, const run_config& b) {
  return a.storage == b.storage && a.queues == b.queues && a.uring == b.uring &&
         a.cache == b.cache && a.gpu == b.gpu;
}

/// The opened backend, reused while consecutive points can share it.
class backend_slot {
 public:
  explicit backend_slot(const tool_spec& spec) : spec_(spec) {}

  /// The backend for point `c` (opened now unless the current one fits `c`), with `c` checked
  /// against its capabilities. Throws config_error (no such backend in this build, a config it
  /// refuses) or backend_open_error.
  backend& for_point(const run_config& c) {
    if (!backend_ || !same_backend(*opened_for_, c)) open(c);
    validate_against(c, backend_->capabilities());
    return *backend_;
  }
  /// How many backends it has opened (which one the last for_point() gave).
  std::uint64_t opens() const { return opens_; }

 private:
  void open(const run_config& c) {
    backend_.reset();
    backend_ = spec_.make_backend(c.storage.backend);
    if (!backend_) {
      throw config_error(
          "storage.backend",
          fmt::format("\"{}\" is not available in this build{}, allowed {}",
                      to_string(c.storage.backend),
                      spec_.unavailable_reason ? spec_.unavailable_reason(c.storage.backend) : "",
                      spec_.available_backends()));
    }
    try {
      backend_->open(c);
    } catch (const config_error&) {
      throw;
    } catch (const std::exception& e) {
      throw backend_open_error(e.what());
    }
    opened_for_ = &c;
    ++opens_;
  }

  const tool_spec& spec_;
  std::unique_ptr<backend> backend_;
  const run_config* opened_for_ = nullptr;
  std::uint64_t opens_ = 0;
};

/// The machine's ceilings (bamkit.ceilings), measured once per opened backend and io_size.
class ceilings_cache {
 public:
  /// The ceilings point `c` is reported with, on the slot's current backend: null unless
  /// report.measure_ceilings. config_error (report.measure_ceilings) when the backend measures
  /// none: a report never leaves them out silently.
  nlohmann::json for_point(const backend_slot& slot, backend& be, const run_config& c) {
    if (!c.report.measure_ceilings) return nullptr;
    if (opens_ != slot.opens() || io_size_ != c.workload.io_size) {
      ceilings_ = be.measure_ceilings(c);
      if (ceilings_.is_null()) {
        throw config_error("report.measure_ceilings",
                           fmt::format("true, but backend \"{}\" of this tool measures no "
                                       "ceilings, allowed false",
                                       to_string(c.storage.backend)));
      }
      opens_ = slot.opens();
      io_size_ = c.workload.io_size;
    }
    return ceilings_;
  }

 private:
  std::uint64_t opens_ = 0;  ///< the backend they were measured on (backend_slot::opens)
  std::uint64_t io_size_ = 0;
  nlohmann::json ceilings_;
};

/// What one point gave: the run it is reported with, and the ceilings.
struct point_result {
  run_result result;
  std::vector<double> repeat_iops;                ///< each run's rate, when it ran more than once
  std::vector<latency_histogram> repeat_latency;  ///< and each run's latency
  nlohmann::json ceilings;
};

/// The run with the median rate (the lower middle one of an even count).
run_result median_run(std::vector<run_result> runs) {
  std::vector<std::size_t> order(runs.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return runs[x].iops() < runs[y].iops(); });
  return std::move(runs[order[(order.size() - 1) / 2]]);
}

/// Runs point `c` `repeat` times (stopping at a failed run), with a progress line, and keeps the
/// median run.
void run_repeats(const tool_spec& spec, backend& be, const run_config& c, const tool_command& cmd,
                 point_result& out) {
  std::vector<run_result> runs;
  for (std::uint32_t r = 0; r < cmd.repeat; ++r) {
    std::atomic<std::uint64_t> done{0};
    run_hooks hooks{&done, cmd.verify};
    progress_line progress(spec, done, spec.progress_total ? spec.progress_total(c) : 0);
    runs.push_back(be.run(c, hooks));
    if (!runs.back().error.empty()) break;
  }
  if (runs.size() > 1) {
    // Each run's latency only where every run measured some: tools that time no I/O (cache-bench,
    // the applications) and a failed run's empty histogram would read as zeros.
    bool latencies = true;
    for (const auto& r : runs) {
      out.repeat_iops.push_back(r.iops());
      out.repeat_latency.push_back(r.all_latency());
      latencies = latencies && out.repeat_latency.back().count > 0;
    }
    if (!latencies) out.repeat_latency.clear();
    out.result = median_run(std::move(runs));
  } else {
    out.result = std::move(runs.front());
  }
}

/// Measures one point: its ceilings and its runs. A failure other than a config_error is the
/// point's error (the sweep goes on).
point_result measure_point(const tool_spec& spec, const backend_slot& slot, backend& be,
                           ceilings_cache& ceilings, const run_config& c, const tool_command& cmd) {
  point_result out;
  try {
    out.ceilings = ceilings.for_point(slot, be, c);
    run_repeats(spec, be, c, cmd, out);
  } catch (const config_error&) {
    throw;
  } catch (const std::exception& e) {
    out.result.error = e.what();
  }
  return out;
}

/// What the whole sweep gave.
struct sweep_result {
  std::vector<point_result> points;
  machine_info machine;
};

/// Runs every point in order on its backend; the machine is described once, before the first
/// run. Throws config_error or backend_open_error for what stops the sweep.
sweep_result run_points(const tool_spec& spec, const tool_command& cmd,
                        const std::vector<run_config>& points) {
  sweep_result out;
  backend_slot slot(spec);
  ceilings_cache ceilings;
  bool described = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const run_config& c = points[i];
    backend& be = slot.for_point(c);
    if (!described) {
      out.machine = collect_machine_info(spec.query_gpu ? spec.query_gpu() : gpu_info{});
      described = true;
    }
    out.points.push_back(measure_point(spec, slot, be, ceilings, c, cmd));
    const run_result& r = out.points.back().result;
    if (points.size() > 1) {
      fmt::print(stderr, "{}: point {}/{} done: {:.0f} {}/s{}\n", spec.name, i + 1, points.size(),
                 r.iops(), rate_unit_of(spec), r.error.empty() ? "" : " (failed)");
    }
  }
  return out;
}

/// The report inputs of every point, decorated by the tool.
std::vector<report_inputs> report_inputs_of(const tool_spec& spec,
                                            const std::vector<run_config>& points,
                                            const sweep_result& sweep) {
  std::vector<report_inputs> ins;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const point_result& p = sweep.points[i];
    report_inputs in;
    in.tool = spec.name;
    in.config = &points[i];
    if (spec.summary_workload) in.workload = spec.summary_workload(points[i]);
    in.result = &p.result;
    in.machine = &sweep.machine;
    in.ceilings = p.ceilings;
    in.repeats = static_cast<std::uint32_t>(std::max<std::size_t>(1, p.repeat_iops.size()));
    in.repeat_iops = p.repeat_iops;
    in.repeat_latency = p.repeat_latency;
    if (spec.decorate) spec.decorate(in);
    ins.push_back(std::move(in));
  }
  return ins;
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
        fmt::print("  repeat: {} runs, median {:.0f} {}/s, min {:.0f}, max {:.0f}", in.repeats,
                   in.result->iops(), rate_unit_of(spec),
                   *std::min_element(in.repeat_iops.begin(), in.repeat_iops.end()),
                   *std::max_element(in.repeat_iops.begin(), in.repeat_iops.end()));
        if (!in.repeat_latency.empty()) {  // the runs' tails: they move more than their rates
          std::vector<std::uint64_t> tail;
          for (const latency_histogram& h : in.repeat_latency)
            tail.push_back(percentile(h, 99.99));
          const auto [lo, hi] = std::minmax_element(tail.begin(), tail.end());
          fmt::print("; p99.99 over the runs {:.1f}-{:.1f} us", double(*lo) / 1e3,
                     double(*hi) / 1e3);
        }
        fmt::print("\n");
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
    return exit_run_failed;
  }
  return exit_ok;
}

/// exit_ok; exit_run_failed after naming every run that could not be done; else
/// exit_io_errors after naming every point whose I/Os failed (errors, timeouts, verify
/// mismatches).
int exit_status(const tool_spec& spec, const sweep_result& sweep) {
  bool failed = false;
  bool io_failed = false;
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    const run_result& r = sweep.points[i].result;
    const std::string point =
        sweep.points.size() > 1 ? fmt::format(" (point {})", i + 1) : std::string();
    if (!r.error.empty()) {
      fmt::print(stderr, "{}: run failed{}: {}\n", spec.name, point, r.error);
      failed = true;
    } else if (r.io_failed()) {
      std::string by_status;
      for (const auto& [status, n] : r.errors_by_status)
        by_status += fmt::format("{}{}: {}", by_status.empty() ? "" : ", ", status, n);
      fmt::print(stderr, "{}: I/O failed{}: {} errors ({} timeouts){}, {} verify mismatches\n",
                 spec.name, point, r.errors, r.timeouts,
                 by_status.empty() ? "" : " [" + by_status + "]", r.verify_mismatches);
      io_failed = true;
    }
  }
  if (failed) return exit_run_failed;
  return io_failed ? exit_io_errors : exit_ok;
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
                                                "uring.*, cache_bench.*, gpu.*, taxi.*, graph.*",
                                                a.key));
    }
    std::string_view rest = std::string_view(s).substr(eq + 1);
    while (true) {
      const auto comma = rest.find(',');
      // Blanks around a value are the list's layout ("read, write"), not the value's.
      std::string_view v = rest.substr(0, comma);
      const auto first = v.find_first_not_of(" \t");
      v = first == std::string_view::npos ? std::string_view{}
                                          : v.substr(first, v.find_last_not_of(" \t") - first + 1);
      a.values.push_back(parse_cli_value(v, a.key));
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
  const tool_command cmd = parse_tool_command(spec, argc, argv);
  try {
    const std::vector<run_config> points = plan_points(spec, cmd);
    check_report_paths(cmd.config.report);
    const sweep_result sweep = run_points(spec, cmd, points);
    const std::vector<report_inputs> ins = report_inputs_of(spec, points, sweep);
    if (write_reports(spec, cmd.config, ins, ins.size() > 1 || cmd.repeat > 1, cmd.text) != 0) {
      return exit_run_failed;
    }
    return exit_status(spec, sweep);
  } catch (const config_error& e) {
    fmt::print(stderr, "{}: invalid configuration: {}\n", spec.name, e.what());
    return config_error_exit;
  } catch (const backend_open_error& e) {
    fmt::print(stderr, "{}: cannot open backend: {}\n", spec.name, e.what());
    return exit_run_failed;
  }
}

}  // namespace bam
