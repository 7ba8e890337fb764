// bam/queue/block_io.hpp: API. Block reads and writes by GPU (or host) threads through a queue
// set (bam/queue/queue_set_ref.hpp): build the NVMe command, submit, wait with a timeout. The
// buffer is named by its PRPs: bus addresses the SSD's controller can reach (for GPU-emulated
// drives, virtual addresses; a buffer of up to 4 KiB that does not cross a 4 KiB page needs only
// PRP1).
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/queue_hold.hpp"
#include "bam/queue/queue_set_ref.hpp"
#include "bam/queue/read_ordering.hpp"

namespace bam {

namespace detail {
/// block_io's read after its completion `done`: the set's ordering read (with the `mark` taken
/// before the submission), and the read failed (sc::host_timeout) when that failed.
template <class QueueSet>
BAM_HD nvme::completion ordered_read(const QueueSet& set, std::uint32_t ssd, bool write,
                                     std::uint64_t mark, nvme::completion done) {
  if (!write && done.status().ok() && !read_ordered(set, ssd, mark)) {
    constexpr nvme::status timed_out = nvme::sc::host_timeout;  // a copy, for device code
    done.sf =
        static_cast<std::uint16_t>(nvme::completion::make_dw3(done.cid, false, timed_out) >> 16);
  }
  return done;
}
}  // namespace detail

/// Reads or writes `nlb` blocks at `lba` of SSD `ssd` through its queue `queue`; `prp` names the
/// buffer. Returns the completion (status sc::host_timeout when nothing arrived within
/// `timeout_ns`; 0: wait forever). With a set whose reads are ordered (ordered_reads,
/// bam/queue/read_ordering.hpp: the §4.4 ordering read) a read takes its mark before it is
/// submitted and waits for the ordering after it succeeded, so the data is usable on return;
/// when the ordering read fails, so does the read (sc::host_timeout).
template <class QueueSet>
BAM_HD nvme::completion block_io(const QueueSet& set, std::uint32_t ssd, std::uint32_t queue,
                                 bool write, std::uint64_t lba, std::uint32_t nlb,
                                 nvme::prp_pair prp, std::uint64_t timeout_ns) {
  const nvme::command c = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
  const std::uint64_t mark = write ? 0 : read_mark(set, ssd);
  return detail::ordered_read(set, ssd, write, mark,
                              set.queue(ssd, queue).submit_and_wait(c, timeout_ns));
}

/// block_io through a queue pair of SSD `ssd` that the calling thread holds (queue_hold: it is
/// that queue's only user); the set's ordering read as above, which must go to a queue pair of
/// its own (the emulated drives'; kmod_gpu_queues' when the controller granted one more pair):
/// on the held queue it would wait behind the hold's locks until its timeout.
template <class QueueSet, class Doorbell, cuda::thread_scope Scope>
BAM_HD nvme::completion block_io(const QueueSet& set, std::uint32_t ssd,
                                 queue_hold<Doorbell, Scope>& hold, bool write, std::uint64_t lba,
                                 std::uint32_t nlb, nvme::prp_pair prp, std::uint64_t timeout_ns) {
  const nvme::command c = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
  const std::uint64_t mark = write ? 0 : read_mark(set, ssd);
  return detail::ordered_read(set, ssd, write, mark, hold.submit_and_wait(c, timeout_ns));
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
