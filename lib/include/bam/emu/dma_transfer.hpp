// bam/emu/dma_transfer.hpp: API. How an emulated controller moves command data described by PRPs,
// written once for host and GPU engines. A `Dma` policy supplies the window of memory the
// controller may reach and the data mover:
//   BAM_HD std::uint8_t* map(std::uint64_t bus, std::uint64_t len) const;  // nullptr: outside
//   BAM_HD void copy(void* dst, const void* src, std::uint64_t n) const;
//   BAM_HD void zero(void* dst, std::uint64_t n) const;
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/nvme/prp.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::emu {

/// Calls fn(host_ptr, len, transfer_offset) for each piece of the transfer described by
/// prp1/prp2, in order. A bus address (data or PRP list) outside the DMA window ends the walk
/// with sc::data_transfer_error; malformed PRPs give walk_prps' status (sc::prp_offset_invalid).
template <class Dma, class Fn>
BAM_HD nvme::status for_each_dma_piece(const Dma& dma, std::uint64_t prp1, std::uint64_t prp2,
                                       std::uint64_t bytes, std::uint32_t mps_log2, Fn&& fn) {
  nvme::status err = nvme::sc::success;
  const std::uint64_t page_mask = (std::uint64_t{1} << mps_log2) - 1;
  auto read_list = [&](std::uint64_t bus) -> const std::uint64_t* {
    const std::uint64_t page_end = (bus | page_mask) + 1;
    return reinterpret_cast<const std::uint64_t*>(dma.map(bus, page_end - bus));
  };
  auto visit = [&](std::uint64_t bus, std::uint64_t len, std::uint64_t offset) {
    if (!err.ok()) return;
    std::uint8_t* p = dma.map(bus, len);
    if (p == nullptr) {
      err = nvme::sc::data_transfer_error;
      return;
    }
    fn(p, len, offset);
  };
  const nvme::status st = nvme::walk_prps(prp1, prp2, bytes, mps_log2, read_list, visit);
  return st.ok() ? err : st;
}

/// Direction of a transfer, seen from the host memory the PRPs point at.
enum class dma_direction { to_host, from_host };

/// Copies `bytes` between the controller-local buffer `local` and the PRP-described host memory.
template <class Dma>
BAM_HD nvme::status dma_transfer(const Dma& dma, std::uint64_t prp1, std::uint64_t prp2,
                                 std::uint64_t bytes, std::uint32_t mps_log2, std::uint8_t* local,
                                 dma_direction dir) {
  return for_each_dma_piece(dma, prp1, prp2, bytes, mps_log2,
                            [&](std::uint8_t* host, std::uint64_t len, std::uint64_t offset) {
                              if (dir == dma_direction::to_host)
                                dma.copy(host, local + offset, len);
                              else
                                dma.copy(local + offset, host, len);
                            });
}

}  // namespace bam::emu
