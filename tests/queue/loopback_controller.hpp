// A minimal controller for testing the queue protocol alone: one thread fetches submission
// entries as the doorbell exposes them and completes them in a shuffled order (real controllers
// complete out of order), with dw0 = f(cdw10) so a client can tell its own completion apart.
// Commands with cdw13 != 0 complete with that value as status code (SCT generic).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "bam/detail/atomic.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_pair.hpp"

namespace bam::test {

/// dw0 the loopback controller returns for a command.
inline std::uint32_t loopback_result(const nvme::command& c) {
  return c.cdw10 * 2654435761u + 1;
}

class loopback_controller {
 public:
  /// Rings and doorbells in its own memory (host threads as clients).
  loopback_controller(std::uint32_t sq_entries, std::uint32_t cq_entries,
                      std::uint32_t reorder_window, std::uint64_t seed)
      : sq_(sq_entries), cq_(cq_entries), window_(reorder_window), rng_(seed) {
    start(sq_.data(), sq_entries, cq_.data(), cq_entries, &doorbells_[0], &doorbells_[32]);
  }
  /// Rings and doorbells in memory the caller provides, zero-filled (e.g. mapped pinned memory,
  /// so that GPU threads are the clients).
  loopback_controller(nvme::command* sq, std::uint32_t sq_entries, nvme::completion* cq,
                      std::uint32_t cq_entries, std::uint32_t* sq_doorbell,
                      std::uint32_t* cq_doorbell, std::uint32_t reorder_window, std::uint64_t seed)
      : window_(reorder_window), rng_(seed) {
    start(sq, sq_entries, cq, cq_entries, sq_doorbell, cq_doorbell);
  }
  ~loopback_controller() {
    stop_.store(true);
    thread_.join();
  }
  const queue_pair_desc& desc() const { return desc_; }
  std::uint64_t completed() const { return completed_.load(); }
  std::uint32_t max_in_flight() const { return max_in_flight_.load(); }

 private:
  void start(nvme::command* sq, std::uint32_t sq_entries, nvme::completion* cq,
             std::uint32_t cq_entries, std::uint32_t* sq_doorbell, std::uint32_t* cq_doorbell) {
    desc_.sq = sq;
    desc_.sq_entries = sq_entries;
    desc_.cq = cq;
    desc_.cq_entries = cq_entries;
    desc_.sq_doorbell = sq_doorbell;
    desc_.cq_doorbell = cq_doorbell;
    desc_.qid = 1;
    thread_ = std::thread([this] { run(); });
  }

  void run() {
    std::vector<nvme::command> pending;
    std::uint32_t sq_head = 0, cq_tail = 0;
    bool phase = true;
    while (!stop_.load(std::memory_order_relaxed)) {
      const std::uint32_t tail = system_atomic_ref<std::uint32_t>(*desc_.sq_doorbell).load(acquire);
      bool fetched = false;
      while (sq_head != tail && pending.size() < window_) {
        pending.push_back(desc_.sq[sq_head]);
        sq_head = (sq_head + 1) % desc_.sq_entries;
        fetched = true;
      }
      if (pending.size() > max_in_flight_.load(std::memory_order_relaxed))
        max_in_flight_.store(static_cast<std::uint32_t>(pending.size()));
      // Complete part of the window in random order; all of it when nothing new arrived.
      std::shuffle(pending.begin(), pending.end(), rng_);
      std::size_t n = fetched ? pending.size() / 2 : pending.size();
      while (n > 0) {
        const std::uint32_t cq_head =
            system_atomic_ref<std::uint32_t>(*desc_.cq_doorbell).load(acquire);
        if ((cq_tail + 1) % desc_.cq_entries == cq_head) break;  // CQ full: wait for the host
        const nvme::command c = pending.back();
        pending.pop_back();
        --n;
        nvme::completion& e = desc_.cq[cq_tail];
        e.dw0 = loopback_result(c);
        e.dw1 = c.cdw11;
        e.sqhd = static_cast<std::uint16_t>(sq_head);
        e.sqid = desc_.qid;
        const nvme::status st{0, static_cast<std::uint8_t>(c.cdw13)};
        system_atomic_ref<std::uint32_t>(reinterpret_cast<std::uint32_t*>(&e)[3])
            .store(nvme::completion::make_dw3(c.cid, phase, st), release);
        if (++cq_tail == desc_.cq_entries) {
          cq_tail = 0;
          phase = !phase;
        }
        completed_.fetch_add(1, std::memory_order_relaxed);
      }
      if (!fetched) std::this_thread::yield();
    }
  }

  std::vector<nvme::command> sq_;
  std::vector<nvme::completion> cq_;
  alignas(128) std::uint32_t doorbells_[64] = {};
  queue_pair_desc desc_;
  std::size_t window_;
  std::mt19937_64 rng_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> completed_{0};
  std::atomic<std::uint32_t> max_in_flight_{0};
  std::thread thread_;
};

}  // namespace bam::test
