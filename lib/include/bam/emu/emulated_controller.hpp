// bam/emu/emulated_controller.hpp: API. A software NVMe controller on the host that speaks the
// real protocol over a register block in host memory: a control thread (CC/CSTS handshake,
// shutdown, admin queue) and worker threads serving the I/O queues. Optional fault injection
// (controller_options::faults); Abort and Delete I/O SQ complete the commands it holds.
#pragma once
#include <array>
#include <cstdint>
#include <memory>

#include "bam/bar.hpp"
#include "bam/dma.hpp"
#include "bam/emu/options.hpp"

namespace bam::emu {

class dma_window;

/// Counters since construction (a snapshot).
struct controller_stats {
  std::array<std::uint64_t, 256> admin_commands{};  ///< by opcode
  std::array<std::uint64_t, 256> io_commands{};     ///< by opcode
  std::uint64_t completions = 0;                    ///< admin and I/O
  std::uint64_t errors = 0;                         ///< completions with a non-success status
  std::uint64_t doorbell_reads = 0;                 ///< SQ tail + CQ head doorbell loads
  std::uint64_t invalid_doorbells = 0;              ///< doorbell values >= queue size (ignored)
  // Fault injection (controller_options::faults) and what ended the commands it held.
  std::uint64_t injected_errors = 0;  ///< I/O commands completed with the injected error status
  std::uint64_t injected_delays = 0;  ///< I/O commands held back and completed late
  std::uint64_t injected_drops = 0;   ///< I/O commands held and never completed on their own
  std::uint64_t aborted = 0;          ///< held commands completed by an Abort (Abort Requested)
  /// Commands completed by the deletion of their SQ (Command Aborted due to SQ Deletion): held
  /// ones and ones still in the SQ.
  std::uint64_t aborted_by_sq_deletion = 0;
  /// Completions a full CQ had no room for at an Abort or SQ deletion: discarded.
  std::uint64_t discarded_completions = 0;
};

/// Host owner of an emulated controller. Move-only; the threads run on a heap-allocated state,
/// so bar() and allocator() stay valid across moves.
class emulated_controller {
 public:
  explicit emulated_controller(controller_options opts = {});
  ~emulated_controller();  ///< stops (joins the threads) and flushes the media
  emulated_controller(emulated_controller&&) noexcept;
  emulated_controller& operator=(emulated_controller&&) noexcept;
  emulated_controller(const emulated_controller&) = delete;
  emulated_controller& operator=(const emulated_controller&) = delete;

  /// The register block (CAP, VS, CC, CSTS, AQA, ASQ, ACQ, doorbells).
  bar_ref bar() const;
  /// The only memory this controller may DMA to or from (host memory, identity bus addresses).
  dma_allocator& allocator();
  /// The window behind allocator(), e.g. to register other memory the controller may reach.
  dma_window& window();
  const controller_options& options() const;

  /// Starts the control and worker threads (idempotent).
  void start();
  /// Stops and joins every thread; the register state is kept, the media flushed.
  void stop();
  bool running() const;

  controller_stats stats() const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace bam::emu
