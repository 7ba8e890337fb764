// bam/queue/queue_pair_ref.hpp: BaM's parallel NVMe queue pair, the handle threads use.
// Any number of host or GPU threads submit through one queue_pair_ref at once (BaM paper §3.3,
// dissertation ch. 5). Trivially copyable; pass it by value into kernels. Owned by queue_pair
// (host memory) or a GPU-side owner that lays out the same state in device memory.
#pragma once
#include <cstdint>

#include "bam/config.hpp"
#include "bam/detail/atomic.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/doorbell.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam {

/// The lock-free submission/completion protocol over one SQ/CQ pair.
///
/// Submission: a thread takes a ticket t; its slot is t mod N and its turn t div N. It waits
/// until the slot's turn counter equals 2*turn (two increments per pass: one by the previous
/// enqueuer once the tail moved past its entry, one by the CQ-lock holder once the controller's
/// SQ head moved past it), writes the entry, sets the slot's tail marker and competes for the
/// tail lock. The holder moves the tail over every consecutive marked slot (never further than
/// N-1 entries ahead of the SQ head) and rings the doorbell once for all of them.
///
/// Completion: a thread scans the CQ from the head for an entry with its command ID and the
/// phase the entry's virtual position implies, without a lock. Having found it at position v,
/// it takes v's position lock, sets v's head marker and waits until the head is past v, helping
/// by taking the CQ lock: the holder moves the head over consecutive marked entries, advances
/// the SQ head to the SQHD of the last entry it consumed (second turn-counter increment for
/// every SQ slot passed) and rings the CQ doorbell once. Only then is the command ID released,
/// so a new command with that ID can never match the stale entry.
///
/// Memory order: entries are published with release stores of the marker / doorbell / DW3
/// word and read after the matching acquire loads. Bookkeeping words (tickets, turn counters,
/// markers, locks) use `Scope`: thread_scope_device when only GPU threads (or only host threads)
/// use the queue. Doorbells and completion entries are system scope: the controller is another
/// agent. `Doorbell` is memory_doorbell or mmio_doorbell.
template <class Doorbell = memory_doorbell, cuda::thread_scope Scope = cuda::thread_scope_device>
class queue_pair_ref {
 public:
  template <class T>
  using ref_t = cuda::atomic_ref<T, Scope>;

  queue_pair_ref() = default;
  BAM_HD explicit queue_pair_ref(const queue_pointers& p) : p_(p) {}

  /// Allocates a command ID, enqueues `cmd` (its cid field is overwritten), rings the doorbell
  /// (coalesced with concurrent submitters) and waits for its completion, which it returns.
  BAM_HD nvme::completion submit_and_wait(nvme::command cmd) const {
    const std::uint16_t cid = submit(cmd);
    return wait(cid);
  }

  /// First half of submit_and_wait: returns the command ID to pass to wait().
  BAM_HD std::uint16_t submit(nvme::command& cmd) const {
    const std::uint16_t cid = acquire_cid();
    cmd.cid = cid;
    enqueue(cmd);
    return cid;
  }

  /// Second half: polls for the completion of `cid`, consumes it and frees the command ID.
  BAM_HD nvme::completion wait(std::uint16_t cid) const {
    const nvme::completion c = poll_and_consume(cid);
    release_cid(cid);
    return c;
  }

  BAM_HD std::uint16_t qid() const { return p_.qid; }
  BAM_HD std::uint32_t sq_entries() const { return p_.sq_entries; }
  BAM_HD std::uint32_t cq_entries() const { return p_.cq_entries; }
  BAM_HD const queue_pointers& pointers() const { return p_; }

 private:
  // ---- command IDs ---------------------------------------------------------------------------
  BAM_HD std::uint16_t acquire_cid() const {
    backoff bo;
    for (std::uint32_t misses = 0;; ++misses) {
      const std::uint64_t t = ref_t<std::uint64_t>(p_.counters->cid_ticket).fetch_add(1, relaxed);
      const auto id = static_cast<std::uint32_t>(t % p_.cid_count);
      const std::uint32_t bit = 1u << (id % 32);
      const std::uint32_t old = ref_t<std::uint32_t>(p_.cid_bits[id / 32]).fetch_or(bit, acquire);
      if ((old & bit) == 0) return static_cast<std::uint16_t>(id);
      if (misses >= p_.cid_count) bo.pause();  // pool exhausted: back off
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
  BAM_HD void enqueue(const nvme::command& cmd) const {
    const std::uint64_t ticket =
        ref_t<std::uint64_t>(p_.counters->sq_ticket).fetch_add(1, relaxed);
    const auto slot = static_cast<std::uint32_t>(ticket % p_.sq_entries);
    const auto turn = static_cast<std::uint32_t>(ticket / p_.sq_entries);

    // Wait for the previous occupant of the slot to be both submitted and fetched.
    ref_t<std::uint32_t> turn_counter(p_.turn_counters[slot]);
    backoff bo;
    while (turn_counter.load(acquire) != 2 * turn) bo.pause();

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
  BAM_HD std::uint32_t& cqe_dw3(std::uint32_t slot) const {
    return reinterpret_cast<std::uint32_t*>(p_.cq + slot)[nvme::completion_dw3_index];
  }

  BAM_HD nvme::completion poll_and_consume(std::uint16_t cid) const {
    backoff bo;
    for (;;) {
      const std::uint64_t head = ref_t<std::uint64_t>(p_.counters->cq_head).load(acquire);
      auto slot = static_cast<std::uint32_t>(head % p_.cq_entries);
      // Phase of entries written in pass k of the ring: 1 for even k, 0 for odd k.
      bool phase = ((head / p_.cq_entries) & 1) == 0;
      for (std::uint32_t i = 0; i < p_.cq_entries; ++i) {
        const std::uint32_t dw3 = system_atomic_ref<std::uint32_t>(cqe_dw3(slot)).load(acquire);
        if (nvme::completion::dw3_phase(dw3) != phase) break;  // not posted yet: end of the run
        if (nvme::completion::dw3_cid(dw3) == cid) return consume(head + i, slot);
        if (++slot == p_.cq_entries) {
          slot = 0;
          phase = !phase;
        }
      }
      bo.pause();
    }
  }

  /// The caller found its entry at virtual CQ position `pos`: copy it, mark it, and return once
  /// the head is past it.
  BAM_HD nvme::completion consume(std::uint64_t pos, std::uint32_t slot) const {
    const nvme::completion entry = p_.cq[slot];
    std::uint32_t& position_lock = p_.cq_position_locks[slot];
    backoff bo;
    while (!try_lock(position_lock)) bo.pause();
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
    for (;;) {
      ref_t<std::uint32_t> marker(p_.head_markers[slot]);
      if (marker.load(acquire) == 0) break;
      marker.store(0, relaxed);
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
  }

  queue_pointers p_{};
};

}  // namespace bam
