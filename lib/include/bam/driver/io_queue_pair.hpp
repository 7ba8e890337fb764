// bam/driver/io_queue_pair.hpp: API. One I/O SQ/CQ pair created by controller_driver: owns its
// DMA rings and the bam::queue_pair bookkeeping over them; deletes SQ then CQ on destruction.
#pragma once
#include <cstdint>
#include <memory>

#include "bam/dma.hpp"
#include "bam/queue/queue_pair.hpp"

namespace bam {

namespace detail {
struct driver_core;
}

class io_queue_pair {
 public:
  io_queue_pair() = default;
  io_queue_pair(io_queue_pair&&) noexcept;
  io_queue_pair& operator=(io_queue_pair&&) noexcept;
  io_queue_pair(const io_queue_pair&) = delete;
  io_queue_pair& operator=(const io_queue_pair&) = delete;
  ~io_queue_pair();  ///< destroy(), errors swallowed

  /// The thread-safe submission handle (memory_doorbell: emulated controller; mmio_doorbell:
  /// real BAR).
  template <class Doorbell = memory_doorbell>
  queue_pair_ref<Doorbell> ref() const {
    return queue_->template ref<Doorbell>();
  }
  const queue_pair& queue() const { return *queue_; }
  std::uint16_t qid() const { return qid_; }
  std::uint32_t entries() const { return entries_; }
  bool valid() const { return queue_ != nullptr; }

  /// Deletes the SQ, then the CQ (throws std::runtime_error on an admin failure), and frees the
  /// rings. No command may be outstanding. Nothing is sent once the driver shut down.
  void destroy();

  // ---- queue recovery: the same queue ID, size and rings, deleted and created again --------

  /// Deletes the SQ, then the CQ, through the admin queue; keeps the rings, the queue ID and
  /// the host bookkeeping (queue()). The controller completes every command it still holds for
  /// the SQ before the SQ's deletion completes (status Command Aborted due to SQ Deletion,
  /// posted on the CQ, whose entries stay readable in the ring): once this returns, the
  /// controller moves no data and posts no completion for this queue pair. Threads may still
  /// wait on the queue meanwhile, but none may submit. Thread-safe with the driver's other admin
  /// commands. Throws std::runtime_error naming the failed command and its status, or after the
  /// driver shut down.
  void delete_queues();
  /// Zeroes both rings (pairs whose rings came from the driver's allocator; with a `rings`
  /// allocator the caller zeroes the CQ ring first) and creates the CQ, then the SQ, again with
  /// the same ID, size and memory, so the refs handed out stay valid. The owner resets the host
  /// bookkeeping before threads use the queue again. Requires delete_queues() first
  /// (std::logic_error otherwise); throws std::runtime_error like delete_queues().
  void create_queues();
  /// delete_queues(), then create_queues().
  void recreate();
  /// The whole recovery of a queue that cannot go on as it is (a command the controller does
  /// not give back, too many abandoned IDs, a failed queue): fails it (every waiter returns
  /// sc::host_queue_failed, every submitter no_cid), waits until no host thread uses it
  /// (queue_pair::quiesce, at most `quiesce_timeout_ns`), recreate()s it (the controller
  /// completes what it held into the old ring, then forgets it) and resets the bookkeeping
  /// (queue_pair::reset): the queue is usable again through the refs handed out. False when
  /// threads still used it after the timeout: nothing was sent and the queue stays failed.
  /// Throws std::runtime_error when an admin command fails (the queue stays failed;
  /// queues_live() says whether it still exists at the controller), std::logic_error for rings
  /// not from the driver's allocator (their users are GPU threads, which quiesce cannot count).
  bool recover(std::uint64_t quiesce_timeout_ns);
  /// recover() without waiting for the threads (queue_pair::try_quiesce): fails the queue; if
  /// no host thread uses it, recreates and resets it (true); otherwise sends nothing (false:
  /// the queue stays failed, call again later). Throws as recover().
  bool try_recover();
  /// The rings came from the driver's allocator (create_io_queue_pair(entries)): recover() can
  /// zero and recreate them. False for rings its owner allocated (and for an empty pair).
  bool driver_rings() const { return queue_ != nullptr && host_rings_; }
  /// False between delete_queues() and create_queues().
  bool queues_live() const { return live_; }

 private:
  friend class controller_driver;
  std::shared_ptr<detail::driver_core> core_;
  dma_buffer sq_, cq_;
  std::unique_ptr<queue_pair> queue_;
  std::uint16_t qid_ = 0;
  std::uint32_t entries_ = 0;
  bool live_ = false;        ///< the controller has the SQ and CQ
  bool host_rings_ = false;  ///< the rings came from the driver's allocator (host-addressable)
};

}  // namespace bam
