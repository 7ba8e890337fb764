// nvme_backend.hpp: storage.backend = nvme in host mode. One real NVMe controller per SSD, bound
// to bamkit.ko and opened from storage.device_paths (bam::kmod_controller); CPU threads drive
// BaM queue pairs whose rings and data buffers are pinned host memory, doorbells written as MMIO.
#pragma once
#include <memory>

#include "bam/harness/backend.hpp"
#include "bam/storage/kmod_controllers.hpp"

namespace bam::tools {

class nvme_backend final : public backend {
 public:
  nvme_backend();
  ~nvme_backend() override;
  void open(const run_config& c) override;
  backend_caps capabilities() const override;
  run_result run(const run_config& c, const run_hooks& hooks) override;

 private:
  std::unique_ptr<kmod_controllers> ssds_;
  backend_caps caps_{};
};

}  // namespace bam::tools
