// gpu_staging without CUDA: aligned host buffers, no GPU copies.
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <vector>

#include "gpu_staging.hpp"

namespace bam::tools {

struct gpu_staging::impl {
  std::vector<void*> buffers;
};

bool gpu_staging::available() {
  return false;
}

gpu_staging::gpu_staging(std::size_t slots, std::size_t slot_bytes, bool copy)
    : impl_(std::make_unique<impl>()) {
  if (copy) throw std::runtime_error("GPU copies requested but this build has no CUDA");
  const std::size_t bytes = (slot_bytes + 4095) / 4096 * 4096;
  for (std::size_t i = 0; i < slots; ++i) {
    void* p = std::aligned_alloc(4096, bytes);
    if (p == nullptr) throw std::bad_alloc();
    impl_->buffers.push_back(p);
  }
}

gpu_staging::~gpu_staging() {
  for (void* p : impl_->buffers)
    std::free(p);
}

void* gpu_staging::slot(std::size_t i) const {
  return impl_->buffers[i];
}
void gpu_staging::start_copy(std::size_t, std::size_t) {}
bool gpu_staging::copy_done(std::size_t) {
  return true;
}
double gpu_staging::measure_h2d_bandwidth(std::size_t) {
  return 0.0;
}

}  // namespace bam::tools
