// kmod_controller: the nvme backend (kernel module + controller driver).
#include "bam/kmod/kmod_controller.hpp"

namespace bam {

kmod_controller::kmod_controller(const std::string& path, driver_options opts, bool huge_page_rings)
    : device_(std::make_unique<kmod_device>(path)),
      rings_(std::make_unique<kmod_host_allocator>(*device_, huge_page_rings)),
      data_(std::make_unique<kmod_host_allocator>(*device_, false)) {
  opts.mmio_doorbells = true;
  driver_ = std::make_unique<controller_driver>(device_->bar(), *rings_, opts);
}

kmod_controller::~kmod_controller() {
  driver_.reset();  // shutdown while the rings are still mapped
  data_.reset();
  rings_.reset();
  device_.reset();
}

}  // namespace bam
