// nvm-block-bench: raw block I/O benchmark (BaM paper §4.3) over the shared config and reports.
// Backends: host (CPU threads drive BaM queues against host emulated controllers), uring (the
// CPU-orchestrated io_uring baseline); the GPU backends plug in through bam::backend.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "backends.hpp"
#include "bam/config/cli.hpp"
#include "bam/report/fio_report.hpp"
#if BAM_HAVE_CUDA
#include "bam/report/gpu_info.hpp"
#endif

namespace {

/// Prints "IOs done" on stderr once a second after the first two seconds.
class progress_line {
 public:
  progress_line(const std::atomic<std::uint64_t>& done, std::uint64_t total)
      : thread_([this, &done, total] { loop(done, total); }) {}
  ~progress_line() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void loop(const std::atomic<std::uint64_t>& done, std::uint64_t total) {
    const auto start = std::chrono::steady_clock::now();
    auto next = start + std::chrono::seconds(2);
    bool printed = false;
    std::unique_lock lock(mutex_);
    while (!cv_.wait_until(lock, next, [this] { return stop_; })) {
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::uint64_t n = done.load(std::memory_order_relaxed);
      if (total != 0) {
        fmt::print(stderr, "\rnvm-block-bench: {:.0f} s, {}/{} IOs ({:.0f}%), {:.0f} IOPS   ", s, n,
                   total, 100.0 * double(n) / double(total), double(n) / s);
      } else {
        fmt::print(stderr, "\rnvm-block-bench: {:.0f} s, {} IOs, {:.0f} IOPS   ", s, n,
                   double(n) / s);
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

/// --sweep KEY=V1,V2,...: the key and its values (each JSON or a bare string).
struct sweep_axis {
  std::string key;
  std::vector<nlohmann::json> values;
};

std::vector<sweep_axis> parse_sweeps(const std::vector<std::string>& specs) {
  std::vector<sweep_axis> axes;
  for (const std::string& s : specs) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      throw bam::config_error(
          "--sweep", fmt::format("'{}' is not KEY=V1,V2,... (e.g. workload.threads=1024,4096)", s));
    }
    sweep_axis a{s.substr(0, eq), {}};
    if (a.key.rfind("report.", 0) == 0) {
      throw bam::config_error("--sweep", fmt::format("'{}': report keys cannot be swept, allowed "
                                                     "storage.*, queues.*, workload.*, uring.*",
                                                     a.key));
    }
    std::string_view rest = std::string_view(s).substr(eq + 1);
    while (true) {
      const auto comma = rest.find(',');
      a.values.push_back(bam::parse_cli_value(rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    axes.push_back(std::move(a));
  }
  return axes;
}

/// The cartesian product of the axes over `base` (the first axis outermost), each point parsed
/// and validated: a bad key or value throws config_error naming the key.
std::vector<bam::run_config> expand(const bam::run_config& base,
                                    const std::vector<sweep_axis>& axes) {
  std::vector<bam::run_config> points{base};
  for (const sweep_axis& a : axes) {
    std::vector<bam::run_config> next;
    for (const bam::run_config& p : points) {
      for (const nlohmann::json& v : a.values) {
        nlohmann::json one = nlohmann::json::object();
        bam::set_json_path(one, a.key, v);
        next.push_back(bam::parse_config(one, p));
      }
    }
    points = std::move(next);
  }
  for (const bam::run_config& p : points)
    bam::validate(p);
  return points;
}

/// Whether two points can share one opened backend (only workload keys differ).
bool same_backend(const bam::run_config& a, const bam::run_config& b) {
  return a.storage == b.storage && a.queues == b.queues && a.uring == b.uring && a.cache == b.cache;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvm-block-bench: raw block I/O benchmark of BaM queues and baselines",
               "nvm-block-bench"};
  bam::config_cli cli(app);
  bool verify = false;
  app.add_flag("--verify", verify,
               "fill the dataset with the data pattern first, then check every read against it");
  std::vector<std::string> sweep_specs;
  app.add_option("--sweep", sweep_specs,
                 "run one job per value: --sweep KEY=V1,V2,... (repeatable: the cartesian "
                 "product, first --sweep outermost); one report with a job per point, one CSV "
                 "row per point; the backend is reused while only workload keys change")
      ->type_name("KEY=V1,V2")
      ->take_all();
  std::uint32_t repeat = 1;
  app.add_option("--repeat", repeat,
                 "runs per point; the job is the run with the median IOPS, bamkit.repeat and the "
                 "CSV give min/max over the runs")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  const bam::run_config cfg = bam::parse_command_line(app, cli, argc, argv);

  std::vector<bam::run_config> points;
  try {
    points = expand(cfg, parse_sweeps(sweep_specs));
  } catch (const bam::config_error& e) {
    fmt::print(stderr, "nvm-block-bench: invalid configuration: {}\n", e.what());
    return bam::config_error_exit;
  }

  bam::gpu_info gpu;
  bool have_machine = false;
  bam::machine_info machine;
  std::unique_ptr<bam::backend> backend;
  const bam::run_config* opened_for = nullptr;
  std::uint64_t ceilings_io_size = 0;
  nlohmann::json ceilings;
  std::vector<bam::run_result> results(points.size());
  std::vector<std::vector<double>> repeat_iops(points.size());
  std::vector<nlohmann::json> point_ceilings(points.size());
  bool failed = false;

  for (std::size_t i = 0; i < points.size(); ++i) {
    const bam::run_config& c = points[i];
    if (!backend || !same_backend(*opened_for, c)) {
      backend.reset();
      backend = bam::tools::make_backend(c.storage.backend);
      if (!backend) {
        fmt::print(stderr,
                   "nvm-block-bench: invalid configuration: storage.backend: \"{}\" is not "
                   "available in this build{}, allowed {}\n",
                   bam::to_string(c.storage.backend),
                   bam::tools::unavailable_reason(c.storage.backend),
                   bam::tools::available_backends());
        return bam::config_error_exit;
      }
      try {
        backend->open(c);
      } catch (const bam::config_error& e) {
        fmt::print(stderr, "nvm-block-bench: invalid configuration: {}\n", e.what());
        return bam::config_error_exit;
      } catch (const std::exception& e) {
        fmt::print(stderr, "nvm-block-bench: cannot open backend: {}\n", e.what());
        return 1;
      }
      opened_for = &c;
      ceilings_io_size = 0;
    }
    try {
      bam::validate_against(c, backend->capabilities());
    } catch (const bam::config_error& e) {
      fmt::print(stderr, "nvm-block-bench: invalid configuration: {}\n", e.what());
      return bam::config_error_exit;
    }
    if (!have_machine) {
#if BAM_HAVE_CUDA && !BAM_NO_GPU_INFO  // the static build for the QEMU guest has no CUDA runtime
      gpu = bam::query_gpu_info();
#endif
      machine = bam::collect_machine_info(gpu);
      have_machine = true;
    }
    bam::run_result& result = results[i];
    try {
      if (c.report.measure_ceilings && ceilings_io_size != c.workload.io_size) {
        ceilings = backend->measure_ceilings(c);
        ceilings_io_size = c.workload.io_size;
      }
      point_ceilings[i] = c.report.measure_ceilings ? ceilings : nlohmann::json(nullptr);
      std::vector<bam::run_result> runs;
      for (std::uint32_t r = 0; r < repeat; ++r) {
        std::atomic<std::uint64_t> done{0};
        bam::run_hooks hooks{&done, verify};
        progress_line progress(done, c.workload.ios);
        runs.push_back(backend->run(c, hooks));
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
    } catch (const bam::config_error& e) {
      fmt::print(stderr, "nvm-block-bench: invalid configuration: {}\n", e.what());
      return bam::config_error_exit;
    } catch (const std::exception& e) {
      result.error = e.what();
    }
    if (!result.error.empty()) failed = true;
    if (points.size() > 1) {
      fmt::print(stderr, "nvm-block-bench: point {}/{} done: {:.0f} IOPS{}\n", i + 1, points.size(),
                 result.iops(), result.error.empty() ? "" : " (failed)");
    }
  }

  std::vector<bam::report_inputs> ins;
  for (std::size_t i = 0; i < points.size(); ++i) {
    bam::report_inputs in;
    in.tool = "nvm-block-bench";
    in.config = &points[i];
    in.result = &results[i];
    in.machine = &machine;
    in.ceilings = point_ceilings[i];
    in.repeats = static_cast<std::uint32_t>(std::max<std::size_t>(1, repeat_iops[i].size()));
    in.repeat_iops = repeat_iops[i];
    ins.push_back(std::move(in));
  }
  const bool multi = ins.size() > 1 || repeat > 1;
  nlohmann::json report = multi ? bam::fio_jsonplus_multi(ins) : bam::fio_jsonplus(ins[0]);
  std::string command;
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);
  report["bamkit"]["command"] = command;
  auto stdout_has = [&](const char* f) {
    for (const auto& s : cfg.report.formats) {
      if (s == f) return true;
    }
    return false;
  };
  if (stdout_has("summary")) {
    for (const auto& in : ins) {
      bam::print_summary(std::cout, in);
      if (in.repeats > 1) {
        fmt::print("  repeat: {} runs, median {:.0f} IOPS, min {:.0f}, max {:.0f}\n", in.repeats,
                   in.result->iops(),
                   *std::min_element(in.repeat_iops.begin(), in.repeat_iops.end()),
                   *std::max_element(in.repeat_iops.begin(), in.repeat_iops.end()));
      }
    }
  }
  if (stdout_has("json")) std::cout << report.dump(2) << "\n";
  if (stdout_has("csv")) {
    std::cout << bam::csv_header() << "\n";
    for (const auto& in : ins)
      std::cout << bam::csv_row(in) << "\n";
  }
  try {
    if (!cfg.report.json.empty()) bam::write_json_file(cfg.report.json, report);
    if (!cfg.report.csv.empty()) {
      for (const auto& in : ins)
        bam::append_csv(cfg.report.csv, in);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "nvm-block-bench: {}\n", e.what());
    return 1;
  }
  if (failed) {
    for (const auto& r : results) {
      if (!r.error.empty()) fmt::print(stderr, "nvm-block-bench: run failed: {}\n", r.error);
    }
    return 1;
  }
  return 0;
}
