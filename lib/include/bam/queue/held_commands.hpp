// bam/queue/held_commands.hpp: API. The commands a host thread has submitted and not yet waited
// for, one per slot of the thread's own: an RAII guard. Each holds its command ID, and with it
// one count of its queue's users (queue_pair_ref), until its wait returns. A thread that unwinds
// between submit and wait (an exception) would keep those counts up for ever, and the queue's
// recovery (queue_pair::quiesce, bam::queue_recovery) would wait for it for ever: the guard's
// destructor abandons every command still held (queue_pair_ref::abandon), so the counts drop.
// The memory those commands named may still be written by the controller while abandoned()
// holds: the caller keeps it (abandon_all() says whether anything was abandoned). Host only.
#pragma once
#include <cstdint>
#include <vector>

#include "bam/detail/expects.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_pair_ref.hpp"

namespace bam {

template <class Doorbell = memory_doorbell>
class held_commands {
 public:
  using queue_type = queue_pair_ref<Doorbell>;

  explicit held_commands(std::uint32_t slots) : slots_(slots) {}
  ~held_commands() { (void)abandon_all(); }
  held_commands(const held_commands&) = delete;
  held_commands& operator=(const held_commands&) = delete;

  /// Submits `cmd` on `q` for `slot`, which must hold nothing (std::logic_error otherwise; see
  /// queue_pair_ref::submit for `timeout_ns`). Returns the command ID; no_cid (nothing held)
  /// when the queue failed.
  std::uint16_t submit(std::uint32_t slot, queue_type q, nvme::command& cmd,
                       std::uint64_t timeout_ns = 0) {
    BAM_EXPECTS(slot < slots_.size() && !slots_[slot].held,
                "held_commands::submit: a slot out of range or already holding a command");
    const std::uint16_t cid = q.submit(cmd, timeout_ns);
    if (cid != queue_type::no_cid) slots_[slot] = {q, cid, true};
    return cid;
  }

  /// Waits for the command of `slot` (queue_pair_ref::wait_for; `timeout_ns` 0: no bound) and
  /// returns its completion; the slot holds nothing after. A slot holding nothing (its submit
  /// returned no_cid): sc::host_queue_failed at once.
  nvme::completion wait_for(std::uint32_t slot, std::uint64_t timeout_ns) {
    BAM_EXPECTS(slot < slots_.size(), "held_commands::wait_for: a slot out of range");
    entry& e = slots_[slot];
    if (!e.held) return queue_type{}.wait_for(queue_type::no_cid, 0);
    e.held = false;
    return e.q.wait_for(e.cid, timeout_ns);
  }

  bool holds(std::uint32_t slot) const { return slot < slots_.size() && slots_[slot].held; }

  /// Without waiting: true when wait_for(slot) would return at once (the command completed, its
  /// queue failed, or the slot holds nothing).
  bool done(std::uint32_t slot) const {
    BAM_EXPECTS(slot < slots_.size(), "held_commands::done: a slot out of range");
    const entry& e = slots_[slot];
    return !e.held || e.q.failed() || e.q.completed(e.cid);
  }

  /// Abandons every command still held (their late completions free the IDs; until then
  /// abandoned() holds for them). Returns how many there were.
  std::uint32_t abandon_all() noexcept {
    std::uint32_t n = 0;
    for (entry& e : slots_) {
      if (!e.held) continue;
      e.held = false;
      e.q.abandon(e.cid);
      ++n;
    }
    return n;
  }

 private:
  struct entry {
    queue_type q{};
    std::uint16_t cid = queue_type::no_cid;
    bool held = false;
  };
  std::vector<entry> slots_;
};

}  // namespace bam
