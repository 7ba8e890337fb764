// host_backend.hpp: storage.backend = host. One host emulated NVMe controller per SSD, brought up
// by bam::controller_driver; CPU threads submit through BaM queue pairs (bam::queue_pair), each
// keeping workload.outstanding I/Os in flight; per-command latency from steady_clock.
#pragma once
#include <memory>
#include <vector>

#include "bam/harness/backend.hpp"
#include "bam/storage/host_controllers.hpp"

namespace bam::tools {

class host_backend final : public backend {
 public:
  host_backend();
  ~host_backend() override;
  void open(const run_config& c) override;
  backend_caps capabilities() const override;
  run_result run(const run_config& c, const run_hooks& hooks) override;
  nlohmann::json measure_ceilings(const run_config& c) override;

  /// Most SSDs (controllers) this backend emulates.
  static constexpr std::uint32_t max_ssds = host_controllers::max_ssds;

 private:
  std::unique_ptr<host_controllers> ssds_;
  backend_caps caps_{};
};

}  // namespace bam::tools
