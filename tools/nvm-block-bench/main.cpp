// nvm-block-bench: raw block I/O benchmark (BaM paper §4.3) over the shared config and reports.
// Backends: host (CPU threads drive BaM queues against host emulated controllers), uring (the
// CPU-orchestrated io_uring baseline); the GPU backends plug in through bam::backend.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvm-block-bench: raw block I/O benchmark of BaM queues and baselines",
               "nvm-block-bench"};
  bam::config_cli cli(app);
  bool verify = false;
  app.add_flag("--verify", verify,
               "fill the dataset with the data pattern first, then check every read against it");
  const bam::run_config cfg = bam::parse_command_line(app, cli, argc, argv);

  std::unique_ptr<bam::backend> backend = bam::tools::make_backend(cfg.storage.backend);
  if (!backend) {
    fmt::print(stderr,
               "nvm-block-bench: invalid configuration: storage.backend: \"{}\" is not available "
               "in this build, allowed {}\n",
               bam::to_string(cfg.storage.backend), bam::tools::available_backends());
    return bam::config_error_exit;
  }
  try {
    backend->open(cfg);
    bam::validate_against(cfg, backend->capabilities());
  } catch (const bam::config_error& e) {
    fmt::print(stderr, "nvm-block-bench: invalid configuration: {}\n", e.what());
    return bam::config_error_exit;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nvm-block-bench: cannot open backend: {}\n", e.what());
    return 1;
  }

  bam::gpu_info gpu;
#if BAM_HAVE_CUDA && !BAM_NO_GPU_INFO  // the static build for the QEMU guest has no CUDA runtime
  gpu = bam::query_gpu_info();
#endif
  const bam::machine_info machine = bam::collect_machine_info(gpu);

  nlohmann::json ceilings;
  bam::run_result result;
  try {
    if (cfg.report.measure_ceilings) ceilings = backend->measure_ceilings(cfg);
    std::atomic<std::uint64_t> done{0};
    bam::run_hooks hooks{&done, verify};
    progress_line progress(done, cfg.workload.ios);
    result = backend->run(cfg, hooks);
  } catch (const std::exception& e) {
    result.error = e.what();
  }

  bam::report_inputs in{"nvm-block-bench", &cfg, &result, &machine, ceilings};
  const nlohmann::json report = bam::fio_jsonplus(in);
  auto stdout_has = [&](const char* f) {
    for (const auto& s : cfg.report.formats) {
      if (s == f) return true;
    }
    return false;
  };
  if (stdout_has("summary")) bam::print_summary(std::cout, in);
  if (stdout_has("json")) std::cout << report.dump(2) << "\n";
  if (stdout_has("csv")) std::cout << bam::csv_header() << "\n" << bam::csv_row(in) << "\n";
  try {
    if (!cfg.report.json.empty()) bam::write_json_file(cfg.report.json, report);
    if (!cfg.report.csv.empty()) bam::append_csv(cfg.report.csv, in);
  } catch (const std::exception& e) {
    fmt::print(stderr, "nvm-block-bench: {}\n", e.what());
    return 1;
  }
  if (!result.error.empty()) {
    fmt::print(stderr, "nvm-block-bench: run failed: {}\n", result.error);
    return 1;
  }
  return 0;
}
