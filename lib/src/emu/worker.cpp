// Host emulated NVMe controller: worker threads serving I/O queues with the shared processor
// (bam/emu/nvm_processor.hpp) over the host DMA window and media, the fate of each command
// under fault injection (bam/emu/fault_injection.hpp, the GPU engine's plan and key), and when
// it completes under the drive's timing model (bam/emu/timing_model.hpp, the GPU engine's
// booking).
#include <algorithm>
#include <thread>

#include "bam/detail/clock.hpp"
#include "controller_impl.hpp"

namespace bam::emu {

namespace {
/// Commands taken from one SQ before moving to the next (fairness between queues).
constexpr int burst = 32;
/// A worker whose next held completion is due within this many ns yields instead of sleeping.
constexpr std::uint64_t near_due_ns = 200'000;

/// Bytes a read or write moves (0 for other commands: they book no pipe time).
std::uint32_t data_bytes(const nvme::command& cmd, std::uint32_t lba_log2) {
  const auto op = static_cast<nvme::nvm_opcode>(cmd.opcode);
  if (op != nvme::nvm_opcode::read && op != nvme::nvm_opcode::write) return 0;
  return static_cast<std::uint32_t>(cmd.nlb() << lba_log2);
}
}  // namespace

void emulated_controller::impl::complete_timed(io_sq& q, const nvme::command& cmd) {
  const std::uint32_t bytes = data_bytes(cmd, lba_log2);
  if (!timing.timed() || bytes == 0) {
    post_now(q, cmd, process_nvm(cmd, nvm, media, dma));
    return;
  }
  const std::uint64_t now_ps = now_ns() * 1000;
  std::uint64_t end_ps = now_ps;
  if (timing.throttled) {
    const bool write = static_cast<nvme::nvm_opcode>(cmd.opcode) == nvme::nvm_opcode::write;
    const std::uint64_t cost = timing.cost_ps(write, bytes);
    end_ps = reserve(clock, now_ps, cost) + cost;
  }
  const nvme::status st = process_nvm(cmd, nvm, media, dma);
  q.held.emplace(due_ns(timing, end_ps), held_command{cmd, false, st});
}

bool emulated_controller::impl::post_now(io_sq& q, const nvme::command& cmd, nvme::status st) {
  cq_state& cq = q.cq->st;
  if (!cq.has_space()) return false;
  cq.post(0, static_cast<std::uint16_t>(q.st.head), q.st.qid, cmd.cid, st);
  count_completion(st);
  return true;
}

bool emulated_controller::impl::serve_sq(io_sq& q) {
  bool did = false;
  nvme::command cmd;
  // Fetch only when a completion can be posted: a full CQ holds commands in the SQ.
  for (int n = 0; n < burst && q.cq->st.has_space() && q.st.fetch(cmd); ++n) {
    io_commands[cmd.opcode].fetch_add(1, std::memory_order_relaxed);
    did = true;
    switch (faults.decide(fault_key(q.fault_queue, q.fetched++))) {
      case fault_action::none:
        complete_timed(q, cmd);
        break;
      case fault_action::error:  // the drive fails it: nothing is moved
        injected_errors.fetch_add(1, std::memory_order_relaxed);
        post_now(q, cmd, faults.error_status);
        break;
      case fault_action::delay:  // run and completed when due; later commands go ahead
        injected_delays.fetch_add(1, std::memory_order_relaxed);
        q.held.emplace(now_ns() + faults.delay_ns, held_command{cmd, true});
        break;
      case fault_action::drop:  // held until an Abort or the SQ's deletion
        injected_drops.fetch_add(1, std::memory_order_relaxed);
        q.held.emplace(never_due, held_command{cmd, false});
        break;
    }
  }
  return did;
}

bool emulated_controller::impl::post_due(io_sq& q, std::uint64_t now) {
  bool did = false;
  while (!q.held.empty() && q.held.begin()->first <= now && q.cq->st.has_space()) {
    const held_command h = q.held.begin()->second;
    q.held.erase(q.held.begin());
    post_now(q, h.cmd, h.execute ? process_nvm(h.cmd, nvm, media, dma) : h.status);
    did = true;
  }
  return did;
}

void emulated_controller::impl::run_worker(worker_state& w) {
  idle_backoff backoff;
  while (!stop_requested.load(std::memory_order_acquire)) {
    bool did = false;
    std::uint64_t next_due = never_due;
    std::uint64_t now = 0;
    {
      std::lock_guard lock(w.mutex);
      for (io_sq* sq : w.sqs) {
        if (!sq->held.empty() && sq->held.begin()->first != never_due) {
          if (now == 0) now = now_ns();
          did |= post_due(*sq, now);
        }
        did |= serve_sq(*sq);
        if (!sq->held.empty()) next_due = std::min(next_due, sq->held.begin()->first);
        drain_counters(sq->st);
        drain_counters(sq->cq->st);
      }
    }
    if (did) {
      backoff.reset();
    } else if (next_due != never_due && next_due < (now == 0 ? now_ns() : now) + near_due_ns) {
      std::this_thread::yield();  // a completion is due soon: no sleep past it
    } else {
      backoff.wait();
    }
  }
}

}  // namespace bam::emu
