// bam/emu/gpu/drive_layout.hpp: API. Where one emulated drive's I/O queues live in its GPU-memory
// block: SQ and CQ rings (page aligned), the SQ tail and CQ head doorbells (packed, so one warp
// load polls 32 of them), and each queue pair's bookkeeping (queue_state_layout).
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam::emu::gpu {

/// Byte offsets inside one drive's zero-initialised block of GPU memory.
struct drive_layout {
  std::uint32_t queues = 0, sq_entries = 0, cq_entries = 0;
  std::size_t sq_rings = 0, sq_ring_bytes = 0;  ///< queue i's SQ at sq_rings + i * sq_ring_bytes
  std::size_t cq_rings = 0, cq_ring_bytes = 0;
  std::size_t sq_doorbells = 0;             ///< uint32_t[queues]
  std::size_t cq_doorbells = 0;             ///< uint32_t[queues]
  std::size_t states = 0, state_bytes = 0;  ///< queue i's bookkeeping at states + i * state_bytes
  std::size_t bytes = 0;

  static constexpr std::size_t page = 4096;
  BAM_HD static constexpr std::size_t round(std::size_t n, std::size_t a) {
    return (n + a - 1) / a * a;
  }

  BAM_HD constexpr drive_layout(std::uint32_t n_queues, std::uint32_t sq_n, std::uint32_t cq_n)
      : queues(n_queues), sq_entries(sq_n), cq_entries(cq_n) {
    std::size_t at = 0;
    sq_rings = at;
    sq_ring_bytes = round(std::size_t{sq_n} * sizeof(nvme::command), page);
    at += sq_ring_bytes * n_queues;
    cq_rings = at;
    cq_ring_bytes = round(std::size_t{cq_n} * sizeof(nvme::completion), page);
    at += cq_ring_bytes * n_queues;
    sq_doorbells = at;
    at += round(std::size_t{n_queues} * sizeof(std::uint32_t), 128);
    cq_doorbells = at;
    at += round(std::size_t{n_queues} * sizeof(std::uint32_t), 128);
    states = at;
    state_bytes = round(queue_state_layout(sq_n, cq_n).bytes, 128);
    at += state_bytes * n_queues;
    bytes = round(at, page);
  }

  /// The queue_pointers of queue `i` (I/O queue ID i + 1) for a block at `base`.
  BAM_HD queue_pointers pointers(void* base, std::uint32_t i) const {
    auto* b = static_cast<std::byte*>(base);
    queue_pointers p;
    p.sq = reinterpret_cast<nvme::command*>(b + sq_rings + i * sq_ring_bytes);
    p.cq = reinterpret_cast<nvme::completion*>(b + cq_rings + i * cq_ring_bytes);
    p.sq_doorbell = reinterpret_cast<std::uint32_t*>(b + sq_doorbells) + i;
    p.cq_doorbell = reinterpret_cast<std::uint32_t*>(b + cq_doorbells) + i;
    p.sq_entries = sq_entries;
    p.cq_entries = cq_entries;
    p.qid = static_cast<std::uint16_t>(i + 1);
    queue_state_layout(sq_entries, cq_entries).place(b + states + i * state_bytes, p);
    return p;
  }
};

}  // namespace bam::emu::gpu
