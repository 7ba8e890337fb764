// bam/queue/queue_pair.hpp: host owner of a BaM queue pair's bookkeeping.
// The controller side (driver or test) creates the rings and doorbells and describes them in a
// queue_pair_desc; queue_pair adds the turn counters, markers, locks and command-ID pool in host
// memory and hands out queue_pair_ref handles for host threads.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "bam/queue/queue_pair_ref.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam {

/// What the controller side created for one queue pair.
struct queue_pair_desc {
  nvme::command* sq = nullptr;  ///< zero-filled ring of sq_entries
  std::uint32_t sq_entries = 0;
  nvme::completion* cq = nullptr;  ///< zero-filled ring of cq_entries
  std::uint32_t cq_entries = 0;
  std::uint32_t* sq_doorbell = nullptr;
  std::uint32_t* cq_doorbell = nullptr;
  std::uint16_t qid = 0;
};

/// Statistics read off a queue's counters.
struct queue_stats {
  std::uint64_t submitted = 0;           ///< tickets taken (GPU: also by submissions that
                                         ///< found the queue failed)
  std::uint64_t sq_doorbell_writes = 0;  ///< coalesced SQ tail doorbell writes
  std::uint64_t cq_doorbell_writes = 0;  ///< coalesced CQ head doorbell writes
  std::uint64_t sq_head = 0;             ///< virtual positions
  std::uint64_t sq_tail = 0;
  std::uint64_t cq_head = 0;
  std::uint64_t timeouts = 0;          ///< waits that gave up
  std::uint64_t late_completions = 0;  ///< completions passed for a waiter that gave up
  std::uint32_t abandoned = 0;         ///< command IDs abandoned and not yet given back (now)
  std::uint64_t resets = 0;            ///< times reset() cleared the queue
  bool failed = false;                 ///< the queue was failed (see queue_pair_ref)
};

/// Move-only owner of one queue pair's host-memory bookkeeping.
class queue_pair {
 public:
  /// Expects (BAM_EXPECTS: std::logic_error) sizes in [min_queue_entries, max_queue_entries] and
  /// every pointer given.
  explicit queue_pair(const queue_pair_desc& desc);
  queue_pair(queue_pair&&) noexcept = default;
  queue_pair& operator=(queue_pair&&) noexcept = default;
  queue_pair(const queue_pair&) = delete;
  queue_pair& operator=(const queue_pair&) = delete;
  ~queue_pair() = default;

  template <class Doorbell = memory_doorbell>
  queue_pair_ref<Doorbell> ref() const {
    return queue_pair_ref<Doorbell>(pointers_);
  }
  const queue_pointers& pointers() const { return pointers_; }

  /// Fails the queue (every waiter returns sc::host_queue_failed, every submitter no_cid) and
  /// waits until no host thread uses it: none in a submission, every command ID handed out
  /// waited for (queue_pair_ref's user count). True once that holds; false after `timeout_ns`
  /// (0: wait forever), e.g. when a thread holds an ID it does not wait for: the queue stays
  /// failed. GPU threads are not counted: quiesce only queues that host threads use.
  bool quiesce(std::uint64_t timeout_ns) const;
  /// quiesce() without waiting: fails the queue (counted in `failures` only if it was not
  /// failed yet) and says whether no host thread uses it now. For a watchdog that must not
  /// block on one queue while others need it.
  bool try_quiesce() const;

  /// Clears the bookkeeping (positions, locks, markers, command IDs and their boxes, then the
  /// failed mark): the host half of resetting a failed queue. Only after quiesce() returned
  /// true, and after the controller side was recreated too (rings zeroed, doorbells at 0), e.g.
  /// by deleting and recreating the queue pair through the admin queue. Threads may meanwhile
  /// try the queue (they find it failed and leave) or ask abandoned(), which turns false. The
  /// statistics carry on: stats() adds what the queue counted before.
  void reset();

  /// A consistent-enough snapshot for reports (relaxed reads while threads run), summed over
  /// every reset.
  queue_stats stats() const;
  /// Human-readable dump of counters, markers and locks: for watchdog diagnostics.
  std::string dump_state() const;

 private:
  struct free_aligned {
    void operator()(void* p) const noexcept;
  };
  /// The counters' statistics as they were at the last reset, and the resets.
  queue_stats stats_now() const;
  std::unique_ptr<void, free_aligned> state_;
  std::unique_ptr<queue_stats> carried_ = std::make_unique<queue_stats>();
  std::size_t state_bytes_ = 0;
  queue_pointers pointers_;
};

}  // namespace bam
