// The host driver's queue recovery watchdog (bam/driver/queue_recovery.hpp): Abort of commands
// whose wait gave up, and a failed queue deleted, created again and reset.
#include "bam/driver/queue_recovery.hpp"

#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <stdexcept>

#include "bam/detail/atomic.hpp"
#include "bam/detail/clock.hpp"
#include "bam/queue/doorbell.hpp"

namespace bam {

namespace {
/// Moves the head of `pair`'s queue over what was posted, ringing its CQ doorbell the way the
/// driver's queues do (MMIO for a real BAR).
void poll(const controller_driver& d, const io_queue_pair& pair) {
  if (d.options().mmio_doorbells) {
    (void)pair.ref<mmio_doorbell>().poll();
  } else {
    (void)pair.ref<memory_doorbell>().poll();
  }
}
}  // namespace

queue_recovery::queue_recovery(recovery_options o) : opts_(o) {}

queue_recovery::~queue_recovery() {
  stop();
}

void queue_recovery::watch(controller_driver& driver, io_queue_pair& pair) {
  if (!pair.valid()) throw std::invalid_argument("queue_recovery::watch: an empty io_queue_pair");
  if (!pair.driver_rings()) {
    throw std::invalid_argument(fmt::format(
        "queue_recovery::watch: queue {}'s rings were allocated by its owner "
        "(create_io_queue_pair with a rings allocator): the watchdog cannot recreate it (it "
        "zeroes and reuses the driver's rings, and counts only host threads); recover such a "
        "queue through its owner",
        pair.qid()));
  }
  auto w = std::make_unique<watched>();
  w->driver = &driver;
  w->pair = &pair;
  pair.ref().set_owner_reclaims(true);
  std::lock_guard lock(mutex_);
  queues_.push_back(std::move(w));
}

void queue_recovery::start() {
  if (thread_.joinable()) return;
  stop_.store(false);
  thread_ = std::thread([this] {
    while (!stop_.load(std::memory_order_acquire)) {
      pass();
      std::this_thread::sleep_for(std::chrono::microseconds(opts_.period_us));
    }
  });
}

void queue_recovery::stop() {
  stop_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
  std::lock_guard pass_lock(pass_mutex_);
  std::vector<std::unique_ptr<watched>> ended;
  {
    std::lock_guard lock(mutex_);
    ended.swap(queues_);
  }
  for (const auto& w : ended) {
    if (w->recovering && !w->dead && w->pair->valid()) try_recover(*w);  // threads just left?
    if (w->recovering) {
      counts_.recovery_failures.fetch_add(1);
      note(fmt::format("queue {}: left failed: threads still used it when the watchdog stopped",
                       w->pair->qid()));
    }
    if (w->pair->valid()) w->pair->ref().set_owner_reclaims(false);
  }
}

void queue_recovery::pass() {
  std::lock_guard pass_lock(pass_mutex_);
  std::vector<watched*> list;
  {
    std::lock_guard lock(mutex_);
    list.reserve(queues_.size());
    for (const auto& w : queues_)
      list.push_back(w.get());
  }
  for (watched* w : list)
    look(*w);
}

recovery_counts queue_recovery::counts() const {
  recovery_counts c;
  c.aborts_sent = counts_.aborts_sent.load();
  c.aborts_found = counts_.aborts_found.load();
  c.abort_failures = counts_.abort_failures.load();
  c.recoveries = counts_.recoveries.load();
  c.queue_recreations = counts_.queue_recreations.load();
  c.recovery_failures = counts_.recovery_failures.load();
  c.recovery_ns = counts_.recovery_ns.load();
  return c;
}

std::string queue_recovery::last_failure() const {
  std::lock_guard lock(mutex_);
  return last_failure_;
}

void queue_recovery::note(const std::string& msg) {
  std::lock_guard lock(mutex_);
  last_failure_ = msg;
}

void queue_recovery::look(watched& w) {
  if (w.dead || !w.pair->valid()) return;
  if (w.recovering) {
    try_recover(w);
    return;
  }
  const queue_pointers& p = w.pair->queue().pointers();
  const auto q = w.pair->ref();
  if (q.failed()) {
    begin_recovery(w);
    return;
  }
  const device_atomic_ref<std::uint32_t> abandoned_count(p.counters->abandoned);
  if (abandoned_count.load(relaxed) == 0 && w.pending.empty()) return;

  // Late completions first: what they free needs no Abort. An ID abandoned now stays so (or
  // reserved) until this thread reclaims it: the Aborts below name no other command. Only
  // then is the count compared with the limit: IDs whose completions came late are no loss.
  poll(*w.driver, *w.pair);
  reclaim(w);
  const std::uint32_t abandoned = abandoned_count.load(relaxed);
  if (abandoned > static_cast<double>(p.cid_count) * opts_.abandoned_limit) {
    begin_recovery(w);
    return;
  }

  bool sent = false;
  if (abandoned != 0) {
    for (std::uint32_t cid = 0; cid < p.cid_count; ++cid) {
      const auto id = static_cast<std::uint16_t>(cid);
      if (!q.abandoned(id) || w.pending.count(id) != 0) continue;
      pending_abort& a = w.pending[id];
      a.since_ns = now_ns();
      abort(w, id, a);
      if (w.dead || q.failed()) break;
      sent = true;
    }
  }
  if (!w.dead && !q.failed()) {
    // An Abort that found nothing may have come before the controller fetched the command:
    // once more half a timeout later. An ID still abandoned a timeout after its Abort: the
    // controller does not give the command back, so the queue is recovered.
    const std::uint64_t now = now_ns();
    for (auto& [cid, a] : w.pending) {
      if (!a.found && !a.retried && now - a.since_ns > opts_.timeout_ns / 2) {
        a.retried = true;
        abort(w, cid, a);
        sent = true;
        if (w.dead || q.failed()) break;
      } else if (now - a.since_ns > opts_.timeout_ns) {
        q.fail();
        break;
      }
    }
  }
  if (q.failed()) {
    begin_recovery(w);
    return;
  }
  if (sent) {  // pass the Abort Requested completions now, and give their IDs back
    poll(*w.driver, *w.pair);
    reclaim(w);
  }
}

void queue_recovery::reclaim(watched& w) {
  const queue_pointers& p = w.pair->queue().pointers();
  const auto q = w.pair->ref();
  if (device_atomic_ref<std::uint32_t>(p.counters->abandoned).load(relaxed) != 0) {
    for (std::uint32_t cid = 0; cid < p.cid_count; ++cid)
      (void)q.reclaim(static_cast<std::uint16_t>(cid));
  }
  for (auto it = w.pending.begin(); it != w.pending.end();)
    it = q.abandoned(it->first) ? std::next(it) : w.pending.erase(it);
}

void queue_recovery::abort(watched& w, std::uint16_t cid, pending_abort& a) {
  counts_.aborts_sent.fetch_add(1);
  try {
    if (w.driver->abort(w.pair->qid(), cid)) {
      a.found = true;
      counts_.aborts_found.fetch_add(1);
    }
  } catch (const std::exception&) {
    // No answer to the Abort: the queue cannot count on this command coming back.
    counts_.abort_failures.fetch_add(1);
    w.pair->ref().fail();
  }
}

void queue_recovery::begin_recovery(watched& w) {
  counts_.recoveries.fetch_add(1);
  w.pending.clear();
  w.recovering = true;
  w.overdue = false;
  w.failed_ns = now_ns();
  try_recover(w);
}

void queue_recovery::try_recover(watched& w) {
  try {
    if (!w.pair->try_recover()) {
      // Some thread still holds a command ID of the queue: looked at again at the next pass.
      if (!w.overdue && now_ns() - w.failed_ns > opts_.timeout_ns) {
        w.overdue = true;
        note(
            fmt::format("queue {}: threads still used it {} ms after it failed (recreated once "
                        "they leave)",
                        w.pair->qid(), opts_.timeout_ns / 1'000'000));
      }
      return;
    }
    w.recovering = false;
    counts_.recovery_ns.fetch_add(now_ns() - w.failed_ns);
    counts_.queue_recreations.fetch_add(1);
  } catch (const std::exception& e) {
    w.recovering = false;
    w.dead = true;  // the admin queue cannot recreate it: it stays failed
    counts_.recovery_failures.fetch_add(1);
    note(fmt::format("queue {}: {}", w.pair->qid(), e.what()));
  }
}

}  // namespace bam
