// bam/queue/queue_choice.hpp: API. Which of an SSD's queue pairs a thread's next command goes to,
// when the thread may use any of them (BaM's shared protocol): the power of two choices with
// memory. Host and device.
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam {

/// The queue of `ssd` in the set `v` (a queue_set_ref) that a thread's next command goes to:
/// `current` (the one it used last), or `(current + 1 + draw % (n - 1)) % n`, one of the SSD's
/// other n queues picked by the caller's random `draw`, when that one holds fewer commands
/// (queue_pair_ref::held). Two loads of each queue's words, no write: the thread then submits to
/// the queue it returns as to any other. With one queue per SSD, `current`.
template <class QueueSet>
BAM_HD std::uint32_t shorter_queue(const QueueSet& v, std::uint32_t ssd, std::uint32_t current,
                                   std::uint64_t draw) {
  const std::uint32_t n = v.queues_per_ssd();
  if (n < 2) return current;
  const auto other = static_cast<std::uint32_t>((current + 1 + draw % (n - 1)) % n);
  return v.queue(ssd, other).held() < v.queue(ssd, current).held() ? other : current;
}

}  // namespace bam
