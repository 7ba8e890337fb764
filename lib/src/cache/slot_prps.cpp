// Prepared PRPs of cache slots (bam/cache/slot_prps.hpp).
#include "bam/cache/slot_prps.hpp"

#include <stdexcept>
#include <string>

namespace bam {

void check_line_bytes(std::uint32_t line_bytes, std::uint32_t lba_bytes) {
  const bool pow2 = line_bytes != 0 && (line_bytes & (line_bytes - 1)) == 0;
  if (!pow2 || line_bytes < min_line_bytes || line_bytes > max_line_bytes)
    throw std::invalid_argument("cache line_bytes " + std::to_string(line_bytes) +
                                ": must be a power of two from 512 to 65536");
  if (lba_bytes == 0 || line_bytes % lba_bytes != 0)
    throw std::invalid_argument("cache line_bytes " + std::to_string(line_bytes) +
                                " is not a multiple of the LBA size " + std::to_string(lba_bytes));
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

}  // namespace bam
