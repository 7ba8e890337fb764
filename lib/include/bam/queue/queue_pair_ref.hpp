// bam/queue/queue_pair_ref.hpp: BaM's parallel NVMe queue pair, the handle threads use.
// Any number of host or GPU threads submit through one queue_pair_ref at once (BaM paper §3.3,
// dissertation ch. 5). Trivially copyable; pass it by value into kernels. Owned by queue_pair
// (host memory) or a GPU-side owner that lays out the same state in device memory.
#pragma once
#include <cuda/std/bit>

#include <cstdint>
#include <type_traits>

#include "bam/detail/atomic.hpp"
#include "bam/detail/clock.hpp"
#include "bam/detail/macros.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/doorbell.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam {

/// The lock-free submission/completion protocol over one SQ/CQ pair.
///
/// Submission: a thread takes a ticket t; its slot is t mod N and its turn t div N. It waits
/// until the slot's turn counter equals 2*turn (two increments per pass: one by the previous
/// enqueuer once the tail moved past its entry, one by the CQ-lock holder once the controller's
/// SQ head moved past it), takes a command ID (t mod the pool's size when free, else any free
/// one), writes the entry, sets the slot's tail marker and competes for the tail lock. The holder
/// moves the tail over every consecutive marked slot (never further than N-1 entries ahead of the
/// SQ head) and rings the doorbell once for all of them.
///
/// Completion: a thread scans the CQ from the head for an entry with its command ID and the
/// phase the entry's virtual position implies, without a lock. Having found it at position v,
/// it takes v's position lock, sets v's head marker and waits until the head is past v, helping
/// by taking the CQ lock: the holder moves the head over consecutive marked entries, advances
/// the SQ head to the SQHD of the last entry it consumed (second turn-counter increment for
/// every SQ slot passed) and rings the CQ doorbell once. Only then is the command ID released,
/// so a new command with that ID can never match the stale entry.
///
/// Timeouts: wait_for gives up after a deadline and returns sc::host_timeout. It first marks
/// its command ID abandoned, then scans once more; if it finds its entry and can still clear the
/// mark, it consumes the entry normally. Otherwise the command ID stays allocated: a completion
/// that arrives later is consumed by whichever CQ-lock holder finds it at the head (it clears the
/// mark, moves the head past it and only then frees the ID), so a late completion neither blocks
/// the queue nor matches a newer command. A completion that never arrives leaks its ID (the pool
/// holds 2N IDs, so N-1 commands in the ring and N in the controller leave room for leaks).
///
/// Memory order: entries are published with release stores of the marker / doorbell / DW3
/// word and read after the matching acquire loads. Bookkeeping words (tickets, turn counters,
/// markers, locks) use `Scope`: thread_scope_device when only GPU threads (or only host threads)
/// use the queue. Doorbells and completion entries are at the controller's scope,
/// `Doorbell::scope`: system for memory_doorbell and mmio_doorbell (the controller is another
/// agent), device for device_doorbell (a controller engine on the same GPU).
template <class Doorbell = memory_doorbell, cuda::thread_scope Scope = cuda::thread_scope_device>
class queue_pair_ref {
 public:
  template <class T>
  using ref_t = cuda::atomic_ref<T, Scope>;

  queue_pair_ref() = default;
  BAM_HD explicit queue_pair_ref(const queue_pointers& p) : p_(p) {
    static_assert(std::is_trivially_copyable_v<queue_pair_ref>, "kernels take it by value");
  }

  /// Allocates a command ID, enqueues `cmd` (its cid field is overwritten), rings the doorbell
  /// (coalesced with concurrent submitters) and waits for its completion, which it returns.
  BAM_HD nvme::completion submit_and_wait(nvme::command cmd) const {
    const std::uint16_t cid = submit(cmd);
    return wait(cid);
  }

  /// As submit_and_wait, but gives up after `timeout_ns` (0: never) and then returns an entry
  /// with status sc::host_timeout and the command's ID.
  BAM_HD nvme::completion submit_and_wait(nvme::command cmd, std::uint64_t timeout_ns) const {
    const std::uint16_t cid = submit(cmd);
    return wait_for(cid, timeout_ns);
  }

  /// First half of submit_and_wait: enqueues `cmd` (its cid field is overwritten) and returns
  /// the command ID to pass to wait().
  BAM_HD std::uint16_t submit(nvme::command& cmd) const { return enqueue(cmd); }

  /// Second half: polls for the completion of `cid`, consumes it and frees the command ID.
  BAM_HD nvme::completion wait(std::uint16_t cid) const { return wait_for(cid, 0); }

  /// Second half with a timeout (0: wait forever); see the class comment for what happens to
  /// the command ID of a command that timed out.
  BAM_HD nvme::completion wait_for(std::uint16_t cid, std::uint64_t timeout_ns) const {
    nvme::completion c{};
    const std::uint64_t deadline = timeout_ns == 0 ? ~std::uint64_t{0} : now_ns() + timeout_ns;
    if (poll_and_consume(cid, deadline, c)) {
      release_cid(cid);
      return c;
    }
    // Give up: mark the ID abandoned, then look once more (the entry may have just arrived).
    const std::uint32_t bit = 1u << (cid % 32);
    ref_t<std::uint32_t> abandoned(p_.abandoned_bits[cid / 32]);
    abandoned.fetch_or(bit, acq_rel);
    std::uint64_t pos = 0;
    std::uint32_t slot = 0;
    if (find(cid, pos, slot) && (abandoned.fetch_and(~bit, acq_rel) & bit) != 0) {
      c = consume(pos, slot);  // still ours: nobody claimed it
      release_cid(cid);
      return c;
    }
    ref_t<std::uint64_t>(p_.counters->timeouts).fetch_add(1, relaxed);
    c = nvme::completion{};
    c.cid = cid;
    c.sf = static_cast<std::uint16_t>(
        nvme::completion::make_dw3(cid, false, nvme::sc::host_timeout) >> 16);
    return c;
  }

  /// True once the queue was failed: every later submission and wait returns
  /// sc::host_queue_failed at once, until the owner resets the queue.
  BAM_HD bool failed() const {
    return ref_t<std::uint32_t>(p_.counters->failed).load(acquire) != 0;
  }

  /// True while a command with ID `cid` that timed out may still be completed (and move data)
  /// by the controller: its late completion has not been claimed, and the queue has not been
  /// reset. Memory the command named must not be reused while this holds.
  BAM_HD bool abandoned(std::uint16_t cid) const {
    return (ref_t<std::uint32_t>(p_.abandoned_bits[cid / 32]).load(acquire) & (1u << (cid % 32))) !=
           0;
  }

  BAM_HD std::uint16_t qid() const { return p_.qid; }
  BAM_HD std::uint32_t sq_entries() const { return p_.sq_entries; }
  BAM_HD std::uint32_t cq_entries() const { return p_.cq_entries; }
  BAM_HD const queue_pointers& pointers() const { return p_; }

 private:
  /// GPU: sleep per pass that a waiting submitter is still behind (see enqueue).
  static constexpr std::uint32_t turn_sleep_per_pass_ns = 1000;

  // ---- command IDs ---------------------------------------------------------------------------
  /// Takes a free command ID, preferring `preferred` (the ticket's own, so that threads never
  /// contend for one allocation cursor), else any free ID, scanning the pool from there. Called
  /// only by a thread whose SQ turn has come: at most N-1 threads look for IDs at once, however
  /// many wait for turns. (An earlier design took the ID before the ticket, from a shared
  /// cursor; past 2N threads every waiting thread spun on that cursor with two atomic
  /// read-modify-writes per try and a single queue fell from 0.7 M to 0.04 M IOPS at 64K threads.)
  BAM_HD std::uint16_t acquire_cid(std::uint32_t preferred) const {
    const std::uint32_t words = p_.cid_count / 32;
    backoff bo;
    for (;;) {
      std::uint32_t word = preferred / 32;
      std::uint32_t want = 1u << (preferred % 32);
      for (std::uint32_t w = 0; w < words; ++w) {
        ref_t<std::uint32_t> bits(p_.cid_bits[word]);
        std::uint32_t free_bits = ~bits.load(relaxed);
        while (free_bits != 0) {
          const std::uint32_t b = (free_bits & want) != 0 ? want : free_bits & (0u - free_bits);
          const std::uint32_t old = bits.fetch_or(b, acquire);
          if ((old & b) == 0)
            return static_cast<std::uint16_t>(
                word * 32 + static_cast<std::uint32_t>(cuda::std::countr_zero(b)));
          free_bits = ~old & ~b;
        }
        want = 0;
        if (++word == words) word = 0;
      }
      bo.pause();  // every ID in use: wait for completions to free some
    }
  }
  BAM_HD void release_cid(std::uint16_t id) const {
    ref_t<std::uint32_t>(p_.cid_bits[id / 32]).fetch_and(~(1u << (id % 32)), release);
  }

  // ---- locks ---------------------------------------------------------------------------------
  BAM_HD static bool try_lock(std::uint32_t& word) {
    ref_t<std::uint32_t> l(word);
    return l.load(relaxed) == 0 && l.exchange(1, acquire) == 0;
  }
  BAM_HD static void unlock(std::uint32_t& word) { ref_t<std::uint32_t>(word).store(0, release); }

  // ---- submission ----------------------------------------------------------------------------
  /// Takes a ticket, waits for the slot's turn, takes a command ID, writes the entry and sees
  /// the tail past it. Returns the command ID.
  BAM_HD std::uint16_t enqueue(nvme::command& cmd) const {
    const std::uint64_t ticket = ref_t<std::uint64_t>(p_.counters->sq_ticket).fetch_add(1, relaxed);
    const auto slot = static_cast<std::uint32_t>(ticket % p_.sq_entries);
    const auto turn = static_cast<std::uint32_t>(ticket / p_.sq_entries);

    // Wait for the previous occupant of the slot to be both submitted and fetched.
    ref_t<std::uint32_t> turn_counter(p_.turn_counters[slot]);
    backoff bo;
    for (std::uint32_t seen; (seen = turn_counter.load(acquire)) != 2 * turn;) {
#if BAM_DEVICE_CODE
      // A thread several passes behind (64K threads on 1024 slots wait up to 64 passes) sleeps
      // in proportion to the passes ahead of it instead of polling every microsecond: the
      // polling of the far-behind threads slowed the whole queue by 20-30 % at 64K-256K threads
      // (H200, single queue pair); with this it stays within 0.70-0.88 M IOPS up to 1M threads.
      const std::uint32_t ahead = turn - seen / 2;
      if (ahead > 1 && ahead < 0x10000u) {
        __nanosleep((ahead < 64 ? ahead : 64) * turn_sleep_per_pass_ns);
        continue;
      }
#endif
      bo.pause();
    }

    cmd.cid = acquire_cid(static_cast<std::uint32_t>(ticket % p_.cid_count));
    p_.sq[slot] = cmd;
    ref_t<std::uint32_t> marker(p_.tail_markers[slot]);
    marker.store(1, release);

    // Until some tail-lock holder has moved the tail past our slot, try to be that holder.
    backoff bo_tail;
    while (marker.load(acquire) != 0) {
      if (try_lock(p_.counters->tail_lock)) {
        move_tail();
        unlock(p_.counters->tail_lock);
        continue;
      }
      bo_tail.pause();
    }
    turn_counter.fetch_add(1, release);  // first of the slot's two increments for this pass
    return cmd.cid;
  }

  /// Tail-lock holder: moves the tail over consecutive marked slots and rings the doorbell once.
  BAM_HD void move_tail() const {
    queue_counters& c = *p_.counters;
    std::uint64_t tail = ref_t<std::uint64_t>(c.sq_tail).load(relaxed);
    std::uint64_t head = ref_t<std::uint64_t>(c.sq_head).load(acquire);
    const std::uint64_t start = tail;
    std::uint32_t slot = static_cast<std::uint32_t>(tail % p_.sq_entries);
    for (;;) {
      // A full SQ holds N-1 entries: tail == head would read as empty to the controller.
      if (tail - head >= p_.sq_entries - 1) {
        head = ref_t<std::uint64_t>(c.sq_head).load(acquire);
        if (tail - head >= p_.sq_entries - 1) break;
      }
      ref_t<std::uint32_t> marker(p_.tail_markers[slot]);
      if (marker.load(acquire) == 0) break;
      marker.store(0, release);
      ++tail;
      if (++slot == p_.sq_entries) slot = 0;
    }
    if (tail != start) {
      ref_t<std::uint64_t>(c.sq_tail).store(tail, relaxed);
      Doorbell::ring(p_.sq_doorbell, slot);
      ref_t<std::uint64_t>(c.sq_doorbell_writes).fetch_add(1, relaxed);
    }
  }

  // ---- completion ----------------------------------------------------------------------------
  /// Completion words are written by the controller: accessed at its scope.
  using cq_ref = cuda::atomic_ref<std::uint32_t, Doorbell::scope>;

  BAM_HD std::uint32_t& cqe_dw3(std::uint32_t slot) const {
    return reinterpret_cast<std::uint32_t*>(p_.cq + slot)[nvme::completion_dw3_index];
  }

  /// One scan of the posted run from the head: true and the entry's position if `cid` is there.
  /// DW3 words are loaded `scan_batch` at a time (independent loads in flight together: a scan
  /// of a long run is bound by load latency), then checked in order. On the GPU the scan reads
  /// them relaxed and one acquire fence (at the controller's scope) after the match orders the
  /// reads of the entry and of the data behind it.
  BAM_HD bool find(std::uint16_t cid, std::uint64_t& pos, std::uint32_t& at) const {
    constexpr std::uint32_t scan_batch = 8;
    const std::uint64_t head = ref_t<std::uint64_t>(p_.counters->cq_head).load(acquire);
    auto slot = static_cast<std::uint32_t>(head % p_.cq_entries);
    // Phase of entries written in pass k of the ring: 1 for even k, 0 for odd k.
    bool phase = ((head / p_.cq_entries) & 1) == 0;
    for (std::uint32_t i = 0; i < p_.cq_entries; i += scan_batch) {
      std::uint32_t dw3[scan_batch];
      for (std::uint32_t k = 0, s = slot; k < scan_batch; ++k) {
#if BAM_DEVICE_CODE
        dw3[k] = cq_ref(cqe_dw3(s)).load(relaxed);
#else  // host: acquire loads cost nothing extra on x86, and ThreadSanitizer understands them
        dw3[k] = cq_ref(cqe_dw3(s)).load(acquire);
#endif
        if (++s == p_.cq_entries) s = 0;
      }
      for (std::uint32_t k = 0; k < scan_batch && i + k < p_.cq_entries; ++k) {
        if (nvme::completion::dw3_phase(dw3[k]) != phase) return false;  // end of the posted run
        if (nvme::completion::dw3_cid(dw3[k]) == cid) {
#if BAM_DEVICE_CODE
          cuda::atomic_thread_fence(acquire, Doorbell::scope);
#endif
          pos = head + i + k;
          at = slot;
          return true;
        }
        if (++slot == p_.cq_entries) {
          slot = 0;
          phase = !phase;
        }
      }
    }
    return false;
  }

  /// Polls until the entry of `cid` is found and consumed (true) or `deadline` passes (false).
  BAM_HD bool poll_and_consume(std::uint16_t cid, std::uint64_t deadline,
                               nvme::completion& out) const {
    backoff bo;
    for (;;) {
      std::uint64_t pos = 0;
      std::uint32_t slot = 0;
      if (find(cid, pos, slot)) {
        out = consume(pos, slot);
        return true;
      }
      if (deadline != ~std::uint64_t{0} && now_ns() >= deadline) return false;
      bo.pause();
    }
  }

  /// The caller found its entry at virtual CQ position `pos`: copy it, mark it, and return once
  /// the head is past it.
  BAM_HD nvme::completion consume(std::uint64_t pos, std::uint32_t slot) const {
    const nvme::completion entry = p_.cq[slot];
    std::uint32_t& position_lock = p_.cq_position_locks[slot];
    backoff bo;
    while (!try_lock(position_lock))
      bo.pause();
    ref_t<std::uint32_t>(p_.head_markers[slot]).store(1, release);
    ref_t<std::uint64_t> cq_head(p_.counters->cq_head);
    while (cq_head.load(acquire) <= pos) {
      if (try_lock(p_.counters->cq_lock)) {
        move_head();
        unlock(p_.counters->cq_lock);
      }
      if (cq_head.load(acquire) > pos) break;
      bo.pause();
    }
    unlock(position_lock);
    return entry;
  }

  /// CQ-lock holder: moves the CQ head over consecutive marked entries, advances the SQ head to
  /// the last consumed entry's SQHD, and rings the CQ doorbell once.
  BAM_HD void move_head() const {
    queue_counters& c = *p_.counters;
    std::uint64_t head = ref_t<std::uint64_t>(c.cq_head).load(relaxed);
    const std::uint64_t start = head;
    auto slot = static_cast<std::uint32_t>(head % p_.cq_entries);
    std::uint32_t sqhd = 0;
    constexpr std::uint32_t max_claims = 8;
    std::uint16_t claimed[max_claims];
    std::uint32_t claims = 0;
    for (;;) {
      ref_t<std::uint32_t> marker(p_.head_markers[slot]);
      if (marker.load(acquire) != 0) {
        marker.store(0, relaxed);
      } else if (claims == max_claims || !claim_abandoned(head, slot, claimed[claims])) {
        break;
      } else {
        ++claims;  // a late completion of a waiter that gave up: consumed on its behalf
      }
      sqhd = p_.cq[slot].sqhd;
      ++head;
      if (++slot == p_.cq_entries) slot = 0;
    }
    if (head == start) return;

    // Release the SQ slots the controller has fetched: the second turn-counter increment.
    const std::uint64_t sq_head = ref_t<std::uint64_t>(c.sq_head).load(relaxed);
    const auto old_slot = static_cast<std::uint32_t>(sq_head % p_.sq_entries);
    const std::uint32_t advance =
        sqhd >= old_slot ? sqhd - old_slot : sqhd + p_.sq_entries - old_slot;
    for (std::uint32_t i = 0, s = old_slot; i < advance; ++i) {
      ref_t<std::uint32_t>(p_.turn_counters[s]).fetch_add(1, release);
      if (++s == p_.sq_entries) s = 0;
    }
    if (advance != 0) ref_t<std::uint64_t>(c.sq_head).store(sq_head + advance, release);

    Doorbell::ring(p_.cq_doorbell, slot);
    ref_t<std::uint64_t>(c.cq_doorbell_writes).fetch_add(1, relaxed);
    ref_t<std::uint64_t>(c.cq_head).store(head, release);
    // The head is past the claimed entries: their IDs can no longer match a stale entry.
    if (claims != 0) ref_t<std::uint64_t>(c.late_completions).fetch_add(claims, relaxed);
    for (std::uint32_t i = 0; i < claims; ++i)
      release_cid(claimed[i]);
  }

  /// CQ-lock holder at virtual position `pos`: if the entry there is posted and its command ID
  /// was abandoned by a waiter that timed out, takes the abandoned mark and returns true.
  BAM_HD bool claim_abandoned(std::uint64_t pos, std::uint32_t slot, std::uint16_t& id) const {
    const std::uint32_t dw3 = cq_ref(cqe_dw3(slot)).load(acquire);
    const bool phase = ((pos / p_.cq_entries) & 1) == 0;
    if (nvme::completion::dw3_phase(dw3) != phase) return false;  // not posted yet
    id = nvme::completion::dw3_cid(dw3);
    if (id >= p_.cid_count) return false;
    const std::uint32_t bit = 1u << (id % 32);
    ref_t<std::uint32_t> abandoned(p_.abandoned_bits[id / 32]);
    if ((abandoned.load(relaxed) & bit) == 0) return false;
    return (abandoned.fetch_and(~bit, acq_rel) & bit) != 0;
  }

  queue_pointers p_{};
};

}  // namespace bam
