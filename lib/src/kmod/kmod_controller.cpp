// kmod_controller: the nvme backend (kernel module + controller driver).
#include "bam/kmod/kmod_controller.hpp"

#include <chrono>
#include <thread>

#include "bam/nvme/spec.hpp"

namespace bam {

namespace {
/// CC.EN = 0, then waits (at most CAP.TO) for CSTS.RDY = 0: the module unpins memory that was
/// unmapped while the controller ran only once it sees the controller so (kmod/README.md).
void disable(bar_ref bar, std::uint32_t timeout_ms) noexcept {
  const nvme::cc_register cc{bar.read32(nvme::reg::cc)};
  if (!cc.enable()) return;
  bar.write32(nvme::reg::cc, cc.raw & ~1u);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (nvme::csts_register{bar.read32(nvme::reg::csts)}.ready() &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
}
}  // namespace

kmod_controller::kmod_controller(const std::string& path, driver_options opts, bool huge_page_rings)
    : device_(std::make_unique<kmod_device>(path)),
      rings_(std::make_unique<kmod_host_allocator>(*device_, huge_page_rings)),
      data_(std::make_unique<kmod_host_allocator>(*device_, false)) {
  opts.mmio_doorbells = true;
  driver_ = std::make_unique<controller_driver>(device_->bar(), *rings_, opts);
}

kmod_controller::~kmod_controller() {
  const std::uint32_t timeout_ms = driver_->info().timeout_ms;
  driver_.reset();                      // shutdown while the rings are still mapped
  disable(device_->bar(), timeout_ms);  // so that the unmaps below release at once
  data_.reset();
  rings_.reset();
  device_.reset();
}

}  // namespace bam
