// Host emulated NVMe controller: construction, register block, threads, and the control thread
// (CC.EN / CC.SHN handshake, then the admin queue, served in admin.cpp).
#include "bam/emu/emulated_controller.hpp"

#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include <fmt/format.h>

#include "controller_impl.hpp"

namespace bam::emu {

namespace {
constexpr std::uint32_t mps_min_log2 = 12;
constexpr std::uint32_t mps_max_log2 = 16;
constexpr std::uint32_t csts_rdy = 1u;
constexpr std::uint32_t csts_cfs = 1u << 1;
constexpr std::uint32_t shst_complete = 2u << 2;

void validate(const controller_options& o) {
  auto bad = [](const std::string& what) {
    throw std::invalid_argument("emulated_controller: " + what);
  };
  if (o.max_queue_entries < 2 || o.max_queue_entries > 65536)
    bad(fmt::format("max_queue_entries {} not in 2..65536", o.max_queue_entries));
  if (o.doorbell_stride > 15) bad("doorbell_stride > 15");
  if (o.timeout_500ms < 1 || o.timeout_500ms > 255) bad("timeout_500ms not in 1..255");
  if (o.max_io_queue_pairs < 1 || o.max_io_queue_pairs > 65535)
    bad("max_io_queue_pairs not in 1..65535");
  if (o.lba_size != 512 && o.lba_size != 4096) bad("lba_size must be 512 or 4096");
  if (o.namespace_lbas == 0) bad("namespace_lbas must be > 0");
  if (o.mdts > 15) bad("mdts > 15");
  if (o.worker_threads < 1) bad("worker_threads must be >= 1");
  const fault_config& f = o.faults;
  for (double x : {f.error_fraction, f.delay_fraction, f.drop_fraction})
    if (!(x >= 0 && x <= 1)) bad("fault fractions must be in [0, 1]");
  if (f.error_fraction + f.delay_fraction + f.drop_fraction > 1)
    bad("fault fractions must sum to at most 1");
  if (f.error_fraction > 0 && f.error_status.ok()) bad("the injected error status is success");
}
}  // namespace

void idle_backoff::wait() {
  ++idle_;
  if (idle_ < 64) {
    spin_pause();
  } else if (idle_ < 128) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

emulated_controller::impl::impl(controller_options o)
    : opts((validate(o), std::move(o))),
      media(opts.media, opts.media_path, opts.namespace_lbas * opts.lba_size),
      lba_log2(static_cast<std::uint32_t>(std::countr_zero(opts.lba_size))),
      faults(make_fault_plan(opts.faults)),
      timing(make_service_table(opts.timing)) {
  const std::uint64_t bytes = bar_size_for(opts.max_io_queue_pairs, opts.doorbell_stride);
  const std::uint64_t alloc = (bytes + 4095) / 4096 * 4096;
  regs = static_cast<std::uint32_t*>(std::aligned_alloc(4096, alloc));
  if (regs == nullptr) throw std::bad_alloc();
  std::memset(regs, 0, alloc);
  bar = bar_ref(regs, bytes);
  const auto cap = nvme::cap_register::make(opts.max_queue_entries, opts.timeout_500ms,
                                            opts.doorbell_stride, mps_min_log2, mps_max_log2,
                                            /*contiguous=*/true);
  bar.write64(nvme::reg::cap, cap.raw);
  bar.write32(nvme::reg::vs, nvme::make_version(1, 4));
  allocated_sqs = allocated_cqs = opts.max_io_queue_pairs;
}

emulated_controller::impl::~impl() {
  stop();
  std::free(regs);
}

void emulated_controller::impl::start() {
  if (running) return;
  stop_requested.store(false, std::memory_order_relaxed);
  workers.clear();
  for (std::uint32_t i = 0; i < opts.worker_threads; ++i)
    workers.push_back(std::make_unique<worker_state>());
  // Queues created before a stop keep their worker index; re-attach them.
  for (auto& sq : sqs)
    if (sq) workers[sq->cq->worker]->sqs.push_back(sq.get());
  for (auto& w : workers)
    w->thread = std::thread([this, wp = w.get()] { run_worker(*wp); });
  control = std::thread([this] { run_control(); });
  running = true;
}

void emulated_controller::impl::stop() {
  if (!running) return;
  stop_requested.store(true, std::memory_order_release);
  control.join();
  for (auto& w : workers)
    w->thread.join();
  running = false;
  media.flush();
}

void emulated_controller::impl::set_csts(std::uint32_t v) {
  csts = v;
  bar.write32(nvme::reg::csts, v);
}

void emulated_controller::impl::zero_doorbells(std::uint16_t qid) {
  bar.write32(nvme::reg::sq_tail_doorbell(qid, opts.doorbell_stride), 0);
  bar.write32(nvme::reg::cq_head_doorbell(qid, opts.doorbell_stride), 0);
}

void emulated_controller::impl::count_completion(nvme::status st) {
  completions.fetch_add(1, std::memory_order_relaxed);
  if (!st.ok()) errors.fetch_add(1, std::memory_order_relaxed);
}

void emulated_controller::impl::enable(nvme::cc_register cc) {
  const nvme::aqa_register aqa{bar.read32(nvme::reg::aqa)};
  const std::uint64_t asq = bar.read64(nvme::reg::asq);
  const std::uint64_t acq = bar.read64(nvme::reg::acq);
  const std::uint32_t mps = cc.mps_log2();
  const std::uint64_t page_mask = (std::uint64_t{1} << mps) - 1;
  bool ok = cc.iosqes() == nvme::sqe_size_log2 && cc.iocqes() == nvme::cqe_size_log2 &&
            cc.css() == 0 && mps >= mps_min_log2 && mps <= mps_max_log2 && aqa.asqs() >= 2 &&
            aqa.acqs() >= 2 && (asq & page_mask) == 0 && (acq & page_mask) == 0;
  const std::uint8_t* sq_ring = ok ? window.map(asq, std::uint64_t{aqa.asqs()} * 64) : nullptr;
  std::uint8_t* cq_ring = ok ? window.map(acq, std::uint64_t{aqa.acqs()} * 16) : nullptr;
  if (sq_ring == nullptr || cq_ring == nullptr) {
    set_csts(csts_cfs);  // invalid configuration: controller fatal status, never ready
    return;
  }
  admin_sq = sq_state{};
  admin_sq.ring = reinterpret_cast<const nvme::command*>(sq_ring);
  admin_sq.tail_doorbell = bar.word(nvme::reg::sq_tail_doorbell(0, opts.doorbell_stride));
  admin_sq.entries = aqa.asqs();
  admin_cq = cq_state{};
  admin_cq.ring = reinterpret_cast<nvme::completion*>(cq_ring);
  admin_cq.head_doorbell = bar.word(nvme::reg::cq_head_doorbell(0, opts.doorbell_stride));
  admin_cq.entries = aqa.acqs();
  nvm.nsze = opts.namespace_lbas;
  nvm.lba_log2 = lba_log2;
  nvm.mps_log2 = mps;
  nvm.max_transfer_bytes = opts.mdts == 0 ? 0 : (std::uint64_t{1} << (opts.mdts + mps_min_log2));
  enabled = true;
  set_csts(csts_rdy);
}

void emulated_controller::impl::drop_io_queues() {
  for (auto& w : workers) {
    std::lock_guard lock(w->mutex);
    w->sqs.clear();
  }
  for (auto& sq : sqs)
    if (sq) drain_counters(sq->st);
  for (auto& cq : cqs)
    if (cq) drain_counters(cq->st);
  sqs.clear();
  cqs.clear();
}

void emulated_controller::impl::disable() {
  drop_io_queues();
  drain_counters(admin_sq);
  drain_counters(admin_cq);
  admin_sq = sq_state{};
  admin_cq = cq_state{};
  for (std::uint32_t q = 0; q <= opts.max_io_queue_pairs; ++q)
    zero_doorbells(static_cast<std::uint16_t>(q));
  allocated_sqs = allocated_cqs = opts.max_io_queue_pairs;
  volatile_write_cache = true;
  next_worker = 0;
  enabled = false;
  set_csts(0);
}

bool emulated_controller::impl::poll_registers() {
  const nvme::cc_register cc{bar.read32(nvme::reg::cc)};
  bool did = false;
  if (cc.enable() && !en_seen) {
    enable(cc);
    did = true;
  } else if (!cc.enable() && en_seen) {
    disable();
    did = true;
  }
  en_seen = cc.enable();
  if (!enabled) return did;
  const bool shutdown_requested = cc.shn() != 0;
  const bool shut = (csts & shst_complete) != 0;
  if (shutdown_requested && !shut) {
    media.flush();
    set_csts(csts | shst_complete);
    did = true;
  } else if (!shutdown_requested && shut) {
    set_csts(csts & ~shst_complete);
    did = true;
  }
  return did;
}

void emulated_controller::impl::run_control() {
  idle_backoff backoff;
  while (!stop_requested.load(std::memory_order_acquire)) {
    bool did = poll_registers();
    if (enabled) did |= serve_admin();
    if (did)
      backoff.reset();
    else
      backoff.wait();
  }
  drain_counters(admin_sq);
  drain_counters(admin_cq);
}

// ---- emulated_controller -----------------------------------------------------------------------

emulated_controller::emulated_controller(controller_options opts)
    : impl_(std::make_unique<impl>(std::move(opts))) {}
emulated_controller::~emulated_controller() = default;
emulated_controller::emulated_controller(emulated_controller&&) noexcept = default;
emulated_controller& emulated_controller::operator=(emulated_controller&&) noexcept = default;

bar_ref emulated_controller::bar() const {
  return impl_->bar;
}
dma_allocator& emulated_controller::allocator() {
  return impl_->allocator;
}
dma_window& emulated_controller::window() {
  return impl_->window;
}
const controller_options& emulated_controller::options() const {
  return impl_->opts;
}
void emulated_controller::start() {
  impl_->start();
}
void emulated_controller::stop() {
  impl_->stop();
}
bool emulated_controller::running() const {
  return impl_->running;
}

controller_stats emulated_controller::stats() const {
  controller_stats s;
  for (std::size_t i = 0; i < 256; ++i) {
    s.admin_commands[i] = impl_->admin_commands[i].load(std::memory_order_relaxed);
    s.io_commands[i] = impl_->io_commands[i].load(std::memory_order_relaxed);
  }
  s.completions = impl_->completions.load(std::memory_order_relaxed);
  s.errors = impl_->errors.load(std::memory_order_relaxed);
  s.doorbell_reads = impl_->doorbell_reads.load(std::memory_order_relaxed);
  s.invalid_doorbells = impl_->invalid_doorbells.load(std::memory_order_relaxed);
  s.injected_errors = impl_->injected_errors.load(std::memory_order_relaxed);
  s.injected_delays = impl_->injected_delays.load(std::memory_order_relaxed);
  s.injected_drops = impl_->injected_drops.load(std::memory_order_relaxed);
  s.aborted = impl_->aborted.load(std::memory_order_relaxed);
  s.aborted_by_sq_deletion = impl_->aborted_by_sq_deletion.load(std::memory_order_relaxed);
  s.discarded_completions = impl_->discarded_completions.load(std::memory_order_relaxed);
  return s;
}

}  // namespace bam::emu
