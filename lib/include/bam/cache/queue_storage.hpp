// bam/cache/queue_storage.hpp: API. The storage side of the cache as seen by its threads: moves
// whole lines between cache slots and NVMe SSDs through BaM queue pairs, with the PRPs of every
// slot prepared at construction. One source for host threads (memory_doorbell queues of host
// emulated or real controllers) and GPU threads (device_doorbell queues of
// emu::gpu::emulated_drives).
#pragma once
#include <cstddef>
#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <atomic>
#endif

#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/detail/macros.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/queue_pair_ref.hpp"

namespace bam {

namespace detail {
#if !defined(__CUDA_ARCH__)
/// A small dense index per host thread (0, 1, 2, ... in order of first use).
inline std::uint32_t host_thread_index() {
  static std::atomic<std::uint32_t> next{0};
  thread_local const std::uint32_t index = next.fetch_add(1, std::memory_order_relaxed);
  return index;
}
#endif

/// Which of `n` queues the calling thread uses: the GPU spreads warps by SM and warp slot (a
/// warp keeps its queue), the host gives each thread its own (modulo n).
BAM_HD inline std::uint32_t pick_queue(std::uint32_t n) {
#if BAM_DEVICE_CODE
  std::uint32_t sm = 0, warp = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
  return (sm * 64 + warp) % n;
#else
  return host_thread_index() % n;
#endif
}
}  // namespace detail

/// Geometry shared by the storage ref and its owners: line i -> (SSD, LBA).
struct line_map {
  std::uint32_t ssds = 1;
  std::uint32_t blocks_per_line = 8;
  line_layout layout = line_layout::striped;

  BAM_HD std::uint32_t ssd_of(std::uint64_t line) const {
    return static_cast<std::uint32_t>(line % ssds);
  }
  /// LBA of `line` on its SSD (striped) or on every SSD (replicated).
  BAM_HD std::uint64_t lba_of(std::uint64_t line) const {
    return layout == line_layout::striped ? (line / ssds) * blocks_per_line
                                          : line * blocks_per_line;
  }
  /// Dataset lines that SSDs of `lbas` blocks each can hold.
  BAM_HD std::uint64_t capacity(std::uint64_t lbas) const {
    const std::uint64_t per_ssd = lbas / blocks_per_line;
    return layout == line_layout::striped ? per_ssd * ssds : per_ssd;
  }
};

/// Trivially copyable; `Doorbell` is memory_doorbell (host controllers) or device_doorbell
/// (GPU emulated drives). All SSDs use namespace 1 and the same LBA size.
template <class Doorbell>
class queue_storage_ref {
 public:
  using queue_ref = queue_pair_ref<Doorbell>;

  struct params {
    const queue_pointers* queues = nullptr;  ///< [ssd * queues_per_ssd + q]
    std::uint32_t queues_per_ssd = 1;
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
  BAM_HD explicit queue_storage_ref(const params& p) : p_(p) {}

  BAM_HD std::uint32_t ssds() const { return p_.map.ssds; }
  BAM_HD const line_map& map() const { return p_.map; }
  BAM_HD std::byte* slot_data(std::uint32_t slot) const {
    return p_.slots + std::size_t{slot} * p_.line_bytes;
  }

  /// Reads `line` into `slot` (replicated: from SSD line % n).
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
    const nvme::completion e = queue(ssd).submit_and_wait(nvme::flush(1), p_.timeout_ns);
    if (e.status().ok()) return true;
    c.add(c.io_errors, 1);
    return false;
  }

  BAM_HD queue_ref queue(std::uint32_t ssd) const {
    const std::uint32_t q = detail::pick_queue(p_.queues_per_ssd);
    return queue_ref(p_.queues[std::size_t{ssd} * p_.queues_per_ssd + q]);
  }

 private:
  BAM_HD bool io(std::uint32_t ssd, bool write, std::uint64_t lba, std::uint32_t slot,
                 cache_counters& c) const {
    const nvme::prp_pair prp = p_.prps[ssd * p_.prps_per_ssd + slot];
    const std::uint32_t nlb = p_.map.blocks_per_line;
    const nvme::command cmd = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
    const nvme::completion e = queue(ssd).submit_and_wait(cmd, p_.timeout_ns);
    if (!e.status().ok()) {
      c.add(c.io_errors, 1);
      return false;
    }
    c.add(write ? c.writes : c.reads, 1);
    c.add(write ? c.bytes_written[ssd] : c.bytes_read[ssd], p_.line_bytes);
    return true;
  }

  params p_{};
};

}  // namespace bam
