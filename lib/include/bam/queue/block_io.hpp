// bam/queue/block_io.hpp: API. Block reads and writes by GPU (or host) threads through a queue
// set (bam/queue/queue_set_ref.hpp): build the NVMe command, submit, wait with a timeout. The
// buffer is named by its PRPs: bus addresses the SSD's controller can reach (for GPU-emulated
// drives, virtual addresses; a buffer of up to 4 KiB that does not cross a 4 KiB page needs only
// PRP1).
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/queue_set_ref.hpp"

namespace bam {

/// Reads or writes `nlb` blocks at `lba` of SSD `ssd` through its queue `queue`; `prp` names the
/// buffer. Returns the completion (status sc::host_timeout when nothing arrived within
/// `timeout_ns`; 0: wait forever). A queue set with `after_read(ssd, mark)` and
/// `ordering_mark(ssd)` (ordered_queue_set: the §4.4 ordering read) has it called after a read
/// succeeded, so the data is usable on return;
/// when the ordering read fails, so does the read (sc::host_timeout). The read covers the
/// ordering of the reads completed before it was submitted (its ordering_mark).
template <class QueueSet>
BAM_HD nvme::completion block_io(const QueueSet& set, std::uint32_t ssd, std::uint32_t queue,
                                 bool write, std::uint64_t lba, std::uint32_t nlb,
                                 nvme::prp_pair prp, std::uint64_t timeout_ns) {
  constexpr bool ordered = requires(const QueueSet& q) {
    q.after_read(ssd, q.ordering_mark(ssd));
  };
  // A set with after_read but no ordering_mark would lose its ordering read here, unseen.
  constexpr bool reads_after = requires(const QueueSet& q) {
    q.after_read(ssd);
  };
  constexpr bool reads_after_mark = requires(const QueueSet& q) {
    q.after_read(ssd, std::uint64_t{});
  };
  static_assert(
      ordered || !(reads_after || reads_after_mark),
      "an ordered queue set takes the mark too: ordering_mark(ssd), after_read(ssd, mark)");
  const nvme::command c = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
  std::uint64_t mark = 0;
  if constexpr (ordered)
    if (!write) mark = set.ordering_mark(ssd);
  nvme::completion done = set.queue(ssd, queue).submit_and_wait(c, timeout_ns);
  if constexpr (ordered) {
    if (!write && done.status().ok() && !set.after_read(ssd, mark)) {
      constexpr nvme::status timed_out = nvme::sc::host_timeout;  // a copy, for device code
      done.sf =
          static_cast<std::uint16_t>(nvme::completion::make_dw3(done.cid, false, timed_out) >> 16);
    }
  }
  return done;
}

/// block_io for a buffer whose bus address is its address (GPU-emulated drives, host-emulated
/// controllers' identity memory) and that fits in one 4 KiB page.
template <class QueueSet>
BAM_HD nvme::completion block_io(const QueueSet& set, std::uint32_t ssd, std::uint32_t queue,
                                 bool write, std::uint64_t lba, std::uint32_t nlb, void* buffer,
                                 std::uint64_t timeout_ns) {
  return block_io(set, ssd, queue, write, lba, nlb,
                  nvme::prp_pair{reinterpret_cast<std::uintptr_t>(buffer), 0}, timeout_ns);
}

}  // namespace bam
