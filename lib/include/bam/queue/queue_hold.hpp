// bam/queue/queue_hold.hpp: API. One thread's hold on a queue pair it alone uses: commands one at
// a time without BaM's shared protocol (its ticket, turns, markers, locks and batches exist for
// many threads per queue), the queue's bookkeeping kept as that protocol leaves it.
#pragma once
#include <cstdint>

#include "bam/detail/atomic.hpp"
#include "bam/detail/clock.hpp"
#include "bam/detail/macros.hpp"
#include "bam/queue/queue_pair_ref.hpp"

namespace bam {

/// How a thread uses its queue pair: shared with other threads (BaM's protocol,
/// queue_pair_ref::submit_and_wait), or held as its only user (queue_hold).
enum class queue_use { shared, exclusive };

/// A thread's hold on a queue pair of which it is the only user while it holds it: no other
/// thread submits to the queue or waits on it meanwhile (the caller guarantees it: one GPU thread
/// per queue pair, nvm-block-bench's `gpu.queue_access`). Taken on an idle queue (the ticket, the
/// SQ tail, the SQ head and the CQ head at one position: every command passed; no lock held;
/// command ID 0 free; not failed): in one round trip the thread takes both position locks and ID
/// 0 and reads the positions, and keeps them until release() (or its destructor). While held, a
/// command is its entry at the tail's slot, one fence and the SQ doorbell, a poll of the CQ entry
/// at the head, one fence and the entry's words: no read-modify-write waited for, no lock taken.
/// The queue's words (ticket, tail, CQ head, SQ head, turn counters) follow with relaxed stores
/// as the shared protocol would leave them, so that releasing is unlocking; the CQ head doorbell
/// is rung every half ring and at release (an NVMe host may ring it for several entries at once),
/// one fence and doorbell for cq_entries / 2 completions.
///
/// What ends a hold besides release(): a command that gets no completion in time or a failed
/// queue (the command is left in flight to the shared protocol as any other: ID 0 abandoned, its
/// late completion passed by the next waiter), a completion that is not the command's (the
/// shared protocol passes it and fails the queue), an SQ without room (the controller's SQ head
/// lags: the shared protocol waits for room). A submission while not held tries to take the hold
/// again and, when the queue is not idle, goes through the shared protocol (a thread alone on its
/// queue is its only waiter, so it passes the late completion itself).
///
/// The hold keeps the CQ lock: the owner's poll() and set_owner_reclaims() wait for its release.
/// On the host the holder counts as the queue's user (queue_pair::quiesce waits for it).
/// `Narrow`: the fallbacks take the shared protocol's narrow batches, submit_and_wait_outlined's,
/// for a hold inside the slow path of a kernel that keeps its own state (submit_and_wait_held).
/// docs/gpu-engine.md, "A queue pair to itself".
template <class Doorbell = memory_doorbell, cuda::thread_scope Scope = cuda::thread_scope_device,
          bool Narrow = false>
class queue_hold {
 public:
  using queue_type = queue_pair_ref<Doorbell, Scope>;

  /// Tries to take the hold (held() says whether it did).
  BAM_HD explicit queue_hold(const queue_type& q) : q_(q) { (void)take(); }
  queue_hold(const queue_hold&) = delete;
  queue_hold& operator=(const queue_hold&) = delete;
  BAM_HD ~queue_hold() { release(); }

  BAM_HD bool held() const { return held_; }

  /// queue_pair_ref::submit_and_wait for the holder: the command ID is 0 while held (the
  /// shared protocol's otherwise); `timeout_ns` as there (0: wait for ever). A queue failed
  /// meanwhile takes nothing more (Host Queue Failed, no command ID), as the shared protocol.
  BAM_HD nvme::completion submit_and_wait(nvme::command cmd, std::uint64_t timeout_ns) {
    if (!held_ && !take()) return shared(cmd, timeout_ns);
    if (pos_ - sq_head_ >= q_.p_.sq_entries - 1) {  // a full SQ holds N-1 entries: wait as anyone
      release();
      return shared(cmd, timeout_ns);
    }
    if (!submit(cmd)) {
      release();
      constexpr nvme::status queue_failed = nvme::sc::host_queue_failed;  // a copy: device code
      return queue_type::failed_entry(queue_type::no_cid, queue_failed);
    }
    std::uint32_t dw3 = 0;
    if (const nvme::status st = poll(timeout_ns, dw3); !st.ok()) {
      // The command stays in flight as the shared protocol's, ID 0 abandoned.
      end(pos_ + 1, pos_);
      const nvme::completion e = q_.give_up(cid, st);
      q_.leave();
      return e;
    }
    if (nvme::completion::dw3_cid(dw3) != cid) {
      // Another command's entry, which a held queue cannot hold: the shared protocol passes it
      // (and fails the queue) as it waits for this one.
      end(pos_ + 1, pos_);
      return shared_wait(cid, timeout_ns);
    }
    return pass(dw3);
  }

  /// Ends the hold: the CQ head doorbell rung if entries were passed since, both locks left at
  /// their positions, ID 0 free. Nothing when not held.
  BAM_HD void release() {
    if (!held_) return;
    end(pos_, pos_);
    q_.release_cid(cid);
    q_.leave();
  }

 private:
  template <class T>
  using ref_t = typename queue_type::template ref_t<T>;
  using cq_ref = typename queue_type::cq_ref;
  static constexpr std::uint16_t cid = 0;

  static constexpr auto fallback_batches = Narrow ? queue_type::narrow : queue_type::wide;

  /// The shared protocol's submission and wait, as the queue's only waiter. Out of line (device
  /// code), as is shared_wait: the fallbacks stay out of the held path's code. `Narrow`: in
  /// the narrow batches, whose arrays do not raise a calling kernel's registers.
  BAM_HD BAM_NOINLINE nvme::completion shared(nvme::command cmd, std::uint64_t timeout_ns) const {
    return shared_wait(q_.template enqueue<fallback_batches>(cmd, timeout_ns), timeout_ns);
  }
  /// The shared protocol's wait for `id`, as the queue's only waiter.
  BAM_HD BAM_NOINLINE nvme::completion shared_wait(std::uint16_t id,
                                                   std::uint64_t timeout_ns) const {
    return q_.template finish<fallback_batches>(id, timeout_ns, /*alone=*/true);
  }

  /// The held command's submission: its entry, then (unless the queue failed: false, nothing
  /// published) the ticket, the slot's first turn increment and the tail word (still locked),
  /// one fence where the doorbell's scope is the device's (mmio_doorbell and memory_doorbell
  /// fence at system scope themselves), the SQ doorbell. The failed mark is loaded with the
  /// entry's stores, before the fence waits for them.
  BAM_HD bool submit(nvme::command& cmd) {
    const queue_pointers& p = q_.p_;
    queue_counters& c = *p.counters;
    const bool failed = ref_t<std::uint32_t>(c.failed).load(device_relaxed(acquire)) != 0;
    const auto slot = static_cast<std::uint32_t>(pos_ % p.sq_entries);
    cmd.cid = cid;
    p.sq[slot] = cmd;
    if (failed) return false;
    ref_t<std::uint64_t>(c.sq_ticket).fetch_add(1, relaxed);
    ref_t<std::uint32_t>(p.turn_counters[slot]).fetch_add(1, device_relaxed(bam::release));
    ref_t<std::uint64_t>(c.sq_tail).store(position_word(pos_ + 1, true), relaxed);
    fence_before_doorbell();
    Doorbell::template ring_after_fence<Scope>(p.sq_doorbell,
                                               slot + 1 == p.sq_entries ? 0 : slot + 1);
    ref_t<std::uint64_t>(c.sq_doorbell_writes).fetch_add(1, relaxed);
    return true;
  }

  /// The wait for the held command: the CQ entry at the head polled with the failed mark (one
  /// round trip), at most about one command's time asleep between polls; its DW3 in `dw3`, then
  /// one fence (acquire and release: the entry's words after its DW3, and the SQ slots' turn
  /// increments that pass() makes relaxed after the controller's fetch, as move_head's fence
  /// orders them). Not ok: Host Timeout after `timeout_ns` (0: never), Host Queue Failed.
  BAM_HD nvme::status poll(std::uint64_t timeout_ns, std::uint32_t& dw3) const {
    const queue_pointers& p = q_.p_;
    const std::uint64_t deadline = timeout_ns == 0 ? ~std::uint64_t{0} : now_ns() + timeout_ns;
    const auto cq_slot = static_cast<std::uint32_t>(pos_ % p.cq_entries);
    const bool phase = q_.phase_at(pos_);
#if BAM_DEVICE_CODE
    backoff bo(queue_type::sleep_cap(1));
#else
    backoff bo;
#endif
    for (;;) {
      dw3 = cq_ref(q_.cqe_dw3(cq_slot)).load(device_relaxed(acquire));
      const bool failed =
          ref_t<std::uint32_t>(p.counters->failed).load(device_relaxed(acquire)) != 0;
      if (nvme::completion::dw3_phase(dw3) == phase) break;
      // Copies: device code cannot bind references to the namespace-scope statuses.
      constexpr nvme::status queue_failed = nvme::sc::host_queue_failed;
      constexpr nvme::status timed_out = nvme::sc::host_timeout;
      if (failed) return queue_failed;
      if (deadline != ~std::uint64_t{0} && now_ns() >= deadline) return timed_out;
      bo.pause();
    }
#if BAM_DEVICE_CODE
    cuda::atomic_thread_fence(acq_rel, Doorbell::scope);
#endif
    return nvme::status{};
  }

  /// Passes the held command's completion (DW3 `dw3`, its own): the entry's words, the SQ slots
  /// its SQHD says the controller fetched (their second turn increments and the SQ head:
  /// release_sq_slots, which refuses an SQHD that is not a slot or past the tail: the queue
  /// fails and the hold ends), the CQ head word, and every half ring the CQ head doorbell.
  BAM_HD nvme::completion pass(std::uint32_t dw3) {
    const queue_pointers& p = q_.p_;
    const auto cq_slot = static_cast<std::uint32_t>(pos_ % p.cq_entries);
    const nvme::completion done = q_.entry_of(p.cq[cq_slot].dw0, p.cq[cq_slot].dw1, dw3);
    const std::uint32_t sqhd = p.cq[cq_slot].sqhd;
    const bool valid = q_.release_sq_slots(sqhd, sq_head_, pos_ + 1);
    if (valid) sq_head_ += q_.sq_advance(sqhd, sq_head_);
    ++pos_;
    ref_t<std::uint64_t>(p.counters->cq_head).store(position_word(pos_, true), relaxed);
    if (++unrung_ >= p.cq_entries / 2) ring_cq_head();
    if (!valid) {
      ref_t<std::uint64_t>(p.counters->invalid_completions).fetch_add(1, relaxed);
      q_.fail();
      release();
    }
    return done;
  }

  /// The fence a doorbell at device scope needs after what it publishes; none for the
  /// doorbells that fence at system scope themselves (ring_after_fence keeps their fence).
  BAM_HD static void fence_before_doorbell() {
#if BAM_DEVICE_CODE
    if constexpr (Doorbell::scope != cuda::thread_scope_system)
      cuda::atomic_thread_fence(acq_rel, Scope);
#endif
  }

  /// Takes the hold if the queue is idle and no lock or ID 0 is held (see the class comment);
  /// else gives back what it took, unchanged, and returns false.
  BAM_HD bool take() {
#if !BAM_DEVICE_CODE
    if (!q_.enter()) return false;
#endif
    const queue_pointers& p = q_.p_;
    queue_counters& c = *p.counters;
    // In flight together: both locks, ID 0, the ticket, the SQ head and the failed mark. Relaxed
    // on the device, with one acquire fence after them: the tail slot's last occupant was fetched
    // (its SQHD passed) and ID 0's box emptied before this thread writes either.
    const std::uint64_t tail_was =
        ref_t<std::uint64_t>(c.sq_tail).fetch_or(position_lock, device_relaxed(acquire));
    const std::uint64_t head_was =
        ref_t<std::uint64_t>(c.cq_head).fetch_or(position_lock, device_relaxed(acquire));
    const std::uint32_t ids_were =
        ref_t<std::uint32_t>(p.cid_bits[0]).fetch_or(1u, device_relaxed(acquire));
    const std::uint64_t ticket = ref_t<std::uint64_t>(c.sq_ticket).load(device_relaxed(acquire));
    const std::uint64_t sq_head = ref_t<std::uint64_t>(c.sq_head).load(device_relaxed(acquire));
    const bool failed = ref_t<std::uint32_t>(c.failed).load(device_relaxed(acquire)) != 0;
#if BAM_DEVICE_CODE
    cuda::atomic_thread_fence(acquire, Scope);
#endif
    const bool took_tail = !position_locked(tail_was), took_head = !position_locked(head_was);
    const bool took_id = (ids_were & 1u) == 0;
    if (took_tail && took_head && took_id && !failed && position_of(tail_was) == ticket &&
        position_of(head_was) == ticket && sq_head == ticket) {
      pos_ = sq_head_ = ticket;
      unrung_ = 0;
      held_ = true;
      return true;
    }
    if (took_tail) queue_type::unlock_position(c.sq_tail, position_of(tail_was));
    if (took_head) queue_type::unlock_position(c.cq_head, position_of(head_was));
    if (took_id) q_.release_cid(cid);
    q_.leave();
    return false;
  }

  /// The CQ head doorbell at the head held, after the entries passed were read
  /// (fence_before_doorbell).
  BAM_HD void ring_cq_head() {
    const queue_pointers& p = q_.p_;
    fence_before_doorbell();
    Doorbell::template ring_after_fence<Scope>(p.cq_doorbell,
                                               static_cast<std::uint32_t>(pos_ % p.cq_entries));
    ref_t<std::uint64_t>(p.counters->cq_doorbell_writes).fetch_add(1, relaxed);
    unrung_ = 0;
  }

  /// Stops holding: rings the CQ head doorbell if entries were passed since it was last rung,
  /// then leaves the tail and the CQ head unlocked at `tail` and `head` (their release stores
  /// order this thread's doorbells before a later holder's). ID 0 and the host's user count are
  /// the caller's.
  BAM_HD void end(std::uint64_t tail, std::uint64_t head) {
    if (unrung_ != 0) ring_cq_head();
    queue_counters& c = *q_.p_.counters;
    queue_type::unlock_position(c.sq_tail, tail);
    queue_type::unlock_position(c.cq_head, head);
    held_ = false;
  }

  queue_type q_;
  std::uint64_t pos_ = 0;      ///< held: the ticket, the SQ tail and the CQ head
  std::uint64_t sq_head_ = 0;  ///< held: the SQ head (the controller's last SQHD)
  std::uint32_t unrung_ = 0;   ///< completions passed since the CQ head doorbell was rung
  bool held_ = false;
};

template <class Doorbell, cuda::thread_scope Scope>
queue_hold(const queue_pair_ref<Doorbell, Scope>&) -> queue_hold<Doorbell, Scope>;

/// One command through a hold taken and released around it: on an idle queue, one round trip
/// for the hold and the held path's command; else the shared protocol (narrow batches), as the
/// queue's only waiter. Out of line in device code, for a slow path inlined into kernels that
/// keep their own state: the ordering read's lock holder on its drive's own ordering queue
/// (ordering_read_ref, queue_use::exclusive). The caller guarantees what queue_hold needs: no
/// other thread uses `q` meanwhile.
template <class Doorbell, cuda::thread_scope Scope>
BAM_HD BAM_NOINLINE nvme::completion submit_and_wait_held(queue_pair_ref<Doorbell, Scope> q,
                                                          nvme::command cmd,
                                                          std::uint64_t timeout_ns) {
  queue_hold<Doorbell, Scope, true> h(q);
  return h.submit_and_wait(cmd, timeout_ns);
}

}  // namespace bam
