// Test helpers of the queue protocol's host tests: a controller the test thread drives by hand
// (manual_controller: fetch what the doorbell exposes, post any completion), a bound on how long
// a call may block (within), tagged commands and the count of command IDs in use.
#pragma once
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>
#include <utility>
#include <vector>

#include "bam/detail/atomic.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_pair.hpp"

namespace bam::test {

/// Command IDs of `p` in use now.
inline std::uint32_t cids_in_use(const bam::queue_pointers& p) {
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < p.cid_count / 32; ++i)
    n += static_cast<std::uint32_t>(
        std::popcount(bam::device_atomic_ref<std::uint32_t>(p.cid_bits[i]).load(bam::relaxed)));
  return n;
}

/// Runs `f` on a thread; if it has not returned after `limit`, the test fails and the process
/// exits (a hung wait cannot be joined).
template <class F>
void within(std::chrono::milliseconds limit, F&& f) {
  std::packaged_task<void()> task(std::forward<F>(f));
  auto done = task.get_future();
  std::thread t(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: still blocked after %lld ms (hang)\n",
                 static_cast<long long>(limit.count()));
    std::_Exit(1);
  }
  t.join();
  done.get();
}

/// A controller driven by the test thread itself: fetch() takes what the doorbell exposes,
/// post() writes one completion with any command ID, SQ head and status.
class manual_controller {
 public:
  explicit manual_controller(std::uint32_t entries) : sq_(entries), cq_(entries) {
    desc_ = {sq_.data(), entries, cq_.data(), entries, &doorbells_[0], &doorbells_[32], 1};
  }
  const bam::queue_pair_desc& desc() const { return desc_; }

  /// The commands the doorbell exposes since the last fetch, in SQ order.
  std::vector<nvme::command> fetch() {
    std::vector<nvme::command> out;
    const std::uint32_t tail =
        bam::system_atomic_ref<std::uint32_t>(*desc_.sq_doorbell).load(bam::acquire);
    while (sq_head_ != tail) {
      out.push_back(sq_[sq_head_]);
      sq_head_ = (sq_head_ + 1) % desc_.sq_entries;
    }
    return out;
  }
  void post(std::uint16_t cid, std::uint32_t dw0, nvme::status st = nvme::sc::success) {
    post_with_sqhd(cid, dw0, static_cast<std::uint16_t>(sq_head_), st);
  }
  void post_with_sqhd(std::uint16_t cid, std::uint32_t dw0, std::uint16_t sqhd,
                      nvme::status st = nvme::sc::success) {
    nvme::completion& e = cq_[cq_tail_];
    e.dw0 = dw0;
    e.sqhd = sqhd;
    e.sqid = 1;
    bam::system_atomic_ref<std::uint32_t>(reinterpret_cast<std::uint32_t*>(&e)[3])
        .store(nvme::completion::make_dw3(cid, phase_, st), bam::release);
    if (++cq_tail_ == desc_.cq_entries) {
      cq_tail_ = 0;
      phase_ = !phase_;
    }
  }
  std::uint32_t cq_doorbell() const {
    return bam::system_atomic_ref<std::uint32_t>(*desc_.cq_doorbell).load(bam::acquire);
  }

 private:
  std::vector<nvme::command> sq_;
  std::vector<nvme::completion> cq_;
  alignas(128) std::uint32_t doorbells_[64] = {};
  bam::queue_pair_desc desc_{};
  std::uint32_t sq_head_ = 0, cq_tail_ = 0;
  bool phase_ = true;
};

/// A read-opcode command carrying `tag` in CDW10.
inline nvme::command tagged(std::uint32_t tag) {
  nvme::command c{};
  c.opcode = 0x02;
  c.cdw10 = tag;
  return c;
}

}  // namespace bam::test
