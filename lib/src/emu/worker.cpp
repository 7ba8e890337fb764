// Host emulated NVMe controller: worker threads serving I/O queues with the shared processor
// (bam/emu/nvm_processor.hpp) over the host DMA window and media.
#include "controller_impl.hpp"

namespace bam::emu {

namespace {
/// Commands taken from one SQ before moving to the next (fairness between queues).
constexpr int burst = 32;
}  // namespace

void emulated_controller::impl::run_worker(worker_state& w) {
  idle_backoff backoff;
  while (!stop_requested.load(std::memory_order_acquire)) {
    bool did = false;
    {
      std::lock_guard lock(w.mutex);
      for (io_sq* sq : w.sqs) {
        cq_state& cq = sq->cq->st;
        nvme::command cmd;
        // Fetch only when the completion can be posted: a full CQ holds commands in the SQ.
        for (int n = 0; n < burst && cq.has_space() && sq->st.fetch(cmd); ++n) {
          io_commands[cmd.opcode].fetch_add(1, std::memory_order_relaxed);
          const nvme::status st = process_nvm(cmd, nvm, media, dma);
          cq.post(0, static_cast<std::uint16_t>(sq->st.head), sq->st.qid, cmd.cid, st);
          count_completion(st);
          did = true;
        }
        drain_counters(sq->st);
        drain_counters(cq);
      }
    }
    if (did)
      backoff.reset();
    else
      backoff.wait();
  }
}

}  // namespace bam::emu
