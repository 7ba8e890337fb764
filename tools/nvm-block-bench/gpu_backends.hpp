// gpu_backends.hpp: the GPU backends of nvm-block-bench (CUDA builds only).
//   emulated: storage.ssd_count GPU-emulated NVMe SSDs (bam::emu::gpu::emulated_drives), GPU
//   threads
//             submit through their queues and wait (outstanding = 1, BaM's benchmark);
//   zerocopy: GPU threads read/write pinned host media directly (the paper's DRAM-only target).
// Both: one GPU kernel per run timed with CUDA events, per-command latency from %globaltimer.
#pragma once
#include <memory>
#include <vector>

#include "bam/harness/backend.hpp"
#include "gpu_io.hpp"

namespace bam::tools {

/// What both GPU backends share: the I/O runner, the checks, the report of a run.
class gpu_backend_base : public backend {
 public:
  backend_caps capabilities() const override { return caps_; }
  nlohmann::json measure_ceilings(const run_config& c) override;

  /// Most SSDs a GPU backend runs (per-block SSD counters in shared memory).
  static constexpr std::uint32_t max_ssds = 64;

 protected:
  /// Throws config_error when no GPU is usable or the workload is one the GPU path lacks.
  void check_common(const run_config& c, const char* name);
  /// Allocates (or keeps) the runner for `c`'s threads and io_size; throws config_error when the
  /// buffers do not fit in GPU memory. Only while no engine runs.
  gpu_io_runner& runner_for(const run_config& c);
  static gpu_io_params params_of(const run_config& c, const run_hooks& hooks);
  /// run_result of a finished kernel (the common part).
  static run_result result_of(const run_config& c, const gpu_io_result& r, const run_hooks& hooks);
  /// Pinned media of SSD i (host pointer), nullptr when it is not in host memory.
  virtual std::byte* pinned_media(std::uint32_t i) const = 0;
  /// Writes the data pattern into every block of the dataset of pinned media (for --verify).
  void fill_pattern_once(const run_config& c);

  backend_caps caps_{};
  std::unique_ptr<gpu_io_runner> runner_;
  bool filled_ = false;
};

class emulated_backend final : public gpu_backend_base {
 public:
  emulated_backend();
  ~emulated_backend() override;
  void open(const run_config& c) override;
  run_result run(const run_config& c, const run_hooks& hooks) override;

 private:
  std::byte* pinned_media(std::uint32_t i) const override;
  struct impl;
  std::unique_ptr<impl> impl_;
};

class zerocopy_backend final : public gpu_backend_base {
 public:
  void open(const run_config& c) override;
  run_result run(const run_config& c, const run_hooks& hooks) override;

 private:
  std::byte* pinned_media(std::uint32_t i) const override { return media_[i].get(); }
  std::vector<pinned_ptr> media_;
};

}  // namespace bam::tools
