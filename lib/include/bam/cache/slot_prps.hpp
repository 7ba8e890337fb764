// bam/cache/slot_prps.hpp: API (for storage owners). Prepares, once, the PRP1/PRP2 pair of every
// cache slot and the PRP list pages of slots that span more than two 4 KiB pages.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "bam/cache/cache_config.hpp"
#include "bam/dma.hpp"
#include "bam/nvme/prp.hpp"

namespace bam {

/// Controller memory page size the slots' PRPs are built for (CC.MPS = 0: 4 KiB).
inline constexpr std::uint32_t slot_prp_page_log2 = 12;

/// Precondition (std::logic_error otherwise, see bam/detail/expects.hpp): `line_bytes` is a power
/// of two in [512 B, 64 KiB] and a multiple of `lba_bytes`; then a slot never crosses a page
/// (< 4 KiB) or starts on one.
void check_line_bytes(std::uint32_t line_bytes, std::uint32_t lba_bytes);

/// PRP list pages one slot of `line_bytes` needs (page aligned or inside one page).
std::uint32_t slot_list_pages(std::uint32_t line_bytes);

/// Builds the PRPs of `slots` slots. `slot_bus(s, offset)`: bus address of byte `offset` of slot
/// s. List pages: slot s uses pages [s * slot_list_pages, ...) of a page-aligned area whose
/// host-writable mirror is `list_host` and whose bus address is `list_bus` (contiguous).
std::vector<nvme::prp_pair> build_slot_prps(
    std::uint64_t slots, std::uint32_t line_bytes,
    const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& slot_bus,
    std::byte* list_host, std::uint64_t list_bus);
/// The same with list pages anywhere on the bus: `list_bus(offset)` is the bus address of byte
/// `offset` (a multiple of 4 KiB) of the list area (e.g. pinned host pages mapped one by one).
std::vector<nvme::prp_pair> build_slot_prps(
    std::uint64_t slots, std::uint32_t line_bytes,
    const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& slot_bus,
    std::byte* list_host, const std::function<std::uint64_t(std::uint64_t)>& list_bus);

/// The prepared PRPs of a cache's slots: one table, or one per SSD when the slot memory's
/// allocator maps it for every SSD at bus addresses of its own (IOMMU).
struct slot_tables {
  std::vector<nvme::prp_pair> prps;  ///< [table * slots + slot]
  /// The list pages' contents, to be copied to the start of the list region (tables *
  /// slot_list_bytes(); empty when slots need no list).
  std::vector<std::byte> lists;
  std::uint32_t tables = 1;
};

/// Bytes of PRP list pages one table of `slots` slots of `line_bytes` needs.
std::size_t slot_list_bytes(std::uint64_t slots, std::uint32_t line_bytes);

/// Builds the tables of `slots` slots of `line_bytes` at the start of `slot_region`, with list
/// pages in `list_region` (slot_list_bytes() per table, memory.devices() tables; unused when no
/// slot needs a list), both from `memory`, for `ssds` SSDs: one table when memory.devices() is 1
/// or every device sees both regions at device 0's bus addresses, else one per SSD (SSD i =
/// device i; then memory.devices() must equal `ssds`, std::invalid_argument otherwise).
slot_tables build_slot_tables(std::uint64_t slots, std::uint32_t line_bytes,
                              const dma_allocator& memory, const dma_region& slot_region,
                              const dma_region& list_region, std::uint32_t ssds);

}  // namespace bam
