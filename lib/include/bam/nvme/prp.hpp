// bam/nvme/prp.hpp: API. Physical Region Page (PRP) data pointers, both sides of the wire: a
// driver builds PRP1/PRP2 (and PRP lists) for a transfer, a controller walks them back into
// contiguous pieces. Header-only, host and device, no allocation, no exceptions.
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::nvme {

/// The two PRP fields of a command (CDW6-9).
struct prp_pair {
  std::uint64_t prp1 = 0;
  std::uint64_t prp2 = 0;
};

/// One PRP list page as a driver hands it to build_prps: where it can write the entries and the
/// bus address the controller reads them at. `list_page` may return this type, any type with
/// `vaddr` and `bus` members, or a pair-like {vaddr, bus}.
struct prp_list_page {
  std::uint64_t* vaddr = nullptr;
  std::uint64_t bus = 0;
};

namespace detail {
template <class Page>
BAM_HD constexpr prp_list_page as_list_page(const Page& p) {
  if constexpr (requires { p.vaddr, p.bus; }) {
    return prp_list_page{p.vaddr, p.bus};
  } else {
    const auto& [vaddr, bus] = p;
    return prp_list_page{vaddr, bus};
  }
}

/// Number of controller pages of 2^mps_log2 bytes that `bytes` starting at `first` touch.
BAM_HD constexpr std::uint64_t prp_pages_spanned(std::uint64_t first, std::uint64_t bytes,
                                                 std::uint32_t mps_log2) {
  if (bytes == 0) return 0;
  const std::uint64_t mask = (std::uint64_t{1} << mps_log2) - 1;
  return ((first & mask) + bytes + mask) >> mps_log2;
}
}  // namespace detail

/// Number of PRP list pages (each one controller page of 2^mps_log2 bytes) a transfer of `bytes`
/// starting at bus address `first` needs: 0 when it spans at most two controller pages. Chained
/// lists: the last entry of a full list page points to the next list page.
BAM_HD constexpr std::uint32_t prp_list_pages_needed(std::uint64_t first, std::uint64_t bytes,
                                                     std::uint32_t mps_log2) {
  const std::uint64_t pages = detail::prp_pages_spanned(first, bytes, mps_log2);
  if (pages <= 2) return 0;
  // Entries after PRP1; every list page but the last gives its last slot to the chain pointer:
  // L pages hold L * (E - 1) + 1 entries.
  const std::uint64_t entries = pages - 1;
  const std::uint64_t per_page = std::uint64_t{1} << (mps_log2 - 3);
  return static_cast<std::uint32_t>((entries - 2) / (per_page - 1) + 1);
}

/// Host/driver side. `bus_at(offset)` returns the bus address of byte `offset` of the transfer
/// (called for offset 0 and for each controller-page boundary); `list_page(i)` returns
/// {std::uint64_t* vaddr, std::uint64_t bus} of the i-th PRP list page (only called when lists
/// are needed; each must be a whole, page-aligned controller page, i = 0 ..
/// prp_list_pages_needed() - 1). Returns sc::success and fills `out`, or sc::prp_offset_invalid
/// if the first address is not dword aligned / a later page address (or a list page) is not page
/// aligned. A transfer of 0 bytes gives {0, 0} without calling either function; one that fits in
/// one page leaves prp2 = 0.
template <class BusAt, class ListPage>
BAM_HD status build_prps(std::uint64_t bytes, std::uint32_t mps_log2, BusAt&& bus_at,
                         ListPage&& list_page, prp_pair& out) {
  out = prp_pair{};
  if (bytes == 0) return sc::success;
  const std::uint64_t page = std::uint64_t{1} << mps_log2;
  const std::uint64_t mask = page - 1;
  const std::uint64_t prp1 = bus_at(std::uint64_t{0});
  if ((prp1 & 3u) != 0) return sc::prp_offset_invalid;
  const std::uint64_t pages = detail::prp_pages_spanned(prp1, bytes, mps_log2);
  const std::uint64_t first_len = page - (prp1 & mask);
  if (pages <= 1) {
    out.prp1 = prp1;
    return sc::success;
  }
  if (pages == 2) {
    const std::uint64_t second = bus_at(first_len);
    if ((second & mask) != 0) return sc::prp_offset_invalid;
    out.prp1 = prp1;
    out.prp2 = second;
    return sc::success;
  }
  const std::uint64_t entries = pages - 1;
  const std::uint64_t per_page = page >> 3;
  std::uint32_t list_index = 0;
  const prp_list_page first_list = detail::as_list_page(list_page(list_index));
  std::uint64_t* slot = first_list.vaddr;
  if ((first_list.bus & mask) != 0) return sc::prp_offset_invalid;
  std::uint64_t used = 0;  // slots used in the current list page
  for (std::uint64_t e = 0; e < entries; ++e) {
    if (used == per_page - 1 && entries - e > 1) {
      const prp_list_page next = detail::as_list_page(list_page(++list_index));
      if ((next.bus & mask) != 0) return sc::prp_offset_invalid;
      *slot = next.bus;
      slot = next.vaddr;
      used = 0;
    }
    const std::uint64_t addr = bus_at(first_len + e * page);
    if ((addr & mask) != 0) return sc::prp_offset_invalid;
    *slot++ = addr;
    ++used;
  }
  out.prp1 = prp1;
  out.prp2 = first_list.bus;
  return sc::success;
}

/// Controller side: walks prp1/prp2 of a transfer of `bytes` and calls
/// visit(bus_addr, len, transfer_offset) per contiguous piece (at most one controller page each),
/// in transfer order. `read_list(bus) -> const std::uint64_t*` maps a PRP list address to memory
/// it can read: the returned pointer is the entry at `bus`, valid up to the end of that
/// controller page (may return nullptr: then sc::data_transfer_error). PRP2 as a list pointer
/// may carry a qword-aligned offset into its page; a chain pointer (last slot of a list page
/// when more than one entry remains) must be page aligned. Returns sc::success,
/// sc::prp_offset_invalid (PRP1 not dword aligned, a later entry with a non-zero page offset, a
/// list pointer not qword aligned), or sc::data_transfer_error. Pieces visited before an error
/// stay visited. A transfer of 0 bytes visits nothing and succeeds.
template <class ReadList, class Visit>
BAM_HD status walk_prps(std::uint64_t prp1, std::uint64_t prp2, std::uint64_t bytes,
                        std::uint32_t mps_log2, ReadList&& read_list, Visit&& visit) {
  if (bytes == 0) return sc::success;
  if ((prp1 & 3u) != 0) return sc::prp_offset_invalid;
  const std::uint64_t page = std::uint64_t{1} << mps_log2;
  const std::uint64_t mask = page - 1;
  const std::uint64_t room = page - (prp1 & mask);
  const std::uint64_t first_len = bytes < room ? bytes : room;
  visit(prp1, first_len, std::uint64_t{0});
  std::uint64_t done = first_len;
  if (done == bytes) return sc::success;
  if (bytes - done <= page) {  // PRP2 is the second data page
    if ((prp2 & mask) != 0) return sc::prp_offset_invalid;
    visit(prp2, bytes - done, done);
    return sc::success;
  }
  if ((prp2 & 7u) != 0) return sc::prp_offset_invalid;  // PRP2 is a list pointer
  const std::uint64_t per_page = page >> 3;
  const std::uint64_t* entry = read_list(prp2);
  if (entry == nullptr) return sc::data_transfer_error;
  std::uint64_t slot = (prp2 & mask) >> 3;  // slot of `entry` in its list page
  while (done < bytes) {
    const std::uint64_t remaining = bytes - done;
    const std::uint64_t value = *entry;
    if (slot == per_page - 1 && remaining > page) {  // more than one entry left: chain pointer
      if ((value & mask) != 0) return sc::prp_offset_invalid;
      entry = read_list(value);
      if (entry == nullptr) return sc::data_transfer_error;
      slot = 0;
      continue;
    }
    if ((value & mask) != 0) return sc::prp_offset_invalid;
    const std::uint64_t len = remaining < page ? remaining : page;
    visit(value, len, done);
    done += len;
    ++entry;
    ++slot;
  }
  return sc::success;
}

}  // namespace bam::nvme
