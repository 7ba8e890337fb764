// Internal: state shared by controller_driver and the io_queue_pairs it created (admin queue,
// identity, queue ID allocation). Not installed.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "bam/bar.hpp"
#include "bam/dma.hpp"
#include "bam/driver/controller_info.hpp"
#include "bam/queue/queue_pair.hpp"

namespace bam::detail {

struct driver_core {
  bar_ref bar;
  dma_allocator* alloc = nullptr;
  driver_options opts;
  controller_info info;
  dma_buffer admin_sq, admin_cq;
  std::unique_ptr<queue_pair> admin;
  std::atomic<bool> live{false};       ///< enabled and not shut down: admin commands may be sent
  std::mutex mutex;                    ///< guards qid_used and shutdown
  std::vector<bool> qid_used;          ///< by qid; [0] is the admin queue
  std::uint64_t admin_timeout_ns = 0;  ///< opts.admin_timeout_ms, or CAP.TO

  /// Every admin command goes through here: bounded by admin_timeout_ns (see controller_driver).

  nvme::completion admin_submit(const nvme::command& cmd);
  /// Throws std::runtime_error naming `what` and the status (a timeout: how long it waited).
  nvme::completion admin_checked(const nvme::command& cmd, const char* what);
  /// The message of a failed admin command.
  std::string failure(const char* what, nvme::status st) const;
  /// Create I/O CQ then SQ `qid` over the rings at these bus addresses (the CQ is deleted again
  /// when the SQ fails); throws std::runtime_error naming the failed command.
  void create_queues(std::uint16_t qid, std::uint32_t entries, std::uint64_t sq_bus,
                     std::uint64_t cq_bus);
  /// Delete I/O SQ then CQ `qid` (both are sent); throws naming the first that failed.
  void delete_queues(std::uint16_t qid);
  std::uint16_t allocate_qid();
  void release_qid(std::uint16_t qid);
};

}  // namespace bam::detail
