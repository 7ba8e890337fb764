// bam/queue/ordering_read.hpp: API. The BaM paper's §4.4 workaround for GPUDirect RDMA ordering:
// after a completion, one coalesced extra NVMe command whose SQ entry the controller must fetch
// from GPU memory (a PCIe read) flushes its earlier PCIe writes of data into GPU memory.
#pragma once
#include <cstdint>
#include <type_traits>

#include "bam/detail/atomic.hpp"
#include "bam/detail/expects.hpp"
#include "bam/detail/macros.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/queue_hold.hpp"
#include "bam/queue/queue_pair_ref.hpp"
#include "bam/queue/queue_set_ref.hpp"

namespace bam {

/// The virtual queue of threads waiting for an ordering read (zero-initialised; in the memory of
/// the threads that use it: GPU memory for GPU threads). Positions are 64-bit and never wrap.
struct ordering_state {
  alignas(128) std::uint64_t tail;  ///< next position handed to a waiting thread
  /// Positions below it are covered by a completed read (an extra one, or the application's:
  /// see ordering_read_ref); raised by fetch_max only, never lowered.
  alignas(128) std::uint64_t head;
  std::uint32_t lock;      ///< held by the thread issuing the read
  std::uint64_t reads;     ///< extra reads issued (under lock)
  std::uint64_t errors;    ///< of those, completed with an error status (under lock)
  std::uint64_t timeouts;  ///< of those, not completed in time or on a failed queue (under lock)
  /// Positions below it may be covered by a read that did not complete: their callers are told
  /// (after_completion returns false). Set before the holder raises head, under lock; only
  /// grows.
  std::uint64_t failed_upto;
};
static_assert(sizeof(ordering_state) == 2 * 128);

/// Handle GPU (or host) threads call after finding a completion, before using the data the
/// controller wrote. Trivially copyable; a default-constructed one (no state) does nothing,
/// which is the policy switched off.
///
/// A thread takes position p = tail++ and waits until head > p. Meanwhile it tries the lock; the
/// holder reads t = tail (every position below t was taken after its thread had seen its own
/// completion), submits one read of `nlb` blocks at `lba` into `scratch` on `queue` and waits
/// for its completion. The controller fetched that command from the SQ (in GPU memory) before
/// completing it, and that PCIe read made every earlier PCIe write to GPU memory visible; so
/// the holder raises head to t, covering all t positions with one command (dissertation §8.2.1).
/// Any completion, even an error status, proves the fetch; its status is counted in `errors`.
/// No completion within `timeout_ns` (the run's command timeout, command_timeout_ns: its owner
/// passes it; 0 would wait for ever) or a failed queue proves nothing: the read is counted in
/// `timeouts`, head still moves on (nobody waits for ever), and every thread whose position it
/// covered is told the ordering failed: after_completion returns false and the caller must not
/// trust the data (the cache and block_io report the read as failed, sc::host_timeout). A
/// thread told so may also have been covered by an earlier read that succeeded (the record is
/// one mark, `failed_upto`): the answer errs on the safe side.
///
/// The application's own reads cover positions too (`mark`, after_completion(covered)): a read
/// of this controller whose submitter loaded the tail (c = mark()) before submitting it had its
/// doorbell rung after positions 0 .. c-1 were taken, so the controller fetched its SQ entry after
/// their completions, which is the same PCIe read of GPU memory the extra read relies on. When it
/// completes, its thread raises head to c (head only grows). A busy drive's waiters are then
/// covered by the next read submitted after them, not only by the serial extra reads, each of
/// which waits for the lock and a slot in the drive's pipe (docs/gpu-engine.md, "The
/// application's reads cover the ordering"). The extra reads stay: a thread whose position no
/// later read covers (QD1, the last reads of a run) still gets one.
///
/// `Use`: queue_use::exclusive when `queue` serves these extra reads only (the emulator's drives'
/// ordering queues, hardware_drives_ref). The lock holder is then its only user and holds it for
/// its read (submit_and_wait_held: the hold, the command and the release without the shared
/// protocol's ticket, turn, tail and CQ locks; docs/gpu-engine.md, "The ordering read through a
/// hold"). queue_use::shared (the default) for a queue other threads may use too:
/// kmod_gpu_queues', whose ordering read shares queue 0 when the controller grants no more pairs.
/// A template argument, not a flag: a kernel that may take either carries both out-of-line
/// submissions, which raised the cache's hot kernel's spills (ptxas: 208 / 224 bytes held only,
/// 288 / 344 with the choice at run time).
template <class Doorbell, cuda::thread_scope Scope = cuda::thread_scope_device,
          queue_use Use = queue_use::shared>
class ordering_read_ref {
 public:
  template <class T>
  using ref_t = cuda::atomic_ref<T, Scope>;

  ordering_read_ref() = default;
  BAM_HD ordering_read_ref(ordering_state* state, queue_pair_ref<Doorbell, Scope> queue,
                           std::uint64_t scratch_bus, std::uint32_t nsid, std::uint64_t lba,
                           std::uint32_t nlb, std::uint64_t timeout_ns)
      : state_(state),
        queue_(queue),
        scratch_(scratch_bus),
        timeout_ns_(timeout_ns),
        nsid_(nsid),
        lba_(lba),
        nlb_(nlb) {
    static_assert(std::is_trivially_copyable_v<ordering_read_ref>, "kernels take it by value");
#if !BAM_DEVICE_CODE
    BAM_EXPECTS(state == nullptr || timeout_ns > 0,
                "ordering_read_ref: an enabled ordering read needs a timeout (0 waits for ever)");
#endif
  }

  BAM_HD bool enabled() const {
    return state_ != nullptr;
  }

  /// The positions taken so far, for a read about to be submitted to this controller: once it
  /// has completed, after_completion(mark) covers them (see the class comment). Relaxed: the
  /// submission's marker store, a release, orders it before the doorbell. 0 when disabled.
  BAM_HD std::uint64_t mark() const {
    return state_ == nullptr ? 0 : ref_t<std::uint64_t>(state_->tail).load(relaxed);
  }

  /// Returns once a PCIe read of GPU memory by the controller followed every completion this
  /// thread had seen when it called: true. False when the read that covered them got no
  /// completion (see the class comment): the data must not be used. No-op (true) when disabled.
  /// `covered`: mark() taken before the submission of the read whose completion the caller saw
  /// (0: none): that read covers the positions below it.
  BAM_HD bool after_completion(std::uint64_t covered = 0) const {
    if (state_ == nullptr) return true;
    // Release: the completions this thread saw come before its position, which the holder
    // acquires when it reads the tail.
    const std::uint64_t pos = ref_t<std::uint64_t>(state_->tail).fetch_add(1, release);
    ref_t<std::uint64_t> head(state_->head);
    // The head's load is in flight with the tail's read-modify-write (one round trip, as
    // without covers). The caller's read covers the positions below `covered` (none of them is
    // the caller's: its position was taken after the mark); the head is raised only where it is
    // lower, so a thread alone on its drive (QD1) adds nothing. Relaxed on the device: what a
    // waiter needs from it is that the read's SQ entry was fetched, which its completion proved
    // before this thread's acquire of it, and that acquire's fence orders this after it.
    std::uint64_t seen = head.load(device_relaxed(acquire));
    // A mark above the caller's own position cannot be this drive's since the state was last
    // zeroed (a mark of another drive, or from before a reset): it covers nothing. (One at or
    // below it cannot be told apart: the callers take the mark and wait on the same drive, and a
    // state is zeroed only with no reads in flight.)
    if (covered > seen && covered <= pos) {
      head.fetch_max(covered, device_relaxed(release));
      seen = covered;
    }
    backoff bo;
    while (seen <= pos) {
      if (try_lock()) {
        if (head.load(device_relaxed(acquire)) <= pos)
          issue(ref_t<std::uint64_t>(state_->tail).load(acquire));
        ref_t<std::uint32_t>(state_->lock).store(0, release);
        break;  // covered: by our read or by the one that ended just before we took the lock
      }
      bo.pause();
      seen = head.load(device_relaxed(acquire));
    }
#if BAM_DEVICE_CODE
    // The caller's loads of the data come after this: one fence orders them after the head seen
    // above (read relaxed), which the holder stored (release) after its covering read's
    // completion, itself acquired at the controller's scope by the thread that passed it
    // (queue_pair_ref::move_head), or which a covering thread raised after acquiring its own:
    // device scope is enough (no stale L1 lines either), one system-wide fence per read fewer
    // (docs/gpu-engine.md, "Fences"). On the host the acquire loads of head already order them
    // (and ThreadSanitizer rejects standalone fences).
    cuda::atomic_thread_fence(acquire, Scope);
#endif
    return ref_t<std::uint64_t>(state_->failed_upto).load(device_relaxed(acquire)) <= pos;
  }

 private:
  BAM_HD bool try_lock() const {
    ref_t<std::uint32_t> l(state_->lock);
    return l.load(relaxed) == 0 && l.exchange(1, acquire) == 0;
  }

  /// Lock holder: one read covering every position below `upto`, out of line (the ordering read
  /// is a slow path of every kernel that reads through an ordered queue set). On a queue of its
  /// own (queue_use::exclusive) the holder holds it for the read (submit_and_wait_held); on a
  /// shared one it goes through BaM's protocol and its wait polls every 32 ns or so
  /// (submit_and_wait_outlined's `alone`), not up to every 2 us.
  BAM_HD void issue(std::uint64_t upto) const {
    const nvme::command cmd = nvme::read(nsid_, lba_, nlb_, {scratch_, 0});
    nvme::completion c;
    if constexpr (Use == queue_use::exclusive)
      c = submit_and_wait_held(queue_, cmd, timeout_ns_);
    else
      c = queue_.submit_and_wait_outlined(cmd, timeout_ns_, /*alone=*/true);
    ref_t<std::uint64_t>(state_->reads).fetch_add(1, relaxed);
    const nvme::status st = c.status();
    if (!st.ok()) ref_t<std::uint64_t>(state_->errors).fetch_add(1, relaxed);
    // Copies: device code cannot bind references to the namespace-scope statuses.
    constexpr nvme::status timed_out = nvme::sc::host_timeout;
    constexpr nvme::status queue_failed = nvme::sc::host_queue_failed;
    if (st == timed_out || st == queue_failed) {
      ref_t<std::uint64_t>(state_->timeouts).fetch_add(1, relaxed);
      ref_t<std::uint64_t>(state_->failed_upto).store(upto, relaxed);
    }
    // Never lowered: the application's reads may have raised it past `upto` meanwhile.
    ref_t<std::uint64_t>(state_->head).fetch_max(upto, release);
  }

  ordering_state* state_ = nullptr;
  queue_pair_ref<Doorbell, Scope> queue_{};
  std::uint64_t scratch_ = 0;
  std::uint64_t timeout_ns_ = 0;
  std::uint32_t nsid_ = 1;
  std::uint64_t lba_ = 0;
  std::uint32_t nlb_ = 1;
};

/// A queue set whose reads are each followed by the ordering read of the SSD that served them:
/// block_io and the cache's queue_storage_ref take ordering_mark(ssd) before they submit a read
/// and call after_read(ssd, mark) after it completed and before its data is used. Per SSD an
/// ordering_state, the queue pair its extra reads go to and a scratch block they read LBA 0 into.
/// Trivially copyable. (kmod_gpu_ordered_queue_set is the one-SSD form the nvme backend's GPU path
/// builds by hand.) `Use`: how the extra reads use each SSD's queue pair (ordering_read_ref).
template <class Doorbell, cuda::thread_scope Scope = cuda::thread_scope_device,
          queue_use Use = queue_use::shared>
class ordered_queue_set : public queue_set_ref<Doorbell, Scope> {
 public:
  using base_type = queue_set_ref<Doorbell, Scope>;
  using ordering_type = ordering_read_ref<Doorbell, Scope, Use>;

  struct ordering_params {
    ordering_state* states = nullptr;        ///< [ssds], zero-initialised
    const queue_pointers* queues = nullptr;  ///< [ssds]: the queue pair of each SSD's extra reads
    std::uint64_t scratch_bus = 0;           ///< SSD s reads into scratch_bus + s * scratch_stride
    std::uint64_t scratch_stride = 0;        ///< at least one LBA
    /// Per ordering read: the run's command timeout (command_timeout_ns, queues.timeout_ms),
    /// which its owner checked to be > 0 (0 would wait for ever).
    std::uint64_t timeout_ns = 0;
  };

  ordered_queue_set() = default;
  BAM_HD ordered_queue_set(const typename base_type::params& queues, const ordering_params& o)
      : base_type(queues), o_(o) {
    static_assert(std::is_trivially_copyable_v<ordered_queue_set>, "kernels take it by value");
  }

  /// The ordering read of `ssd` (one block at LBA 0 of namespace 1).
  BAM_HD ordering_type ordering(std::uint32_t ssd) const {
    return ordering_type(o_.states + ssd, queue_pair_ref<Doorbell, Scope>(o_.queues[ssd]),
                         o_.scratch_bus + ssd * o_.scratch_stride, 1, 0, 1, o_.timeout_ns);
  }
  /// The ordering mark of `ssd` for a read about to be submitted (ordering_read_ref::mark).
  BAM_HD std::uint64_t ordering_mark(std::uint32_t ssd) const { return ordering(ssd).mark(); }
  /// Returns once the data of every read of `ssd` this thread saw complete is visible to it
  /// (true), or the ordering read failed (false: see ordering_read_ref). `covered`: the
  /// ordering_mark taken before the read that completed was submitted.
  BAM_HD bool after_read(std::uint32_t ssd, std::uint64_t covered) const {
    return ordering(ssd).after_completion(covered);
  }
  BAM_HD const ordering_params& ordering_parameters() const { return o_; }

 private:
  ordering_params o_{};
};

}  // namespace bam
