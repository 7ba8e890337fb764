// Prepared PRPs of cache slots (bam/cache/slot_prps.hpp).
#include "bam/cache/slot_prps.hpp"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>
#include <string>

#include "bam/detail/expects.hpp"

namespace bam {

void check_line_bytes(std::uint32_t line_bytes, std::uint32_t lba_bytes) {
  // The schema (cache.line_size) and validate() (a multiple of storage.lba_size) decided these.
  BAM_EXPECTS(std::has_single_bit(line_bytes) && line_bytes >= min_line_bytes &&
                  line_bytes <= max_line_bytes,
              fmt::format("cache: line_bytes {}", line_bytes));
  BAM_EXPECTS(lba_bytes != 0 && line_bytes % lba_bytes == 0,
              fmt::format("cache: line_bytes {} with LBAs of {} B", line_bytes, lba_bytes));
}

std::uint32_t slot_list_pages(std::uint32_t line_bytes) {
  return nvme::prp_list_pages_needed(0, line_bytes, slot_prp_page_log2);
}

std::vector<nvme::prp_pair> build_slot_prps(
    std::uint64_t slots, std::uint32_t line_bytes,
    const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& slot_bus,
    std::byte* list_host, std::uint64_t list_bus) {
  return build_slot_prps(slots, line_bytes, slot_bus, list_host,
                         [list_bus](std::uint64_t off) { return list_bus + off; });
}

std::vector<nvme::prp_pair> build_slot_prps(
    std::uint64_t slots, std::uint32_t line_bytes,
    const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& slot_bus,
    std::byte* list_host, const std::function<std::uint64_t(std::uint64_t)>& list_bus) {
  const std::uint32_t per_slot = slot_list_pages(line_bytes);
  constexpr std::uint64_t page = std::uint64_t{1} << slot_prp_page_log2;
  std::vector<nvme::prp_pair> out(slots);
  for (std::uint64_t s = 0; s < slots; ++s) {
    const nvme::status st = nvme::build_prps(
        line_bytes, slot_prp_page_log2, [&](std::uint64_t off) { return slot_bus(s, off); },
        [&](std::uint32_t i) {
          const std::uint64_t at = (s * per_slot + i) * page;
          return nvme::prp_list_page{reinterpret_cast<std::uint64_t*>(list_host + at),
                                     list_bus(at)};
        },
        out[s]);
    if (!st.ok()) throw std::invalid_argument("cache slot memory is not aligned for PRPs");
  }
  return out;
}

namespace {

/// Whether every one of `devices` sees each page of `r` at device 0's bus address.
bool same_bus_addresses(const dma_allocator& a, const dma_region& r, std::uint32_t devices) {
  for (std::size_t off = 0; off < r.size; off += 4096) {
    for (std::uint32_t d = 1; d < devices; ++d) {
      if (a.device_bus_address(r, off, d) != a.device_bus_address(r, off, 0)) return false;
    }
  }
  return true;
}

}  // namespace

std::size_t slot_list_bytes(std::uint64_t slots, std::uint32_t line_bytes) {
  return std::size_t{slots} * slot_list_pages(line_bytes) * 4096;
}

slot_tables build_slot_tables(std::uint64_t slots, std::uint32_t line_bytes,
                              const dma_allocator& memory, const dma_region& slot_region,
                              const dma_region& list_region, std::uint32_t ssds) {
  std::uint32_t views = memory.devices();
  if (views != 1 && views != ssds)
    throw std::invalid_argument("cache: slot memory mapped for a different number of SSDs");
  const std::size_t list_bytes = slot_list_bytes(slots, line_bytes);
  if (views > 1 && same_bus_addresses(memory, slot_region, views) &&
      same_bus_addresses(memory, list_region, views)) {
    views = 1;  // no IOMMU (or a shared domain): one table serves every SSD
  }
  slot_tables t;
  t.tables = views;
  t.lists.resize(list_bytes * views);
  for (std::uint32_t d = 0; d < views; ++d) {
    const std::vector<nvme::prp_pair> table = build_slot_prps(
        slots, line_bytes,
        [&](std::uint64_t s, std::uint64_t off) {
          return memory.device_bus_address(slot_region, s * line_bytes + off, d);
        },
        list_bytes != 0 ? t.lists.data() + d * list_bytes : nullptr,
        [&](std::uint64_t off) {  // each list page is used on its own: no contiguity needed
          return memory.device_bus_address(list_region, d * list_bytes + off, d);
        });
    t.prps.insert(t.prps.end(), table.begin(), table.end());
  }
  return t;
}

}  // namespace bam
