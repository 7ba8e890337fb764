// block_io.hpp: test support for the QEMU guest test: stamped blocks (each block carries its
// LBA, a generation and a controller tag, and a pattern derived from them) and a loop that runs
// a list of reads/writes through one queue at a given depth, verifying every block read.
#pragma once
#include <cstdint>
#include <vector>

#include "bam/dma.hpp"
#include "raw_nvme.hpp"

namespace bam::guest {

struct extent {
  std::uint64_t lba;
  std::uint32_t blocks;  ///< 1..max_extent_blocks
};

inline constexpr std::uint32_t max_extent_bytes = 8192;  ///< two pages: PRP1 + PRP2

/// Fills one block with its stamp.
void stamp_block(void* block, std::uint32_t block_size, std::uint64_t lba, std::uint64_t gen,
                 std::uint64_t tag);
/// True when the block holds exactly the stamp of (lba, gen, tag).
bool check_block(const void* block, std::uint32_t block_size, std::uint64_t lba, std::uint64_t gen,
                 std::uint64_t tag);

/// Splits [first, first + count) into extents of 1..max_blocks blocks, in shuffled order.
std::vector<extent> random_extents(std::uint64_t first, std::uint64_t count,
                                   std::uint32_t max_blocks, std::uint64_t seed);

struct io_result {
  std::uint64_t commands = 0;
  std::uint64_t blocks = 0;
  std::uint64_t bad_blocks = 0;  ///< read back with the wrong content
  std::uint64_t bad_status = 0;  ///< completions with an error status
  std::uint32_t max_outstanding = 0;
};

/// Writes (stamping) or reads (verifying) every extent through `q`, keeping up to
/// min(depth, q.entries()) - 1 commands outstanding. `buffers` holds (entries-1) slots of
/// max_extent_bytes each.
io_result run_extents(raw_queue& q, const dma_region& buffers, const std::vector<extent>& extents,
                      bool write, std::uint32_t block_size, std::uint64_t gen, std::uint64_t tag);

}  // namespace bam::guest
