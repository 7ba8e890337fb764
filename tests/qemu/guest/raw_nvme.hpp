// raw_nvme.hpp: test support for the QEMU guest test, a minimal polled NVMe host driver written
// straight against the wire format (bam/nvme/spec.hpp): controller reset and admin queue,
// identify, I/O queue pairs each used by one thread. Not a library API: the library's driver
// (controller_driver + queue_pair) replaces it where it is available.
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "bam/bar.hpp"
#include "bam/dma.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_pair.hpp"

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

/// Rings of an I/O queue pair created in the controller, described for bam::queue_pair.
struct io_rings {
  dma_buffer sq;
  dma_buffer cq;
  queue_pair_desc desc;
};

/// Throws unless the region's bytes [0, bytes) are contiguous on the bus.
void require_bus_contiguous(const dma_region& r, std::size_t bytes, const char* what);

/// A controller brought up through its registers: disabled, admin queue set, enabled.
class raw_controller {
 public:
  raw_controller(bar_ref bar, dma_allocator& rings, dma_allocator& data,
                 std::uint32_t admin_entries = 64);
  ~raw_controller();  // disables the controller

  /// Executes one admin command synchronously; returns its completion.
  nvme::completion admin(nvme::command cmd);
  /// Admin command that must succeed (throws with the status otherwise).
  nvme::completion admin_ok(const nvme::command& cmd, const char* what);

  const nvme::identify_controller& id_ctrl() const {
    return *ctrl_.as<nvme::identify_controller>();
  }
  const nvme::identify_namespace& id_ns() const { return *ns_.as<nvme::identify_namespace>(); }
  nvme::cap_register cap() const { return cap_; }
  std::uint32_t max_queue_entries() const { return cap_.max_queue_entries(); }
  /// I/O queue pairs the controller granted (Set Features / Number of Queues).
  std::uint32_t io_queues() const { return io_queues_; }
  std::string model() const;
  std::string serial() const;

  /// Creates I/O CQ+SQ `qid` with `entries` entries (rings from the ring allocator).
  raw_queue create_io_queue(std::uint16_t qid, std::uint32_t entries);
  void delete_io_queue(const raw_queue& q) { delete_io_queue(q.qid()); }
  /// Creates I/O CQ+SQ `qid` in zero-filled rings, for bamkit's queue_pair to drive.
  io_rings create_io_rings(std::uint16_t qid, std::uint32_t entries);
  void delete_io_queue(std::uint16_t qid);

 private:
  void set_enable(bool on);
  void create_in_controller(std::uint16_t qid, std::uint32_t entries, std::uint64_t sq_bus,
                            std::uint64_t cq_bus);

  bar_ref bar_;
  dma_allocator* rings_;
  nvme::cap_register cap_;
  std::optional<raw_queue> admin_;
  dma_buffer ctrl_;
  dma_buffer ns_;
  std::uint32_t io_queues_ = 0;
  std::uint16_t next_cid_ = 0;
  std::mutex admin_mutex_;  // admin commands come from several threads
};

}  // namespace bam::guest
