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

 private:
  friend class controller_driver;
  std::shared_ptr<detail::driver_core> core_;
  dma_buffer sq_, cq_;
  std::unique_ptr<queue_pair> queue_;
  std::uint16_t qid_ = 0;
  std::uint32_t entries_ = 0;
};

}  // namespace bam
