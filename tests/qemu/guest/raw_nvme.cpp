// raw_nvme.cpp: the guest test's minimal polled NVMe host driver (see raw_nvme.hpp).
#include "raw_nvme.hpp"

#include "bam/nvme/commands.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace bam::guest {

void require_bus_contiguous(const dma_region& r, std::size_t bytes, const char* what) {
  const std::size_t page = std::size_t{1} << r.page_size_log2;
  for (std::size_t off = page; off < bytes; off += page) {
    if (r.bus_address(off) != r.bus_address(0) + off) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    ": ring not contiguous on the bus: page 0 at %#llx, byte %zu at %#llx",
                    static_cast<unsigned long long>(r.bus_address(0)), off,
                    static_cast<unsigned long long>(r.bus_address(off)));
      throw std::runtime_error(std::string(what) + buf);
    }
  }
}

raw_queue::raw_queue(dma_allocator& rings, bar_ref bar, std::uint32_t dstrd, std::uint16_t qid,
                     std::uint32_t entries)
    : sq_(rings, std::size_t{entries} * sizeof(nvme::command)),
      cq_(rings, std::size_t{entries} * sizeof(nvme::completion)),
      sq_doorbell_(bar.word(nvme::reg::sq_tail_doorbell(qid, dstrd))),
      cq_doorbell_(bar.word(nvme::reg::cq_head_doorbell(qid, dstrd))),
      qid_(qid),
      entries_(entries) {
  require_bus_contiguous(sq_.region(), entries * sizeof(nvme::command), "SQ");
  require_bus_contiguous(cq_.region(), entries * sizeof(nvme::completion), "CQ");
}

void raw_queue::submit(const nvme::command& cmd) {
  std::memcpy(sq_.as<nvme::command>() + sq_tail_, &cmd, sizeof cmd);
  sq_tail_ = sq_tail_ + 1 == entries_ ? 0 : sq_tail_ + 1;
  // The entry must be in memory before the controller learns of it.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  system_atomic_ref<std::uint32_t>(*sq_doorbell_).store(sq_tail_, release);
}

std::optional<nvme::completion> raw_queue::poll() {
  nvme::completion* slot = cq_.as<nvme::completion>() + cq_head_;
  auto* words = reinterpret_cast<std::uint32_t*>(slot);
  const std::uint32_t dw3 =
      system_atomic_ref<std::uint32_t>(words[nvme::completion_dw3_index]).load(acquire);
  if (nvme::completion::dw3_phase(dw3) != phase_) return std::nullopt;
  nvme::completion c;
  std::memcpy(&c, slot, sizeof c);
  std::memcpy(reinterpret_cast<std::uint32_t*>(&c) + nvme::completion_dw3_index, &dw3, 4);
  if (++cq_head_ == entries_) {
    cq_head_ = 0;
    phase_ = !phase_;
  }
  system_atomic_ref<std::uint32_t>(*cq_doorbell_).store(cq_head_, release);
  return c;
}

nvme::completion raw_queue::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto c = poll()) return *c;
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("queue " + std::to_string(qid_) + ": completion timeout");
  }
}

raw_queue create_raw_queue(controller_driver& driver, dma_allocator& rings, bar_ref bar,
                           std::uint16_t qid, std::uint32_t entries) {
  raw_queue q(rings, bar, driver.info().doorbell_stride, qid, entries);
  driver.admin_checked(nvme::create_io_cq(qid, entries, q.cq_bus(), true), "create I/O CQ");
  driver.admin_checked(nvme::create_io_sq(qid, entries, qid, q.sq_bus(), true), "create I/O SQ");
  return q;
}

void delete_raw_queue(controller_driver& driver, const raw_queue& q) {
  driver.admin_checked(nvme::delete_io_sq(q.qid()), "delete I/O SQ");
  driver.admin_checked(nvme::delete_io_cq(q.qid()), "delete I/O CQ");
}

}  // namespace bam::guest
