// bam_queue_io.hpp: test support for the QEMU guest test: verified block I/O through bamkit's
// BaM queue pair (bam/queue/queue_pair.hpp) on a real controller (QEMU's), many threads sharing
// one queue pair, each thread with one command in flight (submit_and_wait), doorbells in BAR0.
#pragma once
#include <cstdint>
#include <vector>

#include "block_io.hpp"
#include "raw_nvme.hpp"

namespace bam::guest {

/// Creates I/O queue pair `qid` of `entries` entries, runs `threads` threads that each write
/// (stamping) or read (verifying) their share of `extents` through one queue_pair, deletes the
/// queue. `data` provides each thread's buffer.
io_result bam_queue_extents(raw_controller& ctrl, dma_allocator& data, std::uint16_t qid,
                            std::uint32_t entries, unsigned threads,
                            const std::vector<extent>& extents, bool write,
                            std::uint32_t block_size, std::uint64_t gen, std::uint64_t tag);

}  // namespace bam::guest
