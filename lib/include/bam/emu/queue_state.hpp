// bam/emu/queue_state.hpp: API. The controller side of one submission and one completion queue
// (head/tail/phase bookkeeping, doorbell polling, completion posting), written once for the host
// engine's threads and a GPU engine. Each state is owned by exactly one serving thread.
#pragma once
#include <cstdint>

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::emu {

/// Controller view of a submission queue: entries are fetched in order from `head` up to the
/// tail the host last wrote to the SQ tail doorbell.
struct sq_state {
  const nvme::command* ring = nullptr;  ///< the ring, as the controller reaches it
  std::uint32_t* tail_doorbell = nullptr;
  std::uint32_t entries = 0;
  std::uint32_t head = 0;  ///< next entry to fetch (the SQHD reported in completions)
  std::uint32_t tail = 0;  ///< doorbell value last seen
  std::uint16_t qid = 0;
  std::uint16_t cqid = 0;
  std::uint64_t doorbell_reads = 0;     ///< counters, read by the owner only
  std::uint64_t invalid_doorbells = 0;  ///< doorbell values >= entries (ignored)

  /// Copies the next entry to `out` and advances the head; false when the queue is empty. The
  /// doorbell is read (acquire) only when every entry up to the last seen tail was fetched.
  BAM_HD bool fetch(nvme::command& out) {
    if (head == tail) {
      const std::uint32_t t = system_atomic_ref<std::uint32_t>(*tail_doorbell).load(acquire);
      ++doorbell_reads;
      if (t >= entries) {
        ++invalid_doorbells;
        return false;
      }
      tail = t;
      if (head == tail) return false;
    }
    out = ring[head];
    head = head + 1 == entries ? 0 : head + 1;
    return true;
  }
};

/// Controller view of a completion queue: entries are posted at `tail` with the current phase
/// tag (1 on the first pass, flipped at each wrap); the queue is full when (tail+1)%size equals
/// the head the host last wrote to the CQ head doorbell.
struct cq_state {
  nvme::completion* ring = nullptr;
  std::uint32_t* head_doorbell = nullptr;
  std::uint32_t entries = 0;
  std::uint32_t tail = 0;
  std::uint32_t head = 0;  ///< doorbell value last seen
  bool phase = true;
  std::uint16_t qid = 0;
  std::uint64_t doorbell_reads = 0;
  std::uint64_t invalid_doorbells = 0;

  BAM_HD std::uint32_t next_tail() const { return tail + 1 == entries ? 0 : tail + 1; }

  /// True when one more entry can be posted without overwriting an unconsumed one. Re-reads the
  /// head doorbell (acquire) only when the cached head says the queue is full.
  BAM_HD bool has_space() {
    if (next_tail() != head) return true;
    const std::uint32_t h = system_atomic_ref<std::uint32_t>(*head_doorbell).load(acquire);
    ++doorbell_reads;
    if (h >= entries) {
      ++invalid_doorbells;
      return false;
    }
    head = h;
    return next_tail() != head;
  }

  /// Posts one completion; requires has_space(). DW0-DW2 are plain stores, DW3 (CID, phase,
  /// status) is published last with a release store at system scope.
  BAM_HD void post(std::uint32_t dw0, std::uint16_t sqhd, std::uint16_t sqid, std::uint16_t cid,
                   nvme::status st) {
    nvme::completion& e = ring[tail];
    e.dw0 = dw0;
    e.dw1 = 0;
    e.sqhd = sqhd;
    e.sqid = sqid;
    auto* words = reinterpret_cast<std::uint32_t*>(&e);
    system_atomic_ref<std::uint32_t>(words[nvme::completion_dw3_index])
        .store(nvme::completion::make_dw3(cid, phase, st), release);
    tail = next_tail();
    if (tail == 0) phase = !phase;
  }
};

}  // namespace bam::emu
