// The workload loop of nvm-block-bench's queue-pair backends (host and nvme).
#include "queue_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bam/detail/clock.hpp"
#include "bam/driver/queue_recovery.hpp"
#include "bam/harness/data_pattern.hpp"
#include "bam/harness/workload.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"
#include "bam/nvme/prp.hpp"
#include "bam/queue/doorbell.hpp"
#include "bam/queue/held_commands.hpp"
#include "cpu_threads.hpp"

namespace bam::tools {
namespace {

constexpr std::uint32_t page_log2 = 12;
constexpr std::uint64_t page_size = 1u << page_log2;
/// DMA memory of one thread for one SSD: data slots and one PRP list page per slot, from that
/// SSD's allocator (so its bus addresses are the ones that controller uses, IOMMU or not).
class slot_memory {
 public:
  slot_memory(dma_allocator& alloc, std::uint32_t slots, std::uint64_t slot_bytes)
      : slot_bytes_((slot_bytes + page_size - 1) / page_size * page_size),
        data_(alloc, slots * slot_bytes_),
        lists_(alloc, slots * page_size) {}

  std::uint8_t* slot(std::uint32_t s) const { return data_.as<std::uint8_t>() + s * slot_bytes_; }

  /// PRPs for `bytes` of slot `s` (one list page per slot: transfers up to 2 MiB).
  nvme::prp_pair prps(std::uint32_t s, std::uint64_t bytes) const {
    const std::uint64_t base = s * slot_bytes_;
    nvme::prp_pair out;
    const nvme::status st = nvme::build_prps(
        bytes, page_log2, [&](std::uint64_t off) { return data_.bus_address(base + off); },
        [&](std::uint32_t) {
          return nvme::prp_list_page{lists_.as<std::uint64_t>() + s * (page_size / 8),
                                     lists_.bus_address(s * page_size)};
        },
        out);
    if (!st.ok()) throw std::runtime_error("PRP build failed");
    return out;
  }

 private:
  std::uint64_t slot_bytes_;
  dma_buffer data_;
  dma_buffer lists_;
};

struct thread_result : thread_tally {
  std::vector<std::uint64_t> per_ssd;
};

/// DMA memory of threads that ended while a controller could still write into it (a command
/// that timed out and whose late completion was never claimed): kept until the queue pairs are
/// deleted, after which no controller moves data for them.
struct memory_graveyard {
  std::mutex mutex;
  std::vector<std::vector<slot_memory>> kept;
  void keep(std::vector<slot_memory> m) {
    std::lock_guard lock(mutex);
    kept.push_back(std::move(m));
  }
};

/// One phase (fill or measured run) of all threads.
struct phase {
  std::uint32_t threads = 1;
  std::uint32_t outstanding = 1;
  std::uint64_t io_size = 0;
  std::uint32_t lba_size = 512;
  std::uint32_t ssd_count = 1;
  std::uint64_t limit = 0;  ///< I/Os over all threads; 0 = none
  double duration_s = 0;    ///< 0 = none
  bool verify = false;
  std::uint64_t timeout_ns = 0;  ///< per command (command_timeout_ns)
  /// Times a failed I/O is issued again before it counts as failed (the verify fill: every block
  /// must hold the pattern; a dropped write comes back after its queue's recovery).
  std::uint32_t retries = 0;
  memory_graveyard* graveyard = nullptr;
  std::atomic<std::uint64_t>* progress = nullptr;
  /// next(thread, ticket, per-thread index) -> request
  std::function<io_request(std::uint32_t, std::uint64_t, std::uint64_t, io_stream&)> next;
  workload_params params;
};

/// Runs one phase on all threads; returns per-thread results.
template <class Doorbell>
std::vector<thread_result> run_phase(
    const phase& ph, const std::vector<std::vector<queue_pair_ref<Doorbell>>>& queues,
    const std::vector<queue_ssd>& ssds, std::uint32_t pairs_per_ssd) {
  run_gate gate(ph.limit);
  std::vector<thread_result> results(ph.threads);

  auto body = [&](std::uint32_t t) {
    thread_result& res = results[t];
    res.per_ssd.assign(ph.ssd_count, 0);
    std::vector<slot_memory> mem;
    // The commands submitted and not yet waited for: abandoned if the thread unwinds, so that
    // its queues' user counts drop and their recovery can go on (declared after `mem`, which
    // must outlive what the controller may still write: see the end of the body).
    held_commands<Doorbell> held(ph.outstanding);
    // Slots whose command timed out: the controller may still complete it and move data into
    // the slot, so it is reused only once the queue no longer holds the command's ID for it.
    std::vector<std::uint32_t> quarantined;
    try {
      mem.reserve(ssds.size());
      for (const queue_ssd& s : ssds)
        mem.emplace_back(*s.data_allocator, ph.outstanding, ph.io_size);
      io_stream stream(ph.params, t);
      std::uint64_t index = 0;
      const auto nlb = static_cast<std::uint32_t>(ph.io_size / ph.lba_size);
      struct slot_state {
        io_request req;
        std::uint16_t cid = 0;
        std::uint64_t submit_ns = 0;
        queue_pair_ref<Doorbell> q;
        std::uint32_t tries = 0;        ///< failed attempts of req so far
        std::uint64_t deferred_ns = 0;  ///< when it was deferred (its queue had failed)
        nvme::status last{};            ///< the status of its last failed attempt
      };
      std::vector<slot_state> slots(ph.outstanding);
      std::deque<std::uint32_t> fifo;
      // Slots whose request waits for its queue to come back from a failure (its recovery):
      // the thread holds nothing of that queue meanwhile, so the recovery can quiesce it. Each
      // is submitted once its queue works again, or a timeout after it was deferred (the queue
      // did not come back: the command fails at once and counts).
      std::vector<std::uint32_t> deferred;
      // Per SSD: a deferral on this thread's queue of it waited a whole timeout and the queue
      // did not come back (its recovery failed): later I/Os for it fail at once, not after a
      // timeout each, until the thread sees the queue work again.
      std::vector<char> written_off(ph.ssd_count, 0);

      auto submit = [&](std::uint32_t s) {
        slot_state& st = slots[s];
        const std::uint64_t slba = st.req.offset / ph.lba_size;
        if (!st.req.read) {
          fill_pattern(mem[st.req.ssd].slot(s), ph.lba_size, pattern_seed, st.req.ssd, slba, nlb);
        }
        const nvme::prp_pair prp = mem[st.req.ssd].prps(s, ph.io_size);
        nvme::command cmd =
            st.req.read ? nvme::read(1, slba, nlb, prp) : nvme::write(1, slba, nlb, prp);
        st.submit_ns = now_ns();
        st.cid = held.submit(s, st.q, cmd);
        fifo.push_back(s);
      };
      // A new request for slot s (tries == 0; false once the run's I/Os are all taken) or the
      // same again (after a failure); deferred while its queue is failed.
      auto issue = [&](std::uint32_t s) -> bool {
        slot_state& st = slots[s];
        if (st.tries == 0) {
          std::uint64_t ticket = 0;
          if (!gate.claim(&ticket)) return false;
          st.req = ph.next(t, ticket, index++, stream);
        }
        st.q = queues[st.req.ssd][t % pairs_per_ssd];
        const bool failed = st.q.failed();
        if (!failed) written_off[st.req.ssd] = 0;
        if (failed && written_off[st.req.ssd] == 0) {
          st.deferred_ns = now_ns();
          deferred.push_back(s);
        } else {
          submit(s);
        }
        return true;
      };
      /// Submits the deferred slots whose queue works again (or waited a timeout); true if any.
      auto resume = [&]() {
        bool any = false;
        const std::uint64_t now = now_ns();
        for (std::size_t k = 0; k < deferred.size();) {
          const std::uint32_t s = deferred[k];
          const bool failed = slots[s].q.failed();
          if (failed && now - slots[s].deferred_ns < ph.timeout_ns &&
              written_off[slots[s].req.ssd] == 0) {
            ++k;
            continue;
          }
          written_off[slots[s].req.ssd] = failed ? 1 : 0;
          deferred.erase(deferred.begin() + static_cast<std::ptrdiff_t>(k));
          submit(s);
          any = true;
        }
        return any;
      };
      /// Issues again the quarantined slots the queue has let go of; true if any was.
      auto release = [&]() {
        bool any = false;
        for (std::size_t k = 0; k < quarantined.size();) {
          const std::uint32_t s = quarantined[k];
          if (slots[s].q.abandoned(slots[s].cid)) {
            ++k;
            continue;
          }
          quarantined.erase(quarantined.begin() + static_cast<std::ptrdiff_t>(k));
          any = true;
          issue(s);
        }
        return any;
      };

      gate.arrive();
      gate.wait_start();
      res.start_ns = now_ns();
      res.end_ns = res.start_ns;
      for (std::uint32_t s = 0; s < ph.outstanding; ++s) {
        if (!issue(s)) break;
      }
      std::uint64_t idle_since = 0;  // nothing in flight, only quarantined or deferred slots
      while (!fifo.empty() || !deferred.empty() || !quarantined.empty()) {
        if (!quarantined.empty()) release();
        if (!deferred.empty()) resume();
        if (fifo.empty()) {
          // Nothing in flight: the thread holds no command, so it may wait here for its queues'
          // recovery (deferred slots) and for the queues to let go of quarantined slots (the
          // watchdog gives an abandoned ID back within about a timeout: an Abort, else the
          // queue's recreation). What is still quarantined two timeouts later is given up: a
          // failed I/O if it was to be tried again (the thread ends, bounded).
          const std::uint64_t now = now_ns();
          if (idle_since == 0) idle_since = now;
          if (deferred.empty() && now - idle_since >= 2 * ph.timeout_ns) {
            for (const std::uint32_t s : quarantined) {
              const slot_state& st = slots[s];
              if (st.tries == 0) continue;  // its failure is counted already
              res.io_failed(st.req.read ? res.read : res.write,
                            std::string(nvme::status_name(st.last)),
                            st.last == nvme::sc::host_timeout,
                            fmt::format("{} of SSD {} at byte {} failed: {}; not tried again: its "
                                        "queue still held the command",
                                        st.req.read ? "read" : "write", st.req.ssd, st.req.offset,
                                        nvme::describe(st.last)));
            }
            break;
          }
          std::this_thread::sleep_for(std::chrono::microseconds(50));
          continue;
        }
        idle_since = 0;
        // The oldest command, a timeout at most; but while it is not back, a command on a queue
        // that failed meanwhile is collected first (its wait ends at once): the thread then
        // holds nothing of that queue, whose recovery waits for its users, while it waits on
        // another queue.
        const std::uint64_t deadline = now_ns() + ph.timeout_ns;
        std::uint32_t s = fifo.front();
        for (backoff bo;; bo.pause()) {
          const auto failed = std::find_if(fifo.begin(), fifo.end(),
                                           [&](std::uint32_t k) { return slots[k].q.failed(); });
          if (failed != fifo.end()) {
            s = *failed;
            break;
          }
          if (held.done(s) || now_ns() >= deadline) break;
        }
        fifo.erase(std::find(fifo.begin(), fifo.end(), s));
        slot_state& st = slots[s];
        const std::uint64_t waited = now_ns();
        const nvme::completion cqe = held.wait_for(s, waited >= deadline ? 1 : deadline - waited);
        const std::uint64_t end = now_ns();
        direction_result& d = st.req.read ? res.read : res.write;
        const nvme::status status = cqe.status();
        // A wait that gave up (a timeout, or a failed queue) may leave the command with the
        // controller: the slot waits in quarantine while the queue holds the command's ID.
        const bool quarantine = !status.ok() && st.q.abandoned(st.cid);
        if (!status.ok()) {
          st.last = status;
          if (st.tries < ph.retries) {
            // Issued again once the queue let go of the slot (if it holds it), and once the
            // queue works again (deferred, if its recovery is under way). The thread never
            // waits for that here: it goes on with its other commands, whose waits end at once
            // on a failed queue, so it holds nothing the recovery would wait for.
            ++st.tries;
          } else {
            st.tries = 0;
            res.io_failed(
                d, std::string(nvme::status_name(status)), status == nvme::sc::host_timeout,
                fmt::format("{} of SSD {} at byte {} failed: {}", st.req.read ? "read" : "write",
                            st.req.ssd, st.req.offset, nvme::describe(status)));
          }
          if (quarantine) quarantined.push_back(s);
        } else {
          st.tries = 0;
          d.lat.add(end - st.submit_ns);
          ++d.ios;
          d.io_bytes += ph.io_size;
          ++res.per_ssd[st.req.ssd];
          if (ph.verify && st.req.read) {
            res.verify_errors += check_pattern(mem[st.req.ssd].slot(s), ph.lba_size, pattern_seed,
                                               st.req.ssd, st.req.offset / ph.lba_size, nlb);
            ++res.verified;
          }
        }
        res.end_ns = end;
        if (ph.progress) ph.progress->fetch_add(1, std::memory_order_relaxed);
        if (!quarantine) issue(s);
      }
    } catch (const std::exception& e) {
      res.error = e.what();
      gate.arrive();
    }
    // Commands never waited for (the thread unwound) are abandoned now; their memory, like the
    // quarantined slots', may still be written by a controller: kept until the queue pairs go.
    if ((held.abandon_all() != 0 || !quarantined.empty()) && ph.graveyard != nullptr)
      ph.graveyard->keep(std::move(mem));
  };
  gate.run(ph.threads, ph.duration_s, body);
  return results;
}

}  // namespace

template <class Doorbell>
run_result run_queue_workload(const run_config& c, const run_hooks& hooks,
                              const std::vector<queue_ssd>& ssds) {
  const workload_config& w = c.workload;
  const std::uint32_t n = c.storage.ssd_count;
  // Memory a late completion could still write into outlives the queue pairs.
  memory_graveyard graveyard;
  // Queue pairs: pairs_per_ssd per SSD, thread t uses pair t % pairs_per_ssd of each SSD.
  std::vector<std::vector<io_queue_pair>> pairs(n);
  std::vector<std::vector<queue_pair_ref<Doorbell>>> refs(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t p = 0; p < c.queues.pairs_per_ssd; ++p) {
      pairs[i].push_back(ssds[i].driver->create_io_queue_pair(c.queues.depth));
      refs[i].push_back(pairs[i].back().template ref<Doorbell>());
    }
  }
  // Commands whose wait gives up: Abort, else the queue is recreated (before `pairs` goes).
  queue_recovery recovery(recovery_options{command_timeout_ns(c)});
  for (std::uint32_t i = 0; i < n; ++i) {
    for (io_queue_pair& p : pairs[i])
      recovery.watch(*ssds[i].driver, p);
  }
  recovery.start();

  const workload_params params = workload_params_of(c, n);

  run_result out;
  nlohmann::json stats = nlohmann::json::object();
  if (hooks.verify) {
    // Fill every SSD's dataset with the pattern: sequential writes, one ticket per chunk.
    phase fill;
    fill.threads = w.threads;
    fill.outstanding = w.outstanding;
    fill.io_size = w.io_size;
    fill.lba_size = c.storage.lba_size;
    fill.ssd_count = n;
    fill.limit = (c.dataset() / w.io_size) * n;
    fill.timeout_ns = command_timeout_ns(c);
    fill.retries = 8;
    fill.graveyard = &graveyard;
    fill.params = params;
    fill.next = [n, io = w.io_size](std::uint32_t, std::uint64_t ticket, std::uint64_t,
                                    io_stream&) {
      return io_request{static_cast<std::uint32_t>(ticket % n), (ticket / n) * io, false};
    };
    const auto t0 = now_ns();
    for (const thread_result& r : run_phase(fill, refs, ssds, c.queues.pairs_per_ssd)) {
      if (!r.error.empty()) throw std::runtime_error("verify fill: " + r.error);
      if (!r.first_io_error.empty()) throw std::runtime_error("verify fill: " + r.first_io_error);
    }
    stats["verify_fill_s"] = double(now_ns() - t0) / 1e9;
    // The fill's recoveries (the report's are the measured phase's): its dropped writes were
    // written again after them.
    const recovery_counts f = recovery.counts();
    stats["verify_fill_recovery"] = {{"aborts_sent", f.aborts_sent},
                                     {"aborts_found", f.aborts_found},
                                     {"recoveries", f.recoveries},
                                     {"queue_recreations", f.queue_recreations},
                                     {"recovery_failures", f.recovery_failures},
                                     {"recovery_ms", static_cast<double>(f.recovery_ns) / 1e6}};
  }
  const recovery_counts recovery_before = recovery.counts();
  std::vector<queue_stats> before;
  for (auto& per_ssd : pairs) {
    for (auto& p : per_ssd)
      before.push_back(p.queue().stats());
  }

  phase ph;
  ph.threads = w.threads;
  ph.outstanding = w.outstanding;
  ph.io_size = w.io_size;
  ph.lba_size = c.storage.lba_size;
  ph.ssd_count = n;
  ph.limit = w.ios;
  ph.duration_s = w.duration_s;
  ph.verify = hooks.verify;
  ph.timeout_ns = command_timeout_ns(c);
  ph.graveyard = &graveyard;
  ph.progress = hooks.ios_done;
  ph.params = params;
  ph.next = [](std::uint32_t, std::uint64_t, std::uint64_t i, io_stream& s) { return s.next(i); };
  const std::vector<thread_result> results = run_phase(ph, refs, ssds, c.queues.pairs_per_ssd);
  recovery.stop();
  out.recovery = recovery.counts().since(recovery_before);

  const verify_counts verified = merge_tallies(results, out);
  out.per_ssd_ios.assign(n, 0);
  for (const thread_result& r : results) {
    for (std::uint32_t i = 0; i < n && i < r.per_ssd.size(); ++i)
      out.per_ssd_ios[i] += r.per_ssd[i];
  }

  // Queue statistics of the measured phase.
  nlohmann::json qs = nlohmann::json::array();
  std::uint64_t submitted = 0;
  std::uint64_t doorbells = 0;
  std::size_t k = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (auto& p : pairs[i]) {
      const queue_stats a = p.queue().stats();
      const queue_stats& b = before[k++];
      const std::uint64_t sub = a.submitted - b.submitted;
      const std::uint64_t sq = a.sq_doorbell_writes - b.sq_doorbell_writes;
      const std::uint64_t cq = a.cq_doorbell_writes - b.cq_doorbell_writes;
      submitted += sub;
      doorbells += sq + cq;
      qs.push_back({{"ssd", i},
                    {"qid", p.qid()},
                    {"entries", p.entries()},
                    {"commands", sub},
                    {"sq_doorbell_writes", sq},
                    {"cq_doorbell_writes", cq},
                    {"recreations", a.resets - b.resets}});
    }
  }
  stats["queues"] = qs;
  stats["doorbell_writes_per_command"] = submitted ? double(doorbells) / double(submitted) : 0.0;
  stats["timeout_ns"] = ph.timeout_ns;
  if (hooks.verify) add_verify_stats(stats, out, verified);
  stats.update(out.tool_stats);  // merge_tallies' first_io_error
  out.tool_stats = stats;
  return out;
}

void check_outstanding_fits(const run_config& c) {
  const std::uint64_t sharing =
      (c.workload.threads + c.queues.pairs_per_ssd - 1) / c.queues.pairs_per_ssd;
  if (sharing * c.workload.outstanding >= c.queues.depth) {
    const std::uint64_t max_out = (c.queues.depth - 1) / sharing;
    throw config_error(
        "workload.outstanding",
        fmt::format("{} with {} threads per queue pair needs queues.depth > {}, allowed [1, {}] "
                    "(or raise queues.depth / queues.pairs_per_ssd)",
                    c.workload.outstanding, sharing, sharing * c.workload.outstanding,
                    max_out == 0 ? 1 : max_out));
  }
}

template run_result run_queue_workload<memory_doorbell>(const run_config&, const run_hooks&,
                                                        const std::vector<queue_ssd>&);
template run_result run_queue_workload<mmio_doorbell>(const run_config&, const run_hooks&,
                                                      const std::vector<queue_ssd>&);

}  // namespace bam::tools
