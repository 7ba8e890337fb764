// uring_backend.hpp: storage.backend = uring, the CPU-orchestrated baseline. CPU threads read
// a file with io_uring (buffered from the page cache, or O_DIRECT; optionally into registered
// buffers) into pinned buffers and, with a GPU, copy every read to GPU memory.
#pragma once
#include <cstdint>
#include <string>

#include "bam/harness/backend.hpp"

namespace bam::tools {

class uring_backend final : public backend {
 public:
  uring_backend() = default;
  ~uring_backend() override;
  void open(const run_config& c) override;
  backend_caps capabilities() const override;
  run_result run(const run_config& c, const run_hooks& hooks) override;
  nlohmann::json measure_ceilings(const run_config& c) override;

 private:
  int fd_ = -1;
  std::uint64_t file_bytes_ = 0;
  bool gpu_copy_ = false;
  bool created_ = false;
};

}  // namespace bam::tools
