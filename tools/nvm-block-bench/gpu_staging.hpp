// gpu_staging.hpp: the GPU side of the CPU-orchestrated baseline: pinned host buffers
// (cudaHostAlloc) and asynchronous copies of each slot to GPU memory (cudaMemcpyAsync, one
// stream and one event per slot). Compiled from gpu_staging.cu in CUDA builds and from
// gpu_staging_none.cpp otherwise (aligned host memory, no copies).
#pragma once
#include <cstddef>
#include <memory>

namespace bam::tools {

class gpu_staging {
 public:
  /// True when this build has CUDA and a GPU is usable.
  static bool available();
  /// `slots` buffers of `slot_bytes`; with `copy` (requires available()) each slot can be copied
  /// to its own GPU buffer. Throws std::runtime_error on allocation failure.
  gpu_staging(std::size_t slots, std::size_t slot_bytes, bool copy);
  ~gpu_staging();
  gpu_staging(const gpu_staging&) = delete;
  gpu_staging& operator=(const gpu_staging&) = delete;

  /// Host buffer of a slot: pinned when CUDA is usable, 4 KiB aligned.
  void* slot(std::size_t i) const;
  bool copying() const { return copy_; }
  /// Starts copying `bytes` of slot `i` to the GPU.
  void start_copy(std::size_t i, std::size_t bytes);
  /// True once the last copy of slot `i` has finished.
  bool copy_done(std::size_t i);
  /// Bytes per second of one large pinned host-to-device copy (0 without a GPU): a ceiling.
  static double measure_h2d_bandwidth(std::size_t bytes);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
  bool copy_ = false;
};

}  // namespace bam::tools
