// Test helper: a tiny single-threaded NVMe host over raw rings and doorbells, so that the engine
// is tested without any queue library. Hand-built SQEs, one outstanding batch at a time.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>

#include "bam/bar.hpp"
#include "bam/detail/atomic.hpp"
#include "bam/dma.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::test {

/// One SQ/CQ pair as a host sees it: rings in DMA memory, tail/head/phase, doorbell offsets.
class raw_queue {
 public:
  raw_queue(dma_allocator& alloc, bar_ref bar, std::uint32_t dstrd, std::uint16_t qid,
            std::uint32_t sq_entries, std::uint32_t cq_entries)
      : bar_(bar),
        dstrd_(dstrd),
        qid_(qid),
        sq_entries_(sq_entries),
        cq_entries_(cq_entries),
        sq_(alloc, std::size_t{sq_entries} * sizeof(nvme::command)),
        cq_(alloc, std::size_t{cq_entries} * sizeof(nvme::completion)) {}

  std::uint64_t sq_bus() const { return sq_.bus_address(); }
  std::uint64_t cq_bus() const { return cq_.bus_address(); }
  std::uint16_t qid() const { return qid_; }
  std::uint32_t sq_tail() const { return sq_tail_; }

  /// Writes `cmd` at the SQ tail (no doorbell).
  void push(nvme::command cmd) {
    cmd.cid = next_cid_++;
    sq_.as<nvme::command>()[sq_tail_] = cmd;
    sq_tail_ = (sq_tail_ + 1) % sq_entries_;
  }
  /// Rings the SQ tail doorbell.
  void ring() { bar_.write32(nvme::reg::sq_tail_doorbell(qid_, dstrd_), sq_tail_); }
  void submit(const nvme::command& cmd) {
    push(cmd);
    ring();
  }
  /// Waits for the next completion (DW3 acquire-loaded first), consumes it, rings the CQ head
  /// doorbell. Throws after 10 s.
  nvme::completion wait() {
    auto* e = cq_.as<nvme::completion>() + cq_head_;
    auto* words = reinterpret_cast<std::uint32_t*>(e);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::uint32_t dw3 = 0;
    while (true) {
      dw3 = system_atomic_ref<std::uint32_t>(words[nvme::completion_dw3_index]).load(acquire);
      if (nvme::completion::dw3_phase(dw3) == phase_) break;
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("raw_queue: no completion within 10 s");
      std::this_thread::yield();
    }
    nvme::completion c{};
    std::memcpy(&c, e, 12);
    c.cid = nvme::completion::dw3_cid(dw3);
    c.sf = static_cast<std::uint16_t>(dw3 >> 16);
    cq_head_ = (cq_head_ + 1) % cq_entries_;
    if (cq_head_ == 0) phase_ = !phase_;
    bar_.write32(nvme::reg::cq_head_doorbell(qid_, dstrd_), cq_head_);
    return c;
  }
  /// True when a completion is visible at the CQ head (without consuming it).
  bool completion_ready() const {
    auto* words = reinterpret_cast<std::uint32_t*>(cq_.as<nvme::completion>() + cq_head_);
    const std::uint32_t dw3 =
        system_atomic_ref<std::uint32_t>(words[nvme::completion_dw3_index]).load(acquire);
    return nvme::completion::dw3_phase(dw3) == phase_;
  }
  nvme::completion run(const nvme::command& cmd) {
    submit(cmd);
    return wait();
  }

 private:
  bar_ref bar_;
  std::uint32_t dstrd_;
  std::uint16_t qid_;
  std::uint32_t sq_entries_, cq_entries_;
  dma_buffer sq_, cq_;
  std::uint32_t sq_tail_ = 0, cq_head_ = 0;
  bool phase_ = true;
  std::uint16_t next_cid_ = 0;
};

inline nvme::command admin_cmd(nvme::admin_opcode op) {
  nvme::command c{};
  c.opcode = static_cast<std::uint8_t>(op);
  return c;
}
inline nvme::command io_cmd(nvme::nvm_opcode op, std::uint64_t slba = 0, std::uint32_t nlb = 1) {
  nvme::command c{};
  c.opcode = static_cast<std::uint8_t>(op);
  c.nsid = 1;
  c.cdw10 = static_cast<std::uint32_t>(slba);
  c.cdw11 = static_cast<std::uint32_t>(slba >> 32);
  c.cdw12 = (nlb - 1) & 0xffffu;
  return c;
}
inline nvme::command create_cq_cmd(std::uint16_t qid, std::uint32_t entries, std::uint64_t bus,
                                   bool contiguous = true) {
  nvme::command c = admin_cmd(nvme::admin_opcode::create_io_cq);
  c.prp1 = bus;
  c.cdw10 = ((entries - 1) << 16) | qid;
  c.cdw11 = contiguous ? 1u : 0u;
  return c;
}
inline nvme::command create_sq_cmd(std::uint16_t qid, std::uint32_t entries, std::uint64_t bus,
                                   std::uint16_t cqid, bool contiguous = true) {
  nvme::command c = admin_cmd(nvme::admin_opcode::create_io_sq);
  c.prp1 = bus;
  c.cdw10 = ((entries - 1) << 16) | qid;
  c.cdw11 = (std::uint32_t{cqid} << 16) | (contiguous ? 1u : 0u);
  return c;
}
inline nvme::command delete_cmd(nvme::admin_opcode op, std::uint16_t qid) {
  nvme::command c = admin_cmd(op);
  c.cdw10 = qid;
  return c;
}

/// A host driving one emulated controller: enable handshake, admin queue, I/O pairs.
class raw_host {
 public:
  explicit raw_host(emu::emulated_controller& ctrl, std::uint32_t admin_entries = 16)
      : ctrl_(ctrl),
        bar_(ctrl.bar()),
        dstrd_(nvme::cap_register{bar_.read64(nvme::reg::cap)}.dstrd()),
        entries_(admin_entries),
        admin_(ctrl.allocator(), bar_, dstrd_, 0, admin_entries, admin_entries) {}

  bar_ref bar() const { return bar_; }
  std::uint32_t dstrd() const { return dstrd_; }

  /// Programs AQA/ASQ/ACQ and CC (with `cc`, default: EN, 4 KiB pages), waits for RDY or CFS.
  nvme::csts_register enable(nvme::cc_register cc = nvme::cc_register::make(true, 12)) {
    bar_.write32(nvme::reg::aqa, nvme::aqa_register::make(entries_, entries_).raw);
    bar_.write64(nvme::reg::asq, admin_.sq_bus());
    bar_.write64(nvme::reg::acq, admin_.cq_bus());
    bar_.write32(nvme::reg::cc, cc.raw);
    return wait_csts([](nvme::csts_register s) { return s.ready() || s.fatal(); });
  }
  template <class Pred>
  nvme::csts_register wait_csts(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
      const nvme::csts_register s{bar_.read32(nvme::reg::csts)};
      if (pred(s)) return s;
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("raw_host: CSTS wait timed out");
      std::this_thread::yield();
    }
  }
  nvme::completion admin(const nvme::command& cmd) { return admin_.run(cmd); }
  raw_queue& admin_queue() { return admin_; }

  /// Creates I/O CQ and SQ `qid` (CQ first) with `entries` each; asserts success.
  std::unique_ptr<raw_queue> create_pair(std::uint16_t qid, std::uint32_t entries) {
    auto q = std::make_unique<raw_queue>(ctrl_.allocator(), bar_, dstrd_, qid, entries, entries);
    EXPECT_EQ(admin(create_cq_cmd(qid, entries, q->cq_bus())).status(), nvme::sc::success);
    EXPECT_EQ(admin(create_sq_cmd(qid, entries, q->sq_bus(), qid)).status(), nvme::sc::success);
    return q;
  }

 private:
  emu::emulated_controller& ctrl_;
  bar_ref bar_;
  std::uint32_t dstrd_;
  std::uint32_t entries_;
  raw_queue admin_;
};

}  // namespace bam::test
