// bam/cache/queue_storage.hpp: API. The storage side of the cache as seen by its threads: moves
// whole lines between cache slots and NVMe SSDs through a queue set (bam/queue/queue_set_ref.hpp),
// with the PRPs of every slot prepared at construction. One source for host threads
// (memory_doorbell queues of host emulated or real controllers) and GPU threads (the queues of
// GPU-emulated drives, or of a real controller in GPU memory).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/cache/line_map.hpp"
#include "bam/detail/macros.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/queue_set_ref.hpp"
#include "bam/queue/read_ordering.hpp"

namespace bam {

/// Trivially copyable. `QueueSet` is a queue_set_ref of the storage's SSDs, or one whose reads are
/// ordered (ordered_reads, bam/queue/read_ordering.hpp: ordered_queue_set,
/// kmod_gpu_ordered_queue_set, the §4.4 ordering read): each read takes its mark before it is
/// submitted and waits for the ordering after it completed, before its line is published; a
/// failed ordering fails the read (sc::host_timeout: the ordering read did not complete).
template <class QueueSet>
class queue_storage_ref {
 public:
  using queue_set_type = QueueSet;

  struct params {
    QueueSet queues{};
    line_map map{};
    std::byte* slots = nullptr;  ///< slot s at slots + s * line_bytes
    std::uint32_t line_bytes = 0;
    const nvme::prp_pair* prps = nullptr;  ///< [ssd * prps_per_ssd + slot]: PRP1/PRP2 (list)
    /// 0: one PRP table for every SSD (all reach the slots at the same bus addresses); else the
    /// slot count: each SSD has its own table (controllers behind an IOMMU, each its own view).
    std::uint64_t prps_per_ssd = 0;
    std::uint64_t timeout_ns = 0;  ///< per I/O; 0: wait forever
  };

  queue_storage_ref() = default;
  BAM_HD explicit queue_storage_ref(const params& p) : p_(p) {
    static_assert(std::is_trivially_copyable_v<queue_storage_ref>, "kernels take it by value");
  }

  BAM_HD std::uint32_t ssds() const { return p_.map.ssds; }
  BAM_HD const line_map& map() const { return p_.map; }
  BAM_HD const QueueSet& queues() const { return p_.queues; }
  BAM_HD std::byte* slot_data(std::uint32_t slot) const {
    return p_.slots + std::size_t{slot} * p_.line_bytes;
  }

  /// Reads `line` into `slot` (replicated: from the SSD ssd_of(line)). On failure `live` is 0,
  /// or, when the read timed out (or its queue failed) while the controller still holds it, the
  /// token of that command for io_live: the cache keeps the slot out of use meanwhile.
  BAM_HD bool read_line(std::uint64_t line, std::uint32_t slot, cache_counters& c,
                        std::uint64_t& live) const {
    return io(p_.map.ssd_of(line), false, p_.map.lba_of(line), slot, c, &live);
  }

  /// Writes `slot` to `line` (replicated: to every SSD).
  BAM_HD bool write_line(std::uint64_t line, std::uint32_t slot, cache_counters& c) const {
    if (p_.map.layout == line_layout::striped)
      return io(p_.map.ssd_of(line), true, p_.map.lba_of(line), slot, c, nullptr);
    bool ok = true;
    for (std::uint32_t d = 0; d < p_.map.ssds; ++d)
      ok = io(d, true, p_.map.lba_of(line), slot, c, nullptr) && ok;
    return ok;
  }

  /// True while the command of `token` (from read_line) may still be completed by the
  /// controller and move data: queue_pair_ref::abandoned of its command ID on its queue.
  BAM_HD bool io_live(std::uint64_t token) const {
    const auto ssd = static_cast<std::uint32_t>(token >> 48) & 0x3fff;
    const auto q = static_cast<std::uint32_t>(token >> 16);
    return p_.queues.queue(ssd, q).abandoned(static_cast<std::uint16_t>(token));
  }

  /// Makes the queue of `token` claim the late completions posted for commands it gave up on
  /// (a queue claims them only while it completes other commands): an NVMe Flush through it.
  BAM_HD void reap(std::uint64_t token, cache_counters& c) const {
    const auto ssd = static_cast<std::uint32_t>(token >> 48) & 0x3fff;
    const auto q = static_cast<std::uint32_t>(token >> 16);
    const nvme::completion e =
        p_.queues.queue(ssd, q).submit_and_wait_outlined(nvme::flush(1), p_.timeout_ns);
    c.add(c.flushes, 1);
    if (!e.status().ok()) c.add_error(e.status());
  }

  /// NVMe Flush of namespace 1 of `ssd`.
  BAM_HD bool flush_ssd(std::uint32_t ssd, cache_counters& c) const {
    const nvme::completion e =
        p_.queues.my_queue(ssd).submit_and_wait_outlined(nvme::flush(1), p_.timeout_ns);
    if (e.status().ok()) return true;
    c.add_error(e.status());
    return false;
  }

 private:
  /// io_live's token of command `cid` on queue `q` of SSD `ssd`: non-zero (bit 62), < 2^63.
  BAM_HD static std::uint64_t live_token(std::uint32_t ssd, std::uint32_t q, std::uint16_t cid) {
    return std::uint64_t{1} << 62 | std::uint64_t{ssd} << 48 | std::uint64_t{q} << 16 | cid;
  }

  /// `live`: where a read that failed leaves the token of a command still live (nullptr for
  /// writes).
  BAM_HD bool io(std::uint32_t ssd, bool write, std::uint64_t lba, std::uint32_t slot,
                 cache_counters& c, std::uint64_t* live) const {
    const nvme::prp_pair prp = p_.prps[ssd * p_.prps_per_ssd + slot];
    const std::uint32_t nlb = p_.map.blocks_per_line();
    const nvme::command cmd = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
    const std::uint32_t q = p_.queues.my_queue_index();
    const auto queue = p_.queues.queue(ssd, q);
    // The read covers the ordering of those completed before its mark (read_ordering.hpp).
    const std::uint64_t mark = write ? 0 : read_mark(p_.queues, ssd);
    const nvme::completion e = queue.submit_and_wait_outlined(cmd, p_.timeout_ns);
    if (!e.status().ok()) {
      c.add_error(e.status());
      // Only a command the queue gave up on can still be running; its ID is abandoned until
      // the queue claims its late completion (or the queue is reset).
      constexpr nvme::status timeout = nvme::sc::host_timeout, failed = nvme::sc::host_queue_failed;
      const bool gave_up = e.status() == timeout || e.status() == failed;
      if (live != nullptr && gave_up && queue.abandoned(e.cid)) *live = live_token(ssd, q, e.cid);
      return false;
    }
    // A queue set whose data may be seen before it lands (a real controller writing GPU memory:
    // the §4.4 ordering read) waits for the ordering here; the others have none.
    if (!write && !read_ordered(p_.queues, ssd, mark)) {
      constexpr nvme::status timed_out = nvme::sc::host_timeout;  // a copy, for device code
      c.add_error(timed_out);
      return false;
    }
    c.add(write ? c.writes : c.reads, 1);
    c.add(write ? c.bytes_written[ssd] : c.bytes_read[ssd], p_.line_bytes);
    return true;
  }

  params p_{};
};

}  // namespace bam
