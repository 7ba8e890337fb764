// bam/driver/controller_driver.hpp: API. The host controller driver: brings an NVMe controller
// up through its registers (reset, admin queue, CC/CSTS handshake), identifies it, and creates
// and deletes I/O queue pairs; aborts commands and deletes and recreates a queue pair (the
// recovery of a queue whose command timed out). Written against bar_ref + dma_allocator only, so
// the same code drives an emulated controller and a real one mapped through the kernel module.
#pragma once
#include <cstdint>
#include <memory>

#include "bam/bar.hpp"
#include "bam/dma.hpp"
#include "bam/driver/controller_info.hpp"
#include "bam/driver/io_queue_pair.hpp"
#include "bam/nvme/spec.hpp"

namespace bam {

namespace detail {
struct driver_core;
}

/// Owns the controller's enabled state and its admin queue. Thread-safe: admin commands and
/// queue creation may come from several threads at once. I/O queue pairs keep the driver's
/// state alive; once the driver shut the controller down they free their memory only.
class controller_driver {
 public:
  /// Resets the controller (CC.EN=0, waits for CSTS.RDY=0), sets up the admin queue, enables it
  /// (waits for CSTS.RDY=1 within CAP.TO), identifies controller and namespace 1 and asks for
  /// I/O queues. Throws std::runtime_error with a clear message on timeout, CSTS.CFS or an admin
  /// command failure. Every admin command's wait is bounded by opts.admin_timeout_ms (0: CAP.TO).
  controller_driver(bar_ref bar, dma_allocator& alloc, driver_options opts = {});
  ~controller_driver();  ///< shutdown(), errors swallowed
  controller_driver(controller_driver&&) noexcept;
  controller_driver& operator=(controller_driver&&) noexcept;
  controller_driver(const controller_driver&) = delete;
  controller_driver& operator=(const controller_driver&) = delete;

  const controller_info& info() const;
  const driver_options& options() const;
  /// The bound of every admin command's wait (driver_options::admin_timeout_ms or CAP.TO), ns.
  std::uint64_t admin_timeout_ns() const;

  /// Creates I/O CQ then SQ with `entries` each (any size 2..MQES; the controller judges, so a
  /// size it refuses throws with its status name, e.g. "Invalid Queue Size"), on the lowest
  /// free queue ID.
  io_queue_pair create_io_queue_pair(std::uint32_t entries);
  /// Same, with the SQ and CQ rings allocated from `rings` instead of the driver's allocator
  /// (e.g. GPU memory mapped for this controller; the admin queue stays where it is). `rings`
  /// must outlive the pair. Its pages must be at least 4 KiB and each ring contiguous in bus
  /// addresses (std::runtime_error otherwise). The pair's host queue_pair points at these rings:
  /// use its ref() only when the host can dereference them.
  io_queue_pair create_io_queue_pair(std::uint32_t entries, dma_allocator& rings);

  /// Abort (admin opcode 0x08) of command `cid` on I/O submission queue `sqid`: true when the
  /// controller aborted it (its completion, status Command Abort Requested, is posted on its CQ
  /// by the time this returns on the host emulated controller; a real controller may post it
  /// later), false when it did not (Abort DW0 bit 0 set: not found, already completed, or
  /// running) or refused the Abort (e.g. Abort Command Limit Exceeded). Thread-safe, like every
  /// admin command of the driver. Throws std::runtime_error after shutdown, and when the Abort
  /// itself got no completion within admin_timeout_ns() (or the admin queue failed).
  bool abort(std::uint16_t sqid, std::uint16_t cid);

  /// Submits an admin command and waits for its completion (any status), at most
  /// admin_timeout_ns(): then the completion has status sc::host_timeout (the admin queue's
  /// command ID stays abandoned until a late completion passes), or sc::host_queue_failed when
  /// the admin queue failed.
  nvme::completion admin(const nvme::command& cmd);
  /// Same, throwing std::runtime_error naming `what` and the status unless it succeeded (a
  /// timeout: "... got no completion within N ms").
  nvme::completion admin_checked(const nvme::command& cmd, const char* what);

  /// Normal shutdown: CC.SHN=01b, waits for CSTS.SHST=10b. Idempotent.
  void shutdown();
  bool is_shut_down() const;

 private:
  std::shared_ptr<detail::driver_core> core_;
};

}  // namespace bam
