// Host emulated NVMe controller: worker threads serving I/O queues with the shared processor
// (bam/emu/nvm_processor.hpp) over the host DMA window and media, and the fate of each command
// under fault injection (bam/emu/fault_injection.hpp, the GPU engine's plan and key).
#include "bam/detail/clock.hpp"
#include "controller_impl.hpp"

namespace bam::emu {

namespace {
/// Commands taken from one SQ before moving to the next (fairness between queues).
constexpr int burst = 32;
}  // namespace

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
        post_now(q, cmd, process_nvm(cmd, nvm, media, dma));
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
    {
      std::lock_guard lock(w.mutex);
      std::uint64_t now = 0;
      for (io_sq* sq : w.sqs) {
        if (!sq->held.empty() && sq->held.begin()->first != never_due) {
          if (now == 0) now = now_ns();
          did |= post_due(*sq, now);
        }
        did |= serve_sq(*sq);
        drain_counters(sq->st);
        drain_counters(sq->cq->st);
      }
    }
    if (did)
      backoff.reset();
    else
      backoff.wait();
  }
}

}  // namespace bam::emu
