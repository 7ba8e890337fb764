// raw_nvme.hpp: test support for the QEMU guest test: a plain single-threaded NVMe I/O queue
// on the wire format, kept exactly full at any depth for the depth sweep (the BaM queue pair
// serves one command per thread); created in the controller through the driver's admin queue.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>

#include "bam/bar.hpp"
#include "bam/dma.hpp"
#include "bam/driver/controller_driver.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::guest {

/// One submission/completion queue pair of `entries` entries, driven by one thread.
class raw_queue {
 public:
  raw_queue(dma_allocator& rings, bar_ref bar, std::uint32_t dstrd, std::uint16_t qid,
            std::uint32_t entries);
  /// Copies `cmd` into the next SQ slot and rings the tail doorbell. The caller keeps at most
  /// entries-1 commands outstanding.
  void submit(const nvme::command& cmd);
  /// The next completion if one is posted (consumes it and rings the CQ head doorbell).
  std::optional<nvme::completion> poll();
  /// Waits for the next completion; throws after `timeout`.
  nvme::completion wait(std::chrono::milliseconds timeout = std::chrono::seconds(10));

  std::uint16_t qid() const { return qid_; }
  std::uint32_t entries() const { return entries_; }
  std::uint64_t sq_bus() const { return sq_.bus_address(0); }
  std::uint64_t cq_bus() const { return cq_.bus_address(0); }

 private:
  dma_buffer sq_;
  dma_buffer cq_;
  std::uint32_t* sq_doorbell_;
  std::uint32_t* cq_doorbell_;
  std::uint16_t qid_;
  std::uint32_t entries_;
  std::uint32_t sq_tail_ = 0;
  std::uint32_t cq_head_ = 0;
  bool phase_ = true;
};

/// Throws unless the region's bytes [0, bytes) are contiguous on the bus.
void require_bus_contiguous(const dma_region& r, std::size_t bytes, const char* what);

/// Creates I/O CQ+SQ `qid` (rings from `rings`) through `driver`'s admin queue. Use a qid the
/// driver does not hand out (it takes the lowest free ones).
raw_queue create_raw_queue(controller_driver& driver, dma_allocator& rings, bar_ref bar,
                           std::uint16_t qid, std::uint32_t entries);
void delete_raw_queue(controller_driver& driver, const raw_queue& q);

}  // namespace bam::guest
