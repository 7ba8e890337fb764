// A host thread's block I/O buffer (bam/io/dma_chunk.hpp).
#include "bam/io/dma_chunk.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace bam {
namespace {
constexpr std::uint32_t page_log2 = 12;
constexpr std::uint64_t page_size = std::uint64_t{1} << page_log2;
}  // namespace

dma_chunk::dma_chunk(dma_allocator& alloc, std::uint64_t bytes) {
  if (bytes > max_bytes)
    throw std::invalid_argument(fmt::format("dma_chunk: {} B is above 2 MiB", bytes));
  data_ = dma_buffer(alloc, (bytes + page_size - 1) / page_size * page_size);
  list_ = dma_buffer(alloc, page_size);
}

nvme::prp_pair dma_chunk::prps(std::uint64_t bytes) const {
  if (bytes > capacity()) throw std::invalid_argument("dma_chunk: PRPs past the buffer");
  nvme::prp_pair out;
  const nvme::status st = nvme::build_prps(
      bytes, page_log2, [&](std::uint64_t off) { return data_.bus_address(off); },
      [&](std::uint32_t) {
        return nvme::prp_list_page{list_.as<std::uint64_t>(), list_.bus_address(0)};
      },
      out);
  if (!st.ok()) throw std::runtime_error("dma_chunk: PRP build failed");
  return out;
}

}  // namespace bam
