// raw_nvme.cpp: the guest test's minimal polled NVMe host driver (see raw_nvme.hpp).
#include "raw_nvme.hpp"

#include "bam/nvme/commands.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace bam::guest {

namespace {
std::string trimmed(const char* s, std::size_t n) {
  std::string out(s, n);
  while (!out.empty() && (out.back() == ' ' || out.back() == '\0'))
    out.pop_back();
  return out;
}
std::string status_text(const nvme::status& st) {
  return "sct " + std::to_string(st.sct) + " sc " + std::to_string(st.sc);
}
}  // namespace

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

raw_controller::raw_controller(bar_ref bar, dma_allocator& rings, dma_allocator& data,
                               std::uint32_t admin_entries)
    : bar_(bar), rings_(&rings), cap_{bar.read64(nvme::reg::cap)} {
  set_enable(false);
  admin_.emplace(rings, bar, cap_.dstrd(), 0, admin_entries);
  bar_.write32(nvme::reg::aqa, nvme::aqa_register::make(admin_entries, admin_entries).raw);
  bar_.write64(nvme::reg::asq, admin_->sq_bus());
  bar_.write64(nvme::reg::acq, admin_->cq_bus());
  // Mask all interrupt vectors: completions are polled.
  bar_.write32(nvme::reg::intms, 0xffffffffu);
  set_enable(true);

  ctrl_ = dma_buffer(data, sizeof(nvme::identify_controller));
  ns_ = dma_buffer(data, sizeof(nvme::identify_namespace));
  nvme::command c{};
  c.opcode = static_cast<std::uint8_t>(nvme::admin_opcode::identify);
  c.prp1 = ctrl_.bus_address(0);
  c.cdw10 = static_cast<std::uint32_t>(nvme::identify_cns::controller);
  admin_ok(c, "identify controller");
  c = {};
  c.opcode = static_cast<std::uint8_t>(nvme::admin_opcode::identify);
  c.nsid = 1;
  c.prp1 = ns_.bus_address(0);
  c.cdw10 = static_cast<std::uint32_t>(nvme::identify_cns::ns);
  admin_ok(c, "identify namespace 1");
  // Ask for 63 I/O queue pairs; dw0 says how many were granted (0-based SQ and CQ counts).
  c = {};
  c.opcode = static_cast<std::uint8_t>(nvme::admin_opcode::set_features);
  c.cdw10 = static_cast<std::uint32_t>(nvme::feature_id::number_of_queues);
  c.cdw11 = (62u << 16) | 62u;
  const auto r = admin_ok(c, "set features: number of queues");
  io_queues_ = std::min(r.dw0 & 0xffffu, r.dw0 >> 16) + 1;
}

raw_controller::~raw_controller() {
  try {
    set_enable(false);
  } catch (...) {
  }
}

void raw_controller::set_enable(bool on) {
  auto cc = nvme::cc_register{bar_.read32(nvme::reg::cc)};
  if (cc.enable() != on) {
    bar_.write32(nvme::reg::cc, on ? nvme::cc_register::make(true, 12).raw : 0u);
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::max(cap_.timeout_ms(), 1000u));
  for (;;) {
    const nvme::csts_register csts{bar_.read32(nvme::reg::csts)};
    if (csts.fatal()) throw std::runtime_error("controller fatal status");
    if (csts.ready() == on) return;
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error(on ? "controller did not become ready" : "controller did not reset");
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

nvme::completion raw_controller::admin(nvme::command cmd) {
  std::lock_guard lock(admin_mutex_);
  cmd.cid = next_cid_++;
  admin_->submit(cmd);
  const auto c = admin_->wait();
  if (c.cid != cmd.cid) throw std::runtime_error("admin completion for the wrong command");
  return c;
}

nvme::completion raw_controller::admin_ok(const nvme::command& cmd, const char* what) {
  const auto c = admin(cmd);
  if (!c.status().ok())
    throw std::runtime_error(std::string(what) + ": " + status_text(c.status()));
  return c;
}

std::string raw_controller::model() const {
  return trimmed(id_ctrl().mn, sizeof id_ctrl().mn);
}
std::string raw_controller::serial() const {
  return trimmed(id_ctrl().sn, sizeof id_ctrl().sn);
}

void raw_controller::create_in_controller(std::uint16_t qid, std::uint32_t entries,
                                          std::uint64_t sq_bus, std::uint64_t cq_bus) {
  admin_ok(nvme::create_io_cq(qid, entries, cq_bus, true), "create I/O CQ");
  admin_ok(nvme::create_io_sq(qid, entries, qid, sq_bus, true), "create I/O SQ");
}

raw_queue raw_controller::create_io_queue(std::uint16_t qid, std::uint32_t entries) {
  raw_queue q(*rings_, bar_, cap_.dstrd(), qid, entries);
  create_in_controller(qid, entries, q.sq_bus(), q.cq_bus());
  return q;
}

io_rings raw_controller::create_io_rings(std::uint16_t qid, std::uint32_t entries) {
  io_rings r;
  r.sq = dma_buffer(*rings_, std::size_t{entries} * sizeof(nvme::command));
  r.cq = dma_buffer(*rings_, std::size_t{entries} * sizeof(nvme::completion));
  require_bus_contiguous(r.sq.region(), entries * sizeof(nvme::command), "SQ");
  require_bus_contiguous(r.cq.region(), entries * sizeof(nvme::completion), "CQ");
  r.desc.sq = r.sq.as<nvme::command>();
  r.desc.sq_entries = entries;
  r.desc.cq = r.cq.as<nvme::completion>();
  r.desc.cq_entries = entries;
  r.desc.sq_doorbell = bar_.word(nvme::reg::sq_tail_doorbell(qid, cap_.dstrd()));
  r.desc.cq_doorbell = bar_.word(nvme::reg::cq_head_doorbell(qid, cap_.dstrd()));
  r.desc.qid = qid;
  create_in_controller(qid, entries, r.sq.bus_address(0), r.cq.bus_address(0));
  return r;
}

void raw_controller::delete_io_queue(std::uint16_t qid) {
  admin_ok(nvme::delete_io_sq(qid), "delete I/O SQ");
  admin_ok(nvme::delete_io_cq(qid), "delete I/O CQ");
}

}  // namespace bam::guest
