// bam/io/dma_chunk.hpp: API. A host thread's buffer for block I/O: DMA memory of up to 2 MiB (one
// PRP list page of 512 entries) plus its PRP list page, both from an allocator the controller
// reaches, and the PRPs of its first n bytes.
#pragma once
#include <cstdint>

#include "bam/dma.hpp"
#include "bam/nvme/prp.hpp"

namespace bam {

class dma_chunk {
 public:
  /// Largest chunk: what one PRP list page can name with 4 KiB pages.
  static constexpr std::uint64_t max_bytes = std::uint64_t{2} << 20;

  /// Throws std::invalid_argument above max_bytes.
  dma_chunk(dma_allocator& alloc, std::uint64_t bytes);
  std::uint8_t* data() const { return data_.as<std::uint8_t>(); }
  std::uint64_t capacity() const { return data_.size(); }
  /// PRP1/PRP2 of the first `bytes` bytes (at most capacity()).
  nvme::prp_pair prps(std::uint64_t bytes) const;

 private:
  dma_buffer data_;
  dma_buffer list_;
};

}  // namespace bam
