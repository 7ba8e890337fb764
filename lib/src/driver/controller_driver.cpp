// Host controller driver: bring-up (reset, admin queue, CC/CSTS handshake, Identify, Number of
// Queues), admin commands, Abort, I/O queue pair creation, deletion and recreation, shutdown.
#include "bam/driver/controller_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"
#include "driver_core.hpp"

namespace bam {

namespace {
constexpr std::uint32_t page_log2 = 12;
constexpr std::uint32_t shn_normal = 1u << 14;

[[noreturn]] void fail(const std::string& msg) {
  throw std::runtime_error("controller_driver: " + msg);
}

std::string trimmed(const char* p, std::size_t n) {
  std::string s(p, n);
  const auto end = s.find_last_not_of(" \0", std::string::npos, 2);
  return end == std::string::npos ? std::string() : s.substr(0, end + 1);
}

/// Polls CSTS until `pred` holds; false after `timeout_ms`. CFS ends the wait with an error.
template <class Pred>
bool wait_csts(bar_ref bar, std::uint32_t timeout_ms, Pred pred, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const nvme::csts_register s{bar.read32(nvme::reg::csts)};
    if (pred(s)) return true;
    if (s.fatal())
      fail(fmt::format("controller fatal status (CSTS.CFS=1, CSTS={:#x}) while {}", s.raw, what));
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

bool bus_contiguous(const dma_region& r) {
  const std::uint64_t page = std::uint64_t{1} << r.page_size_log2;
  for (std::size_t i = 1; i < r.bus_pages.size(); ++i)
    if (r.bus_pages[i] != r.bus_pages[0] + i * page) return false;
  return true;
}
}  // namespace

// ---- driver_core ---------------------------------------------------------------------------

namespace detail {

nvme::completion driver_core::admin_submit(const nvme::command& cmd) {
  if (opts.mmio_doorbells)
    return admin->ref<mmio_doorbell>().submit_and_wait(cmd, admin_timeout_ns);
  return admin->ref<memory_doorbell>().submit_and_wait(cmd, admin_timeout_ns);
}

std::string driver_core::failure(const char* what, nvme::status st) const {
  if (st == nvme::sc::host_timeout) {
    return fmt::format(
        "{} got no completion within {} ms (admin queue; the controller may be hung)", what,
        admin_timeout_ns / 1'000'000);
  }
  if (st == nvme::sc::host_queue_failed)
    return fmt::format("{} failed: the admin queue failed (too many admin commands timed out)",
                       what);
  return fmt::format("{} failed: {}", what, nvme::describe(st));
}

nvme::completion driver_core::admin_checked(const nvme::command& cmd, const char* what) {
  const nvme::completion c = admin_submit(cmd);
  if (!c.status().ok()) fail(failure(what, c.status()));
  return c;
}

std::uint16_t driver_core::allocate_qid() {
  std::lock_guard lock(mutex);
  for (std::size_t q = 1; q < qid_used.size(); ++q) {
    if (!qid_used[q]) {
      qid_used[q] = true;
      return static_cast<std::uint16_t>(q);
    }
  }
  fail(fmt::format("all {} I/O queue pairs are in use", info.io_queue_pairs));
}

void driver_core::create_queues(std::uint16_t qid, std::uint32_t entries, std::uint64_t sq_bus,
                                std::uint64_t cq_bus) {
  admin_checked(nvme::create_io_cq(qid, entries, cq_bus, true), "Create I/O Completion Queue");
  try {
    admin_checked(nvme::create_io_sq(qid, entries, qid, sq_bus, true),
                  "Create I/O Submission Queue");
  } catch (...) {
    admin_submit(nvme::delete_io_cq(qid));
    throw;
  }
}

void driver_core::delete_queues(std::uint16_t qid) {
  const nvme::completion s = admin_submit(nvme::delete_io_sq(qid));
  const nvme::completion q = admin_submit(nvme::delete_io_cq(qid));
  if (!s.status().ok())
    fail(failure(fmt::format("Delete I/O Submission Queue {}", qid).c_str(), s.status()));
  if (!q.status().ok())
    fail(failure(fmt::format("Delete I/O Completion Queue {}", qid).c_str(), q.status()));
}

void driver_core::release_qid(std::uint16_t qid) {
  std::lock_guard lock(mutex);
  if (qid < qid_used.size()) qid_used[qid] = false;
}

}  // namespace detail

// ---- controller_driver ---------------------------------------------------------------------

controller_driver::controller_driver(bar_ref bar, dma_allocator& alloc, driver_options opts)
    : core_(std::make_shared<detail::driver_core>()) {
  auto& c = *core_;
  c.bar = bar;
  c.alloc = &alloc;
  c.opts = opts;
  controller_info& info = c.info;

  const nvme::cap_register cap{bar.read64(nvme::reg::cap)};
  info.max_queue_entries = cap.max_queue_entries();
  info.contiguous_queues_required = cap.contiguous_queues_required();
  info.doorbell_stride = cap.dstrd();
  info.timeout_ms = std::max<std::uint32_t>(cap.timeout_ms(), 500);
  c.admin_timeout_ns =
      std::uint64_t{opts.admin_timeout_ms != 0 ? opts.admin_timeout_ms : info.timeout_ms} *
      1'000'000;
  info.version = bar.read32(nvme::reg::vs);
  if (!cap.nvm_command_set()) fail("the controller does not support the NVM command set");
  if (page_log2 < cap.mps_min_log2() || page_log2 > cap.mps_max_log2())
    fail(fmt::format("4 KiB pages outside the controller's range 2^{}..2^{}", cap.mps_min_log2(),
                     cap.mps_max_log2()));
  if (alloc.page_size_log2() < page_log2) fail("the DMA allocator's pages are smaller than 4 KiB");
  info.page_size = 1u << page_log2;

  // Reset: CC.EN=0, wait for CSTS.RDY=0.
  bar.write32(nvme::reg::cc, 0);
  if (!wait_csts(
          bar, info.timeout_ms, [](nvme::csts_register s) { return !s.ready() && !s.fatal(); },
          "resetting"))
    fail(fmt::format("controller did not reset (CSTS.RDY still 1 after {} ms)", info.timeout_ms));

  // Admin queue.
  const std::uint32_t entries = std::clamp<std::uint32_t>(opts.admin_queue_entries, 2,
                                                          std::min(info.max_queue_entries, 4096u));
  c.admin_sq = dma_buffer(alloc, std::size_t{entries} * sizeof(nvme::command));
  c.admin_cq = dma_buffer(alloc, std::size_t{entries} * sizeof(nvme::completion));
  if (!bus_contiguous(c.admin_sq.region()) || !bus_contiguous(c.admin_cq.region()))
    fail("admin queue memory is not contiguous in bus addresses");
  bar.write32(nvme::reg::aqa, nvme::aqa_register::make(entries, entries).raw);
  bar.write64(nvme::reg::asq, c.admin_sq.bus_address());
  bar.write64(nvme::reg::acq, c.admin_cq.bus_address());
  bar.write32(nvme::reg::cc, nvme::cc_register::make(true, page_log2).raw);
  if (!wait_csts(
          bar, info.timeout_ms, [](nvme::csts_register s) { return s.ready(); }, "enabling"))
    fail(fmt::format("controller did not become ready within CAP.TO ({} ms)", info.timeout_ms));

  queue_pair_desc d;
  d.sq = c.admin_sq.as<nvme::command>();
  d.sq_entries = entries;
  d.cq = c.admin_cq.as<nvme::completion>();
  d.cq_entries = entries;
  d.sq_doorbell = bar.word(nvme::reg::sq_tail_doorbell(0, info.doorbell_stride));
  d.cq_doorbell = bar.word(nvme::reg::cq_head_doorbell(0, info.doorbell_stride));
  d.qid = 0;
  c.admin = std::make_unique<queue_pair>(d);
  c.live.store(true);

  // Identify.
  dma_buffer id(alloc, 4096);
  c.admin_checked(nvme::identify(nvme::identify_cns::controller, 0, id.bus_address()),
                  "Identify Controller");
  {
    const auto& ic = *id.as<nvme::identify_controller>();
    info.vid = ic.vid;
    info.model = trimmed(ic.mn, sizeof(ic.mn));
    info.serial = trimmed(ic.sn, sizeof(ic.sn));
    info.firmware = trimmed(ic.fr, sizeof(ic.fr));
    info.max_transfer_bytes = ic.mdts == 0 ? 0 : std::uint64_t{1} << (ic.mdts + cap.mps_min_log2());
    info.namespaces = ic.nn;
    info.oncs = ic.oncs;
    info.volatile_write_cache = (ic.vwc & 1u) != 0;
  }
  c.admin_checked(nvme::identify(nvme::identify_cns::ns, info.nsid, id.bus_address()),
                  "Identify Namespace");
  {
    const auto& ns = *id.as<nvme::identify_namespace>();
    info.lba_size = ns.lba_size();
    info.namespace_lbas = ns.nsze;
  }

  // I/O queues.
  const std::uint32_t want = std::clamp<std::uint32_t>(opts.io_queue_pairs, 1, 65535);
  const nvme::completion nq =
      c.admin_checked(nvme::set_features_num_queues(want, want), "Set Features (Number of Queues)");
  info.io_queue_pairs =
      std::min(nvme::decode::num_sq_allocated(nq.dw0), nvme::decode::num_cq_allocated(nq.dw0));
  c.qid_used.assign(std::size_t{info.io_queue_pairs} + 1, false);
  c.qid_used[0] = true;
}

controller_driver::~controller_driver() {
  if (!core_) return;
  try {
    shutdown();
  } catch (...) {
    // Destructors do not throw; the controller is left as it is.
  }
}

controller_driver::controller_driver(controller_driver&&) noexcept = default;
controller_driver& controller_driver::operator=(controller_driver&&) noexcept = default;

const controller_info& controller_driver::info() const {
  return core_->info;
}

const driver_options& controller_driver::options() const {
  return core_->opts;
}

std::uint64_t controller_driver::admin_timeout_ns() const {
  return core_->admin_timeout_ns;
}

nvme::completion controller_driver::admin(const nvme::command& cmd) {
  if (!core_->live.load()) fail("admin command after shutdown");
  return core_->admin_submit(cmd);
}

bool controller_driver::abort(std::uint16_t sqid, std::uint16_t cid) {
  if (!core_->live.load()) fail("Abort after shutdown");
  const nvme::completion c = core_->admin_submit(nvme::abort(sqid, cid));
  const nvme::status st = c.status();
  if (st == nvme::sc::host_timeout || st == nvme::sc::host_queue_failed)
    fail(core_->failure(fmt::format("Abort of command {} on SQ {}", cid, sqid).c_str(), st));
  return st.ok() && !nvme::decode::abort_not_aborted(c.dw0);
}

nvme::completion controller_driver::admin_checked(const nvme::command& cmd, const char* what) {
  if (!core_->live.load()) fail("admin command after shutdown");
  return core_->admin_checked(cmd, what);
}

io_queue_pair controller_driver::create_io_queue_pair(std::uint32_t entries) {
  return create_io_queue_pair(entries, *core_->alloc);
}

io_queue_pair controller_driver::create_io_queue_pair(std::uint32_t entries, dma_allocator& rings) {
  auto& c = *core_;
  if (!c.live.load()) fail("create_io_queue_pair after shutdown");
  if (entries < 1 || entries > 65536)
    throw std::invalid_argument(
        fmt::format("controller_driver: queue size {} not in 1..65536", entries));
  if (rings.page_size_log2() < page_log2) fail("the ring allocator's pages are smaller than 4 KiB");
  io_queue_pair p;
  p.sq_ = dma_buffer(rings, std::size_t{entries} * sizeof(nvme::command));
  p.cq_ = dma_buffer(rings, std::size_t{entries} * sizeof(nvme::completion));
  if (!bus_contiguous(p.sq_.region()) || !bus_contiguous(p.cq_.region()))
    fail("queue ring memory is not contiguous in bus addresses (PRP-list queues: not supported)");
  const std::uint16_t qid = c.allocate_qid();
  try {
    c.create_queues(qid, entries, p.sq_.bus_address(), p.cq_.bus_address());
  } catch (...) {
    c.release_qid(qid);
    throw;
  }
  queue_pair_desc d;
  d.sq = p.sq_.as<nvme::command>();
  d.sq_entries = entries;
  d.cq = p.cq_.as<nvme::completion>();
  d.cq_entries = entries;
  d.sq_doorbell = c.bar.word(nvme::reg::sq_tail_doorbell(qid, c.info.doorbell_stride));
  d.cq_doorbell = c.bar.word(nvme::reg::cq_head_doorbell(qid, c.info.doorbell_stride));
  d.qid = qid;
  p.queue_ = std::make_unique<queue_pair>(d);
  p.qid_ = qid;
  p.entries_ = entries;
  p.core_ = core_;
  p.live_ = true;
  p.host_rings_ = &rings == c.alloc;
  return p;
}

void controller_driver::shutdown() {
  auto& c = *core_;
  std::lock_guard lock(c.mutex);
  if (!c.live.load()) return;
  c.live.store(false);
  const nvme::cc_register cc{c.bar.read32(nvme::reg::cc)};
  c.bar.write32(nvme::reg::cc, (cc.raw & ~(3u << 14)) | shn_normal);
  if (!wait_csts(
          c.bar, c.info.timeout_ms, [](nvme::csts_register s) { return s.shst() == 2; },
          "shutting down"))
    fail(fmt::format("controller did not complete shutdown within {} ms", c.info.timeout_ms));
}

bool controller_driver::is_shut_down() const {
  return !core_->live.load();
}

// ---- io_queue_pair -------------------------------------------------------------------------

io_queue_pair::io_queue_pair(io_queue_pair&& o) noexcept = default;

io_queue_pair& io_queue_pair::operator=(io_queue_pair&& o) noexcept {
  if (this != &o) {
    try {
      destroy();
    } catch (...) {
    }
    core_ = std::move(o.core_);
    sq_ = std::move(o.sq_);
    cq_ = std::move(o.cq_);
    queue_ = std::move(o.queue_);
    qid_ = o.qid_;
    entries_ = o.entries_;
    live_ = o.live_;
    host_rings_ = o.host_rings_;
    o.qid_ = 0;
    o.entries_ = 0;
    o.live_ = false;
  }
  return *this;
}

io_queue_pair::~io_queue_pair() {
  try {
    destroy();
  } catch (...) {
    // Destructors do not throw; the queue stays allocated in the controller.
  }
}

void io_queue_pair::destroy() {
  if (!core_) return;
  auto core = std::move(core_);
  queue_.reset();
  const std::uint16_t qid = qid_;
  qid_ = 0;
  const bool queues = live_;
  live_ = false;
  if (!core->live.load()) {
    sq_.reset();
    cq_.reset();
    return;
  }
  // Delete SQ then CQ (unless a recovery left them deleted) before the rings go back to the
  // allocator; the ID and the rings are given back either way.
  try {
    if (queues) core->delete_queues(qid);
  } catch (...) {
    core->release_qid(qid);
    sq_.reset();
    cq_.reset();
    throw;
  }
  core->release_qid(qid);
  sq_.reset();
  cq_.reset();
}

void io_queue_pair::delete_queues() {
  if (!core_) throw std::logic_error("io_queue_pair: delete_queues on an empty pair");
  if (!live_) throw std::logic_error("io_queue_pair: delete_queues: the queues are deleted");
  if (!core_->live.load()) fail("delete_queues after shutdown");
  live_ = false;
  core_->delete_queues(qid_);
}

void io_queue_pair::create_queues() {
  if (!core_) throw std::logic_error("io_queue_pair: create_queues on an empty pair");
  if (live_) throw std::logic_error("io_queue_pair: create_queues: the queues exist");
  if (!core_->live.load()) fail("create_queues after shutdown");
  if (host_rings_) {
    std::memset(sq_.as<std::uint8_t>(), 0, std::size_t{entries_} * sizeof(nvme::command));
    std::memset(cq_.as<std::uint8_t>(), 0, std::size_t{entries_} * sizeof(nvme::completion));
  }
  core_->create_queues(qid_, entries_, sq_.bus_address(), cq_.bus_address());
  live_ = true;
}

void io_queue_pair::recreate() {
  delete_queues();
  create_queues();
}

bool io_queue_pair::recover(std::uint64_t quiesce_timeout_ns) {
  if (!core_) throw std::logic_error("io_queue_pair: recover on an empty pair");
  if (!host_rings_)
    throw std::logic_error("io_queue_pair: recover of a pair whose rings its owner allocated");
  if (!queue_->quiesce(quiesce_timeout_ns)) return false;
  if (live_) delete_queues();
  create_queues();
  queue_->reset();
  return true;
}

bool io_queue_pair::try_recover() {
  if (!core_) throw std::logic_error("io_queue_pair: recover on an empty pair");
  if (!host_rings_)
    throw std::logic_error("io_queue_pair: recover of a pair whose rings its owner allocated");
  if (!queue_->try_quiesce()) return false;
  if (live_) delete_queues();
  create_queues();
  queue_->reset();
  return true;
}

}  // namespace bam
