// Internal: the state of a host emulated controller, shared by its control thread (registers,
// admin queue: admin.cpp) and worker threads (I/O queues: worker.cpp). Not installed.
#pragma once
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "bam/bar.hpp"
#include "bam/emu/dma_window.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/emu/fault_injection.hpp"
#include "bam/emu/host_media.hpp"
#include "bam/emu/nvm_processor.hpp"
#include "bam/emu/queue_state.hpp"

namespace bam::emu {

/// An I/O completion queue; served by one worker, which owns every SQ attached to it.
struct io_cq {
  cq_state st;
  std::uint32_t worker = 0;
  std::uint32_t attached_sqs = 0;  ///< control thread only
};

/// A command fetched from an SQ and not completed yet: delayed or dropped by fault injection,
/// or aborted while its CQ was full.
struct held_command {
  nvme::command cmd;
  bool execute = false;  ///< when due: run it (a delayed command), else post `status`
  nvme::status status = nvme::sc::success;
};

/// Due time of a command that is never due (a dropped one).
inline constexpr std::uint64_t never_due = std::numeric_limits<std::uint64_t>::max();

struct io_sq {
  sq_state st;
  io_cq* cq = nullptr;
  std::uint64_t fetched = 0;      ///< commands fetched since creation: the fault key's position
  std::uint32_t fault_queue = 0;  ///< the fault key's queue (fault_queue_base + qid - 1)
  /// Held commands by due time (steady clock ns; never_due: dropped). Guarded like `st`: its
  /// worker, or the control thread under the worker's mutex (Abort, Delete I/O SQ).
  std::multimap<std::uint64_t, held_command> held;
};

struct worker_state {
  std::thread thread;
  std::mutex mutex;  ///< guards sqs (and the queues it points at) against the control thread
  std::vector<io_sq*> sqs;
};

/// Spin, then yield, then sleep: keeps idle pollers cheap on a shared machine.
class idle_backoff {
 public:
  void reset() { idle_ = 0; }
  void wait();

 private:
  unsigned idle_ = 0;
};

/// Admin command result.
struct admin_result {
  nvme::status status = nvme::sc::success;
  std::uint32_t dw0 = 0;
};

struct emulated_controller::impl {
  explicit impl(controller_options o);
  ~impl();

  // ---- fixed parts
  controller_options opts;
  std::uint32_t* regs = nullptr;  ///< the register block (page aligned, zeroed)
  bar_ref bar;
  dma_window window;
  window_allocator allocator{window};
  host_media media;
  host_dma dma{&window};
  std::uint32_t lba_log2 = 9;
  fault_plan faults;     ///< opts.faults as thresholds; read by workers
  service_table timing;  ///< opts.timing as per-command costs; read by workers
  drive_clock clock;     ///< the drive's pipe, shared by the workers (atomic reservations)

  // ---- control thread state
  bool en_seen = false;  ///< CC.EN as last seen
  bool enabled = false;  ///< ready: admin queue configured
  std::uint32_t csts = 0;
  sq_state admin_sq;
  cq_state admin_cq;
  nvm_config nvm;  ///< set at enable, before any I/O queue exists; read by workers
  std::uint32_t allocated_sqs = 0;
  std::uint32_t allocated_cqs = 0;
  bool volatile_write_cache = true;
  std::vector<std::unique_ptr<io_cq>> cqs;  ///< by qid
  std::vector<std::unique_ptr<io_sq>> sqs;  ///< by qid
  std::uint32_t next_worker = 0;

  // ---- threads
  std::vector<std::unique_ptr<worker_state>> workers;
  std::thread control;
  std::atomic<bool> stop_requested{false};
  bool running = false;

  // ---- statistics
  std::array<std::atomic<std::uint64_t>, 256> admin_commands{};
  std::array<std::atomic<std::uint64_t>, 256> io_commands{};
  std::atomic<std::uint64_t> completions{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> doorbell_reads{0};
  std::atomic<std::uint64_t> invalid_doorbells{0};
  std::atomic<std::uint64_t> injected_errors{0};
  std::atomic<std::uint64_t> injected_delays{0};
  std::atomic<std::uint64_t> injected_drops{0};
  std::atomic<std::uint64_t> aborted{0};
  std::atomic<std::uint64_t> aborted_by_sq_deletion{0};
  std::atomic<std::uint64_t> discarded_completions{0};

  void start();
  void stop();

  // control thread (emulated_controller.cpp)
  void run_control();
  bool poll_registers();
  void enable(nvme::cc_register cc);
  void disable();
  void set_csts(std::uint32_t v);
  void zero_doorbells(std::uint16_t qid);
  void count_completion(nvme::status st);
  template <class Q>
  void drain_counters(Q& q) {
    if (q.doorbell_reads != 0)
      doorbell_reads.fetch_add(q.doorbell_reads, std::memory_order_relaxed);
    if (q.invalid_doorbells != 0)
      invalid_doorbells.fetch_add(q.invalid_doorbells, std::memory_order_relaxed);
    q.doorbell_reads = 0;
    q.invalid_doorbells = 0;
  }

  // admin queue (admin.cpp)
  bool serve_admin();
  admin_result execute_admin(const nvme::command& cmd);
  admin_result identify(const nvme::command& cmd);
  admin_result features(const nvme::command& cmd, bool set);
  admin_result get_log_page(const nvme::command& cmd);
  admin_result create_cq(const nvme::command& cmd);
  admin_result create_sq(const nvme::command& cmd);
  admin_result delete_sq(const nvme::command& cmd);
  admin_result delete_cq(const nvme::command& cmd);
  admin_result abort(const nvme::command& cmd);
  /// Posts `st` for `cmd` on `q`'s CQ (the caller holds its worker's mutex); false when the CQ
  /// is full.
  bool post_now(io_sq& q, const nvme::command& cmd, nvme::status st);
  nvme::status to_host(const nvme::command& cmd, const void* data, std::uint64_t bytes);
  void drop_io_queues();

  // workers (worker.cpp)
  void run_worker(worker_state& w);
  /// Fetches up to `burst` commands of `q` and decides each one's fate.
  bool serve_sq(io_sq& q);
  /// Completes the held commands of `q` that are due at `now`, while its CQ has room.
  bool post_due(io_sq& q, std::uint64_t now);
  /// Executes `cmd` now and posts its completion at once, or, under a timing model, holds the
  /// completion until the model says it is due.
  void complete_timed(io_sq& q, const nvme::command& cmd);
};

}  // namespace bam::emu
