// bam/queue/queue_state.hpp: the memory a BaM queue pair works on, as plain data.
// queue_counters holds the hot shared words, each on its own 128-byte line; queue_pointers is
// everything a queue_pair_ref needs (rings, doorbells, bookkeeping arrays). Owners (host or GPU)
// lay the bookkeeping out with queue_state_layout and fill queue_pointers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/nvme/spec.hpp"

namespace bam {

/// A virtual position and the lock that guards it, in one word (queue_counters::sq_tail,
/// cq_head): the position times 2, plus `position_lock` while a thread holds the lock. One
/// read-modify-write takes the lock and returns the position, and the holder's unlock stores the
/// position it leaves.
inline constexpr std::uint64_t position_lock = 1;
BAM_HD constexpr std::uint64_t position_of(std::uint64_t word) {
  return word >> 1;
}
BAM_HD constexpr std::uint64_t position_word(std::uint64_t position, bool locked) {
  return position << 1 | (locked ? position_lock : 0);
}
BAM_HD constexpr bool position_locked(std::uint64_t word) {
  return (word & position_lock) != 0;
}
static_assert(position_of(position_word(7, true)) == 7 && position_locked(position_word(7, true)) &&
              !position_locked(position_word(7, false)));

/// Shared counters of one queue pair. Virtual positions are 64-bit and never wrap (below 2^63).
struct queue_counters {
  alignas(128) std::uint64_t sq_ticket;  ///< next SQ ticket
  /// Virtual SQ tail and the tail lock (position_of, position_locked); the tail moves under it.
  alignas(128) std::uint64_t sq_tail;
  std::uint64_t sq_doorbell_writes;    ///< SQ doorbell writes (under the tail lock)
  alignas(128) std::uint64_t sq_head;  ///< virtual SQ head from SQHD (under the CQ lock)
  /// Virtual CQ head and the CQ lock (position_of, position_locked); the head moves under it.
  alignas(128) std::uint64_t cq_head;
  std::uint64_t cq_doorbell_writes;     ///< CQ doorbell writes (under the CQ lock)
  alignas(128) std::uint64_t timeouts;  ///< waits that gave up (wait_for)
  std::uint64_t late_completions;       ///< completions passed for a waiter that gave up
  std::uint64_t failures;               ///< times fail() was called (the first one failed it)
  std::uint64_t invalid_completions;    ///< SQHD past the tail, or an ID not in flight
  std::uint32_t abandoned;  ///< command IDs abandoned and not yet given back (freed at the late
                            ///< completion, or reserved until the owner reclaims them)
  alignas(128) std::uint32_t failed;  ///< non-zero: the queue was failed (see queue_pair_ref)
  /// Non-zero: the queue's owner (its host recovery watchdog) frees the command IDs of late
  /// completions (queue_pair_ref::reclaim); the CQ-lock holder leaves them reserved. Zero: the
  /// holder frees them itself (queues nobody watches, e.g. the GPU's).
  std::uint32_t owner_reclaims;
  /// Host threads inside the queue: in a submission, or holding a command ID from submit until
  /// its wait returned. Its owner's recovery waits for 0 before it resets the queue, and a reset
  /// leaves this word alone. GPU threads do not count (their queues are never reset in place).
  alignas(128) std::uint32_t users;
};
static_assert(sizeof(queue_counters) == 7 * 128);

/// Where the CQ-lock holder leaves the completion of one command ID for its waiter (the waiter
/// never reads the CQ itself, so completions can be taken in any order). 16 bytes.
struct completion_box {
  std::uint32_t dw0 = 0;
  std::uint32_t dw1 = 0;
  std::uint32_t dw3 = 0;    ///< the entry's DW3: command ID, status (phase bit meaningless)
  std::uint32_t state = 0;  ///< box_ready | box_abandoned
};
static_assert(sizeof(completion_box) == 16);
inline constexpr std::uint32_t box_ready = 1;      ///< the completion is in the box
inline constexpr std::uint32_t box_abandoned = 2;  ///< the waiter gave up on the command

/// Everything a queue_pair_ref works on. Trivially copyable.
struct queue_pointers {
  nvme::command* sq = nullptr;           ///< submission ring (controller-visible memory)
  nvme::completion* cq = nullptr;        ///< completion ring (controller-visible memory)
  std::uint32_t* sq_doorbell = nullptr;  ///< SQ tail doorbell
  std::uint32_t* cq_doorbell = nullptr;  ///< CQ head doorbell
  queue_counters* counters = nullptr;
  std::uint32_t* turn_counters = nullptr;  ///< [sq_entries]
  std::uint32_t* tail_markers = nullptr;   ///< [sq_entries]
  std::uint32_t* cid_bits = nullptr;       ///< [cid_count / 32], set = in use
  completion_box* boxes = nullptr;         ///< [cid_count]
  std::uint32_t sq_entries = 0;
  std::uint32_t cq_entries = 0;
  std::uint32_t cid_count = 0;  ///< command IDs in the pool (multiple of 32)
  std::uint16_t qid = 0;
};

/// Limits of the protocol (the specification's).
inline constexpr std::uint32_t min_queue_entries = 2;
inline constexpr std::uint32_t max_queue_entries = 65536;
/// I/O queue pairs of one controller: queue IDs 1 .. 65535 (0 is the admin queue).
inline constexpr std::uint32_t max_io_queue_pairs = 65535;
/// Command IDs 0 .. 65503: 0xffff is reserved by the specification.
inline constexpr std::uint32_t max_cid_count = 65504;

/// Size of the command-ID pool for an SQ of `sq_entries`: every enqueued, in-flight or posted but
/// not yet passed command holds one. Twice the ring (at least 1024), capped by the 16-bit ID
/// space: rings of more than 32752 entries get fewer than twice their size, and a submitter that
/// finds every ID in use waits for one (bounded by its deadline, see queue_pair_ref).
BAM_HD constexpr std::uint32_t cid_count_for(std::uint32_t sq_entries) {
  std::uint32_t n = 2 * sq_entries < 1024 ? 1024 : 2 * sq_entries;
  n = (n + 31) / 32 * 32;
  return n > max_cid_count ? max_cid_count : n;
}

/// Byte layout of a queue pair's bookkeeping in one zero-initialised block. The CQ needs none of
/// its own: its entries are moved to the command IDs' boxes.
struct queue_state_layout {
  std::size_t counters = 0, turn_counters = 0, tail_markers = 0, cid_bits = 0, boxes = 0, bytes = 0;
  std::uint32_t cid_count = 0;

  BAM_HD constexpr queue_state_layout(std::uint32_t sq_entries,
                                      [[maybe_unused]] std::uint32_t cq_entries)
      : cid_count(cid_count_for(sq_entries)) {
    std::size_t at = 0;
    counters = at;
    at += sizeof(queue_counters);
    turn_counters = at;
    at += align(sq_entries * sizeof(std::uint32_t));
    tail_markers = at;
    at += align(sq_entries * sizeof(std::uint32_t));
    cid_bits = at;
    at += align(cid_count / 32 * sizeof(std::uint32_t));
    boxes = at;
    at += align(cid_count * sizeof(completion_box));
    bytes = at;
  }
  BAM_HD static constexpr std::size_t align(std::size_t n) { return (n + 127) / 128 * 128; }

  /// Fills the bookkeeping pointers of `p` for a block at `base`.
  BAM_HD void place(void* base, queue_pointers& p) const {
    auto* b = static_cast<std::byte*>(base);
    p.counters = reinterpret_cast<queue_counters*>(b + counters);
    p.turn_counters = reinterpret_cast<std::uint32_t*>(b + turn_counters);
    p.tail_markers = reinterpret_cast<std::uint32_t*>(b + tail_markers);
    p.cid_bits = reinterpret_cast<std::uint32_t*>(b + cid_bits);
    p.boxes = reinterpret_cast<completion_box*>(b + boxes);
    p.cid_count = cid_count;
  }
};

}  // namespace bam
