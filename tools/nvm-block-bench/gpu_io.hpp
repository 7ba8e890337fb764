// gpu_io.hpp: the GPU side of nvm-block-bench's GPU backends (gpu_io.cu, CUDA builds only),
// callable from host C++ without CUDA headers. One kernel of workload.threads GPU threads, each
// doing its share of the I/Os one at a time (outstanding = 1, BaM style), either through the
// queues of GPU-emulated drives (submit_and_wait) or by reading/writing pinned host media
// directly (zero-copy). Per-command latency from %globaltimer into per-block shared-memory
// histograms, merged into a few global ones and then on the host; kernel time from CUDA events.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bam/config/run_config.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/harness/workload.hpp"
#include "bam/report/latency_histogram.hpp"

namespace bam::tools {

/// Device memory free now (bytes).
std::uint64_t gpu_free_memory();

struct gpu_io_params {
  /// threads, ssd_count, dataset, pattern, op, seed; io_size is the runner's (it sized the
  /// buffers for it) and is ignored here.
  workload_params w{};
  std::uint64_t ios = 0;          ///< total I/Os (thread t does ios/threads, +1 for t < rest)
  std::uint64_t duration_ns = 0;  ///< 0: no time limit; else each thread stops after it
  bool verify = false;            ///< fill writes with, and check reads against, the pattern
  /// Per command (emulated; command_timeout_ns): then an error (sc::host_timeout). A thread
  /// whose command timed out goes on once the queue let go of the command's ID (its buffer is
  /// safe to reuse), waiting at most another timeout; else it stops.
  std::uint64_t timeout_ns = 30'000'000'000;
  gpu_queue_mapping mapping = gpu_queue_mapping::warp;  ///< emulated: SSD and queue of a thread
  /// emulated: commands each thread keeps in flight (1 .. max_gpu_outstanding): it submits that
  /// many, then waits for them in an order of its own (newest first, or from a rotating start)
  std::uint32_t outstanding = 1;
  /// emulated: every thread is its queue pair's only user (outstanding 1, no other thread
  /// mapped to it): it holds its queue pair (bam::queue_hold) and submits without the shared
  /// protocol (gpu.queue_access auto; gpu_backend_base::params_of decides).
  bool exclusive = false;
};

/// The most commands one GPU thread of the emulated backend keeps in flight.
inline constexpr std::uint32_t max_gpu_outstanding = 8;

struct gpu_io_result {
  latency_histogram read_lat{}, write_lat{};
  std::uint64_t reads = 0, writes = 0, errors = 0;
  std::map<std::uint16_t, std::uint64_t> errors_by_code;  ///< failed commands, SCT << 8 | SC
  std::uint64_t verified = 0, verify_errors = 0;
  std::vector<std::uint64_t> per_ssd;  ///< I/Os completed per SSD, counted by the threads
  double kernel_s = 0;                 ///< CUDA events around the kernel
  /// The kernel's threads resident at once at most: its blocks running at once (counted by the
  /// blocks as they start and end) x their threads, at most the run's threads (a partial last
  /// block among them counts whole: at most 255 over).
  std::uint64_t peak_resident_threads = 0;
  int gpu_sms = 0;  ///< the GPU's multiprocessors
};

/// Buffers (device memory, one io_size slot per thread, 4 KiB aligned, with a PRP list page per
/// thread when io_size > 8 KiB), histograms and counters for runs of up to `max_threads` threads
/// of `io_size`-byte I/Os. Construct before emulated_drives::start() (it allocates); runs then
/// allocate nothing.
class gpu_io_runner {
 public:
  gpu_io_runner(std::uint32_t max_threads, std::uint64_t io_size);
  ~gpu_io_runner();
  gpu_io_runner(const gpu_io_runner&) = delete;
  gpu_io_runner& operator=(const gpu_io_runner&) = delete;
  std::uint32_t max_threads() const;
  std::uint64_t io_size() const;

  /// `max_threads` counts buffer slots: a run of T threads with O commands in flight each needs
  /// T x O of them.
  /// Device bytes a runner for these sizes allocates (to check against free memory first).
  static std::uint64_t bytes_needed(std::uint32_t max_threads, std::uint64_t io_size);
  /// Loads the kernels' modules (call before emulated_drives::start()).
  static void preload();

  /// p.mapping warp: warp w = t / 32 uses queue (w / ssds) % queues_per_ssd of its SSD, the SSD
  /// w % ssds (all lanes of a warp on one queue); thread: the same with t for w (the BaM paper's
  /// benchmark). Sequential pattern: the SSD of the I/O (io_stream's striping). LBAs are the
  /// drives' (drives.lba_shift()). The queue set decides the protocol (storage.protocol):
  /// hardware_drives_ref, whose reads are each followed by the ordering read before the data
  /// is used (verified or not), or drives_ref (emulator).
  gpu_io_result run_emulated(const emu::gpu::hardware_drives_ref& drives, const gpu_io_params& p);
  gpu_io_result run_emulated(const emu::gpu::drives_ref& drives, const gpu_io_params& p);
  /// media[s]: device-accessible pointer to SSD s's media (pinned, mapped host memory) of LBAs
  /// of 2^lba_shift bytes (the data pattern's block). The lanes of a warp copy their 32 I/Os
  /// together (coalesced); each I/O's latency is its warp's round.
  gpu_io_result run_zerocopy(const std::vector<std::byte*>& media, std::uint32_t lba_shift,
                             const gpu_io_params& p);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Pinned, mapped host memory (cudaHostAlloc) for zero-copy media; freed by the deleter.
struct pinned_deleter {
  void operator()(std::byte* p) const;
};
using pinned_ptr = std::unique_ptr<std::byte, pinned_deleter>;
pinned_ptr alloc_pinned(std::uint64_t bytes);
/// The device's address of pinned, mapped host memory.
std::byte* device_pointer(std::byte* pinned);

/// Per-queue counters of emulated drives, summed per drive (read after stop()); the same queues
/// whatever the protocol.
struct queue_totals {
  std::uint64_t sq_doorbell_writes = 0, cq_doorbell_writes = 0, timeouts = 0, late_completions = 0;
  /// SQ tickets taken on the SSD's queues (one a submission, also one that found the queue failed
  /// or stalled): in all, and on the queue with the fewest and the most.
  std::uint64_t queue_commands = 0, queue_commands_min = ~std::uint64_t{0}, queue_commands_max = 0;
};
std::vector<queue_totals> read_queue_totals(const queue_set_params& drives);

}  // namespace bam::tools
