// The host driver's watchdog over GPU-emulated drives' I/O queues (internal to emulated_drives,
// drives_config::recovery). The host side of bam/driver/queue_recovery.hpp's policy for queues
// whose bookkeeping lives in GPU memory and whose users are GPU threads:
//   - every period it copies each drive's queue counters (two 128-byte lines per queue, one
//     strided copy per drive) and, for a queue with abandoned command IDs, the state words of
//     its completion boxes;
//   - it sends an Abort through the drive's admin queue (host memory, served by the engine) for
//     each ID abandoned and not yet aborted; an Abort that found nothing is sent once more half a
//     timeout later;
//   - it fails the queue (a store to its `failed` word) when an Abort gets no answer, when an ID
//     is still abandoned a timeout after its Abort, or when more than abandoned_limit of its IDs
//     are abandoned at once. A failed queue is an episode (recoveries) that stays open until the
//     drives stop, where it is counted in recovery_failures: GPU threads are not counted as a
//     queue's users, so the driver cannot know when none is inside, which recreating the queue
//     in place needs; start() creates every queue anew.
// The IDs of aborted commands come back through the queue itself: the GPU thread that next passes
// the Command Abort Requested completion frees the ID of the waiter that gave up (GPU queues leave
// late IDs to their CQ-lock holder, queue_counters::owner_reclaims 0).
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bam/driver/recovery_options.hpp"
#include "bam/emu/gpu/drive_layout.hpp"
#include "bam/queue/queue_pair.hpp"
#include "bam/report/recovery_counts.hpp"

namespace bam::emu::gpu::detail {

class gpu_recovery {
 public:
  /// One drive: its queue block (device memory), laid out by `layout`, and its admin queue.
  struct drive {
    const std::byte* block = nullptr;
    queue_pair* admin = nullptr;
  };
  gpu_recovery(drive_layout layout, recovery_options o);
  ~gpu_recovery();
  gpu_recovery(const gpu_recovery&) = delete;
  gpu_recovery& operator=(const gpu_recovery&) = delete;

  /// Starts watching `drives` (their queues just created) on a thread of its own.
  void start(std::vector<drive> drives);
  /// One last pass, then stops and joins the thread; open episodes end in recovery_failures.
  void stop();

  recovery_counts counts() const;
  std::string last_failure() const;

 private:
  struct pending_abort {
    std::uint64_t since_ns = 0;
    bool found = false, retried = false;
  };
  struct watched {
    std::map<std::uint16_t, pending_abort> pending;  ///< by command ID
    bool open = false;                               ///< failed: an episode until stop
    std::string reason;                              ///< why it failed (open)
  };

  void pass();
  void look(std::uint32_t d, std::uint32_t q, std::uint32_t abandoned, bool failed);
  void abort(std::uint32_t d, std::uint32_t q, std::uint16_t cid, pending_abort& a);
  void fail(std::uint32_t d, std::uint32_t q, const std::string& why);
  /// Where the state word of command `cid`'s completion box of drive d's queue q lies (device).
  const std::byte* box_state(std::uint32_t d, std::uint32_t q, std::uint32_t cid) const;
  void copy_from(void* dst, std::size_t dpitch, const std::byte* src, std::size_t spitch,
                 std::size_t width, std::size_t rows);
  void note(const std::string& msg);
  void release();  ///< frees the stream and pinned buffers (destructor, failed constructor)

  drive_layout layout_;
  queue_state_layout state_;
  recovery_options opts_;
  std::vector<drive> drives_;
  std::vector<watched> queues_;  ///< [drive * queues + queue]
  cudaStream_t stream_ = nullptr;
  std::byte* lines_ = nullptr;       ///< pinned: two counter lines per queue of one drive
  std::uint32_t* states_ = nullptr;  ///< pinned: one queue's box state words
  std::uint32_t* one_ = nullptr;     ///< pinned: the value 1, for failing a queue
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mutex_;  ///< last_failure_
  std::string last_failure_;
  struct atomic_counts {
    std::atomic<std::uint64_t> aborts_sent{0}, aborts_found{0}, abort_failures{0}, recoveries{0},
        recovery_failures{0};
  } counts_;
};

}  // namespace bam::emu::gpu::detail
