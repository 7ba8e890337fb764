// gpu_staging with CUDA: pinned buffers, per-slot device buffers, streams and events.
// Compiled in CUDA builds; exercised only on a machine with a GPU.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/detail/cuda.hpp"
#include "gpu_staging.hpp"

namespace bam::tools {
struct gpu_staging::impl {
  bool pinned = false;
  std::vector<void*> host;
  std::vector<void*> device;
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> events;
};

bool gpu_staging::available() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

gpu_staging::gpu_staging(std::size_t slots, std::size_t slot_bytes, bool copy)
    : impl_(std::make_unique<impl>()), copy_(copy) {
  const std::size_t bytes = (slot_bytes + 4095) / 4096 * 4096;
  impl_->pinned = available();
  if (copy && !impl_->pinned) throw std::runtime_error("GPU copies requested but no GPU is usable");
  for (std::size_t i = 0; i < slots; ++i) {
    void* p = nullptr;
    if (impl_->pinned) {
      cuda_check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc");
    } else {
      p = std::aligned_alloc(4096, bytes);
      if (p == nullptr) throw std::bad_alloc();
    }
    impl_->host.push_back(p);
    if (copy) {
      void* d = nullptr;
      cuda_check(cudaMalloc(&d, bytes), "cudaMalloc");
      impl_->device.push_back(d);
      cudaStream_t s{};
      cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
      impl_->streams.push_back(s);
      cudaEvent_t e{};
      cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
      impl_->events.push_back(e);
    }
  }
}

gpu_staging::~gpu_staging() {
  for (cudaStream_t s : impl_->streams) {
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }
  for (cudaEvent_t e : impl_->events)
    cudaEventDestroy(e);
  for (void* d : impl_->device)
    cudaFree(d);
  for (void* p : impl_->host) {
    if (impl_->pinned) {
      cudaFreeHost(p);
    } else {
      std::free(p);
    }
  }
}

void* gpu_staging::slot(std::size_t i) const {
  return impl_->host[i];
}

void gpu_staging::start_copy(std::size_t i, std::size_t bytes) {
  cuda_check(cudaMemcpyAsync(impl_->device[i], impl_->host[i], bytes, cudaMemcpyHostToDevice,
                             impl_->streams[i]),
             "cudaMemcpyAsync");
  cuda_check(cudaEventRecord(impl_->events[i], impl_->streams[i]), "cudaEventRecord");
}

bool gpu_staging::copy_done(std::size_t i) {
  const cudaError_t e = cudaEventQuery(impl_->events[i]);
  if (e == cudaErrorNotReady) return false;
  cuda_check(e, "cudaEventQuery");
  return true;
}

double gpu_staging::measure_h2d_bandwidth(std::size_t bytes) {
  if (!available()) return 0.0;
  void* h = nullptr;
  void* d = nullptr;
  cuda_check(cudaHostAlloc(&h, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  cuda_check(cudaMalloc(&d, bytes), "cudaMalloc");
  cuda_check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");  // warm up
  const int reps = 5;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r)
    cuda_check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cudaFree(d);
  cudaFreeHost(h);
  return double(bytes) * reps / s;
}

}  // namespace bam::tools
