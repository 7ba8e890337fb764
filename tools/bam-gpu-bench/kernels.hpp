// bam-gpu-bench: the GPU side (kernels, timing with events), callable from host-only code.
#pragma once
#include <cstdint>
#include <string>

#include "bam/emu/gpu/emulated_drives.hpp"

namespace bam::bench {

struct gpu_info {
  std::string name;
  int driver_version = 0, runtime_version = 0, sms = 0, cc_major = 0, cc_minor = 0;
  std::string pci_bus_id;
};
gpu_info query_gpu();

struct io_run {
  double seconds = 0;
  std::uint64_t ios = 0;
};
/// One kernel of `threads` threads, each doing `ios_per_thread` single-block I/Os at random
/// LBAs, round-robin over drives (thread t: drive t % n, queue (t / n) % queues; with
/// `warp_mapping` the same by warp, so that a warp's lanes share a queue).
io_run run_io(const emu::gpu::drives_view& v, std::uint32_t threads, std::uint32_t ios_per_thread,
              bool write, std::uint64_t seed, std::uint64_t* errors, bool warp_mapping);

/// Allocates the I/O buffers for up to `threads` threads (call before the engine starts).
void reserve_buffers(std::uint32_t threads, std::uint32_t lba_shift);

}  // namespace bam::bench
