// Host owner of a queue pair's bookkeeping: allocation, statistics and diagnostic dumps.
#include "bam/queue/queue_pair.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "bam/detail/expects.hpp"

namespace bam {

void queue_pair::free_aligned::operator()(void* p) const noexcept {
  std::free(p);
}

queue_pair::queue_pair(const queue_pair_desc& desc) {
  // The sizes come from a controller that accepted them (queues.depth: the schema's range,
  // checked against CAP.MQES before any queue is created).
  auto expect_size = [](const char* what, std::uint32_t n) {
    BAM_EXPECTS(n >= min_queue_entries && n <= max_queue_entries,
                fmt::format("queue_pair: {} = {} outside [{}, {}]", what, n, min_queue_entries,
                            max_queue_entries));
  };
  expect_size("sq_entries", desc.sq_entries);
  expect_size("cq_entries", desc.cq_entries);
  BAM_EXPECTS(desc.sq != nullptr && desc.cq != nullptr && desc.sq_doorbell != nullptr &&
                  desc.cq_doorbell != nullptr,
              "queue_pair: rings and doorbells must be given");

  const queue_state_layout layout(desc.sq_entries, desc.cq_entries);
  void* block = std::aligned_alloc(128, layout.bytes);
  if (block == nullptr) throw std::bad_alloc();
  std::memset(block, 0, layout.bytes);
  state_.reset(block);
  state_bytes_ = layout.bytes;

  pointers_.sq = desc.sq;
  pointers_.cq = desc.cq;
  pointers_.sq_doorbell = desc.sq_doorbell;
  pointers_.cq_doorbell = desc.cq_doorbell;
  pointers_.sq_entries = desc.sq_entries;
  pointers_.cq_entries = desc.cq_entries;
  pointers_.qid = desc.qid;
  layout.place(block, pointers_);
}

bool queue_pair::quiesce(std::uint64_t timeout_ns) const {
  queue_counters& c = *pointers_.counters;
  device_atomic_ref<std::uint64_t>(c.failures).fetch_add(1, relaxed);
  // Sequentially consistent, against queue_pair_ref::enter: a thread that enters after this
  // store sees the mark and leaves; one that entered before is seen in the count.
  device_atomic_ref<std::uint32_t>(c.failed).store(1, cuda::memory_order_seq_cst);
  device_atomic_ref<std::uint32_t> users(c.users);
  const std::uint64_t deadline = timeout_ns == 0 ? ~std::uint64_t{0} : now_ns() + timeout_ns;
  backoff bo;
  while (users.load(cuda::memory_order_seq_cst) != 0) {
    if (now_ns() >= deadline) return false;
    bo.pause();
  }
  return true;
}

bool queue_pair::try_quiesce() const {
  queue_counters& c = *pointers_.counters;
  // A sequentially consistent read-modify-write of the mark, then of the count: against
  // queue_pair_ref::enter as in quiesce (the mark may have been set by fail(), a release store).
  if (device_atomic_ref<std::uint32_t>(c.failed).exchange(1, cuda::memory_order_seq_cst) == 0)
    device_atomic_ref<std::uint64_t>(c.failures).fetch_add(1, relaxed);
  return device_atomic_ref<std::uint32_t>(c.users).load(cuda::memory_order_seq_cst) == 0;
}

namespace {
/// Stores 0 into `n` words at `p` one by one: threads outside the queue may still load some of
/// them atomically (abandoned(), the failed mark).
void zero_words(std::uint32_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    device_atomic_ref<std::uint32_t>(p[i]).store(0, relaxed);
}
void zero(std::uint64_t& w) {
  device_atomic_ref<std::uint64_t>(w).store(0, relaxed);
}
void zero(std::uint32_t& w) {
  device_atomic_ref<std::uint32_t>(w).store(0, relaxed);
}
}  // namespace

void queue_pair::reset() {
  const queue_stats before = stats_now();
  queue_stats& k = *carried_;
  auto add = [](std::uint64_t& to, std::uint64_t v) {
    std::atomic_ref<std::uint64_t>(to).fetch_add(v, std::memory_order_relaxed);
  };
  add(k.submitted, before.submitted);
  add(k.sq_doorbell_writes, before.sq_doorbell_writes);
  add(k.cq_doorbell_writes, before.cq_doorbell_writes);
  add(k.sq_head, before.sq_head);
  add(k.sq_tail, before.sq_tail);
  add(k.cq_head, before.cq_head);
  add(k.timeouts, before.timeouts);
  add(k.late_completions, before.late_completions);
  add(k.resets, 1);

  const queue_pointers& p = pointers_;
  queue_counters& c = *p.counters;
  zero(c.sq_ticket);
  zero(c.sq_tail);
  zero(c.sq_doorbell_writes);
  zero(c.sq_head);
  zero(c.cq_head);
  zero(c.cq_doorbell_writes);
  zero(c.timeouts);
  zero(c.late_completions);
  zero(c.invalid_completions);
  zero(c.abandoned);
  zero_words(p.turn_counters, p.sq_entries);
  zero_words(p.tail_markers, p.sq_entries);
  zero_words(p.cid_bits, p.cid_count / 32);
  zero_words(reinterpret_cast<std::uint32_t*>(p.boxes),
             std::size_t{p.cid_count} * sizeof(completion_box) / sizeof(std::uint32_t));
  // Last: the queue is open again (`failures` keeps counting; `users` is the gate's).
  device_atomic_ref<std::uint32_t>(c.failed).store(0, release);
}

queue_stats queue_pair::stats_now() const {
  auto load = [](std::uint64_t& w) { return device_atomic_ref<std::uint64_t>(w).load(relaxed); };
  queue_counters& c = *pointers_.counters;
  queue_stats s;
  s.submitted = load(c.sq_ticket);
  s.sq_doorbell_writes = load(c.sq_doorbell_writes);
  s.cq_doorbell_writes = load(c.cq_doorbell_writes);
  s.sq_head = load(c.sq_head);
  s.sq_tail = position_of(load(c.sq_tail));
  s.cq_head = position_of(load(c.cq_head));
  s.timeouts = load(c.timeouts);
  s.late_completions = load(c.late_completions);
  s.abandoned = device_atomic_ref<std::uint32_t>(c.abandoned).load(relaxed);
  s.failed = device_atomic_ref<std::uint32_t>(c.failed).load(relaxed) != 0;
  return s;
}

queue_stats queue_pair::stats() const {
  queue_stats s = stats_now();
  queue_stats& k = *carried_;
  auto load = [](std::uint64_t& w) {
    return std::atomic_ref<std::uint64_t>(w).load(std::memory_order_relaxed);
  };
  s.submitted += load(k.submitted);
  s.sq_doorbell_writes += load(k.sq_doorbell_writes);
  s.cq_doorbell_writes += load(k.cq_doorbell_writes);
  s.sq_head += load(k.sq_head);
  s.sq_tail += load(k.sq_tail);
  s.cq_head += load(k.cq_head);
  s.timeouts += load(k.timeouts);
  s.late_completions += load(k.late_completions);
  s.resets = load(k.resets);
  return s;
}

std::string queue_pair::dump_state() const {
  const queue_pointers& p = pointers_;
  auto load32 = [](std::uint32_t& w) { return device_atomic_ref<std::uint32_t>(w).load(relaxed); };
  auto locked = [](std::uint64_t& w) {
    return position_locked(device_atomic_ref<std::uint64_t>(w).load(relaxed)) ? 1 : 0;
  };
  const queue_stats s = stats();
  std::string out = fmt::format(
      "queue {}: sq_entries={} cq_entries={} tickets={} sq_tail={} sq_head={} cq_head={} "
      "sq_tail_locked={} cq_head_locked={} sq_doorbells={} cq_doorbells={}\n",
      p.qid, p.sq_entries, p.cq_entries, s.submitted, s.sq_tail, s.sq_head, s.cq_head,
      locked(p.counters->sq_tail), locked(p.counters->cq_head), s.sq_doorbell_writes,
      s.cq_doorbell_writes);
  std::uint32_t marked = 0, cids = 0;
  for (std::uint32_t i = 0; i < p.sq_entries; ++i) {
    if (load32(p.tail_markers[i]) != 0) {
      if (marked++ < 16)
        out += fmt::format("  sq slot {} marked, turn counter {}\n", i, load32(p.turn_counters[i]));
    }
  }
  std::uint32_t ready = 0, abandoned = 0, reserved = 0;
  for (std::uint32_t i = 0; i < p.cid_count; ++i) {
    const std::uint32_t st = load32(p.boxes[i].state);
    if (st == (box_ready | box_abandoned)) {
      ++reserved;  // late completion passed, ID left for the owner to reclaim
    } else {
      ready += (st & box_ready) != 0 ? 1 : 0;
      abandoned += (st & box_abandoned) != 0 ? 1 : 0;
    }
  }
  out += fmt::format("  boxes ready: {}; abandoned: {}; reserved for the owner: {}; failed: {}\n",
                     ready, abandoned, reserved, load32(p.counters->failed));
  for (std::uint32_t w = 0; w < p.cid_count / 32; ++w)
    cids += static_cast<std::uint32_t>(__builtin_popcount(load32(p.cid_bits[w])));
  out += fmt::format("  sq slots marked: {}; command IDs in use: {}\n", marked, cids);
  return out;
}

}  // namespace bam
