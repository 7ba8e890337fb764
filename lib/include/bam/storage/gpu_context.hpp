// bam/storage/gpu_context.hpp: API (CUDA builds only). The library's entry point for
// applications whose threads are GPU threads: from a validated run config to running SSDs
// (storage.backend emulated: GPU-emulated SSDs whose controller engine runs on this GPU), named
// regions laid out on them, a BaM cache in GPU memory and typed bam::arrays over each region for
// the application's kernels, statistics, and a clean stop. CPU threads:
// bam/storage/host_context.hpp.
//
//   bam::gpu_context ctx(cfg);                         // drives allocated, engine stopped
//   ctx.add_region("numbers", n * 8);
//   ctx.write_region("numbers", values.data(), n * 8); // into the emulated media
//   ctx.build_cache();                                 // cache.line_size, cache.capacity
//   auto a = ctx.array<std::uint64_t>("numbers");      // pass by value to kernels
//   bam::preload_kernel(my_kernel);                    // before start(): see below
//   ctx.start();                                       // the drives' engine runs
//   my_kernel<<<grid, block, 0, stream>>>(a, ...);     // a non-blocking stream
//   cudaStreamSynchronize(stream);
//   ctx.close();                                       // write back, flush, stop, free
//
// The residency rule of the emulated drives (bam/emu/gpu/emulated_drives.hpp) holds: while the
// engine runs (start() .. stop()), launch application kernels only on non-blocking streams, call
// nothing that waits for the whole device (cudaDeviceSynchronize, cudaMalloc, cudaFree), and load
// every application kernel before start() (preload_kernel, or CUDA_MODULE_LOADING=EAGER).
//
// The protocol the GPU threads speak to the drives (storage.protocol) is part of the type, since
// the cache's and the arrays' types depend on the queue set: gpu_context is protocol hardware
// (the config's default: what a real controller needs), emulator_gpu_context protocol emulator
// (device scope, an upper bound). A program that runs either writes its kernels over
// basic_gpu_context<P>::array_type and picks P from the config (cache-bench does).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/gpu_storage.hpp"
#include "bam/config/config_io.hpp"
#include "bam/config/enums.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/storage/dataset.hpp"
#include "bam/storage/storage_context.hpp"

namespace bam {

/// The storage context of GPU threads speaking protocol `P` to the drives (the queue set
/// emu::gpu::drives_ref_for<P>). Instantiated for both protocols in the library.
template <storage_protocol P>
class basic_gpu_context
    : public storage_context<basic_gpu_context<P>,
                             bam::cache<gpu_cache_storage<emu::gpu::drives_ref_for<P>>>> {
  using base = storage_context<basic_gpu_context<P>,
                               bam::cache<gpu_cache_storage<emu::gpu::drives_ref_for<P>>>>;

 public:
  using queue_set_type = emu::gpu::drives_ref_for<P>;
  using typename base::cache_type;
  static constexpr storage_protocol protocol = P;

  /// Validates `c` and allocates its drives (storage.ssd_count GPU-emulated SSDs of
  /// storage.media.size_bytes, storage.model timing, queues.pairs_per_ssd x queues.depth
  /// queues); the engine is stopped. Throws config_error for another backend, a
  /// storage.protocol other than P, no usable GPU, or a configuration the drives cannot have;
  /// std::runtime_error on CUDA errors.
  explicit basic_gpu_context(const run_config& c, const layout_options& layout = {});
  ~basic_gpu_context();  ///< close(), errors swallowed
  basic_gpu_context(const basic_gpu_context&) = delete;
  basic_gpu_context& operator=(const basic_gpu_context&) = delete;

  // write_region (storage_context): route media (what automatic picks) writes straight into the
  // emulated media, no NVMe command (honest for emulated SSDs: what a real drive would pay is
  // the queue route); route queues: NVMe writes of up to a stripe unit by GPU threads through
  // the drives' queues from a staging buffer in GPU memory (what real SSDs need). With the
  // engine stopped (std::logic_error otherwise); config_error (storage.model) for a model that
  // moves no data; std::runtime_error when a write fails.

  using base::build_cache;
  /// Builds exactly `cc` (cc.lines = 0: through the last region), replacing an earlier cache
  /// (written back first). Stops the engine (allocation); start() it again before using the
  /// arrays.
  cache_type& build_cache(cache_config cc);

  /// Launches the drives' engine; returns once it runs. Load every kernel that will use the
  /// arrays before (preload_kernel).
  void start();
  /// Stops the engine (every application kernel must have finished).
  void stop();
  bool running() const { return drives_->running(); }
  /// Writes every dirty line back and flushes the SSDs (the engine runs for it); true when all
  /// of it succeeded.
  bool flush();

  /// The drives: per-drive engine statistics (after stop()), the GPU timer rate, host media.
  const emu::gpu::emulated_drives& drives() const { return *drives_; }
  /// For reports: backend, protocol, drives, media, the dataset, the writes and what real
  /// hardware would do differently.
  nlohmann::json describe() const;

  /// Writes back and flushes the cache, drops it, stops the engine. Idempotent.
  void close();

 private:
  friend base;
  struct staging;
  void check_open(const char* what) const;
  write_result write_data(const region& r, const void* data, std::uint64_t bytes,
                          write_route route);
  write_result write_to_media(const region& r, const void* data, std::uint64_t bytes);
  write_result write_through_queues(const region& r, const void* data, std::uint64_t bytes);
  /// Writes the manifest into SSD 0's media at byte 0; no NVMe command (returns 0).
  std::uint64_t store_manifest(const std::vector<std::byte>& m);
  std::vector<std::byte> fetch_manifest();

  std::unique_ptr<emu::gpu::emulated_drives> drives_;
  void* stream_ = nullptr;  ///< cudaStream_t, non-blocking: the context's copies and kernels
  bool closed_ = false;
};

extern template class basic_gpu_context<storage_protocol::hardware>;
extern template class basic_gpu_context<storage_protocol::emulator>;

/// Protocol hardware (storage.protocol's default): GPU threads run what a real controller needs.
using gpu_context = basic_gpu_context<storage_protocol::hardware>;
/// Protocol emulator: device-scope doorbells and polling, an upper bound.
using emulator_gpu_context = basic_gpu_context<storage_protocol::emulator>;

}  // namespace bam
