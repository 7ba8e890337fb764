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

namespace bam {

/// Trivially copyable. `QueueSet` is a queue_set_ref of the storage's SSDs, or one that also has
/// `BAM_HD void after_read(std::uint32_t ssd) const`, called after every read completes and
/// before its line is published (kmod_gpu_ordered_queue_set: the §4.4 ordering read).
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

  /// Reads `line` into `slot` (replicated: from the SSD ssd_of(line)).
  BAM_HD bool read_line(std::uint64_t line, std::uint32_t slot, cache_counters& c) const {
    return io(p_.map.ssd_of(line), false, p_.map.lba_of(line), slot, c);
  }

  /// Writes `slot` to `line` (replicated: to every SSD).
  BAM_HD bool write_line(std::uint64_t line, std::uint32_t slot, cache_counters& c) const {
    if (p_.map.layout == line_layout::striped)
      return io(p_.map.ssd_of(line), true, p_.map.lba_of(line), slot, c);
    bool ok = true;
    for (std::uint32_t d = 0; d < p_.map.ssds; ++d)
      ok = io(d, true, p_.map.lba_of(line), slot, c) && ok;
    return ok;
  }

  /// NVMe Flush of namespace 1 of `ssd`.
  BAM_HD bool flush_ssd(std::uint32_t ssd, cache_counters& c) const {
    const nvme::completion e =
        p_.queues.my_queue(ssd).submit_and_wait(nvme::flush(1), p_.timeout_ns);
    if (e.status().ok()) return true;
    c.add(c.io_errors, 1);
    return false;
  }

 private:
  BAM_HD bool io(std::uint32_t ssd, bool write, std::uint64_t lba, std::uint32_t slot,
                 cache_counters& c) const {
    const nvme::prp_pair prp = p_.prps[ssd * p_.prps_per_ssd + slot];
    const std::uint32_t nlb = p_.map.blocks_per_line();
    const nvme::command cmd = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
    const nvme::completion e = p_.queues.my_queue(ssd).submit_and_wait(cmd, p_.timeout_ns);
    if (!e.status().ok()) {
      c.add(c.io_errors, 1);
      return false;
    }
    // A queue set whose data may be seen before it lands (a real controller writing GPU memory:
    // the §4.4 ordering read) says so with after_read(); the others have none.
    if constexpr (requires(const QueueSet& q) { q.after_read(ssd); }) {
      if (!write) p_.queues.after_read(ssd);
    }
    c.add(write ? c.writes : c.reads, 1);
    c.add(write ? c.bytes_written[ssd] : c.bytes_read[ssd], p_.line_bytes);
    return true;
  }

  params p_{};
};

}  // namespace bam
