// bam_queue_io.hpp: test support for the QEMU guest test: verified block I/O through bamkit's
// BaM queue pair (bam/queue/queue_pair.hpp) on a real controller (QEMU's), many threads sharing
// one queue pair, each thread with one command in flight (submit_and_wait), doorbells in BAR0.
#pragma once
#include <cstdint>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/kmod/kmod_controller.hpp"
#include "block_io.hpp"

namespace bam::guest {

/// Creates an I/O queue pair of `entries` entries with the controller driver, runs `threads`
/// threads that each write (stamping) or read (verifying) their share of `extents` through its
/// queue_pair, deletes it. `data` provides each thread's buffer.
io_result bam_queue_extents(controller_driver& driver, dma_allocator& data, std::uint32_t entries,
                            unsigned threads, const std::vector<extent>& extents, bool write,
                            std::uint32_t block_size, std::uint64_t gen, std::uint64_t tag);

/// The same on an existing queue pair (e.g. one whose rings came from another allocator); the
/// pair must be idle and is left in place.
io_result bam_queue_run(io_queue_pair& qp, dma_allocator& data, unsigned threads,
                        const std::vector<extent>& extents, bool write, std::uint32_t block_size,
                        std::uint64_t gen, std::uint64_t tag);

/// Verified I/O on a running controller: 256 stamped blocks from `lba0` written and read back
/// through a BaM queue pair of 16 entries, 4 threads.
bool host_io_verified(kmod_controller& kc, std::uint64_t lba0, std::uint64_t gen);

/// Disables the controller as its owner's driver would (CC.EN = 0, then waits for CSTS.RDY = 0).
void disable_controller(const kmod_device& dev);

}  // namespace bam::guest
