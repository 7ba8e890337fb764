// Host owner of a queue pair's bookkeeping: allocation, statistics and diagnostic dumps.
#include "bam/queue/queue_pair.hpp"

#include <fmt/format.h>

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

void queue_pair::reset() {
  std::memset(state_.get(), 0, state_bytes_);
}

queue_stats queue_pair::stats() const {
  auto load = [](std::uint64_t& w) { return device_atomic_ref<std::uint64_t>(w).load(relaxed); };
  queue_counters& c = *pointers_.counters;
  queue_stats s;
  s.submitted = load(c.sq_ticket);
  s.sq_doorbell_writes = load(c.sq_doorbell_writes);
  s.cq_doorbell_writes = load(c.cq_doorbell_writes);
  s.sq_head = load(c.sq_head);
  s.sq_tail = load(c.sq_tail);
  s.cq_head = load(c.cq_head);
  s.timeouts = load(c.timeouts);
  s.late_completions = load(c.late_completions);
  s.failed = device_atomic_ref<std::uint32_t>(c.failed).load(relaxed) != 0;
  return s;
}

std::string queue_pair::dump_state() const {
  const queue_pointers& p = pointers_;
  auto load32 = [](std::uint32_t& w) { return device_atomic_ref<std::uint32_t>(w).load(relaxed); };
  const queue_stats s = stats();
  std::string out = fmt::format(
      "queue {}: sq_entries={} cq_entries={} tickets={} sq_tail={} sq_head={} cq_head={} "
      "tail_lock={} cq_lock={} sq_doorbells={} cq_doorbells={}\n",
      p.qid, p.sq_entries, p.cq_entries, s.submitted, s.sq_tail, s.sq_head, s.cq_head,
      load32(p.counters->tail_lock), load32(p.counters->cq_lock), s.sq_doorbell_writes,
      s.cq_doorbell_writes);
  std::uint32_t marked = 0, cids = 0;
  for (std::uint32_t i = 0; i < p.sq_entries; ++i) {
    if (load32(p.tail_markers[i]) != 0) {
      if (marked++ < 16)
        out += fmt::format("  sq slot {} marked, turn counter {}\n", i, load32(p.turn_counters[i]));
    }
  }
  std::uint32_t ready = 0, abandoned = 0;
  for (std::uint32_t i = 0; i < p.cid_count; ++i) {
    const std::uint32_t st = load32(p.boxes[i].state);
    ready += (st & box_ready) != 0 ? 1 : 0;
    abandoned += (st & box_abandoned) != 0 ? 1 : 0;
  }
  out += fmt::format("  boxes ready: {}; abandoned: {}; failed: {}\n", ready, abandoned,
                     load32(p.counters->failed));
  for (std::uint32_t w = 0; w < p.cid_count / 32; ++w)
    cids += static_cast<std::uint32_t>(__builtin_popcount(load32(p.cid_bits[w])));
  out += fmt::format("  sq slots marked: {}; command IDs in use: {}\n", marked, cids);
  return out;
}

}  // namespace bam
