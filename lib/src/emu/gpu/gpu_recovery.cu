// The host driver's watchdog over GPU-emulated drives' I/O queues (gpu_recovery.hpp).
#include "gpu_recovery.hpp"

#include <chrono>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "bam/detail/clock.hpp"
#include "bam/detail/cuda.hpp"
#include "bam/nvme/commands.hpp"

namespace bam::emu::gpu::detail {
namespace {

/// The two counter lines the watchdog reads: `abandoned` (with `timeouts`) and `failed`.
constexpr std::size_t lines_at = offsetof(queue_counters, timeouts);
constexpr std::size_t lines_bytes = 256;
static_assert(lines_at % 128 == 0 && offsetof(queue_counters, abandoned) < lines_at + 128);
static_assert(offsetof(queue_counters, failed) == lines_at + 128);
constexpr std::size_t box_state_at = offsetof(completion_box, state);

void check(cudaError_t e, const char* what) {
  cuda_check(e, std::string("gpu_recovery: ") + what);
}

}  // namespace

gpu_recovery::gpu_recovery(drive_layout layout, recovery_options o)
    : layout_(layout), state_(layout.sq_entries, layout.cq_entries), opts_(o) {
  try {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream");
    check(cudaHostAlloc(reinterpret_cast<void**>(&lines_), std::size_t{layout.queues} * lines_bytes,
                        cudaHostAllocDefault),
          "cudaHostAlloc");
    check(
        cudaHostAlloc(reinterpret_cast<void**>(&states_),
                      std::size_t{state_.cid_count} * sizeof(std::uint32_t), cudaHostAllocDefault),
        "cudaHostAlloc");
    check(
        cudaHostAlloc(reinterpret_cast<void**>(&one_), sizeof(std::uint32_t), cudaHostAllocDefault),
        "cudaHostAlloc");
  } catch (...) {
    release();  // no destructor runs for a constructor that throws
    throw;
  }
  *one_ = 1;
}

gpu_recovery::~gpu_recovery() {
  stop();
  release();
}

void gpu_recovery::release() {
  if (lines_ != nullptr) cudaFreeHost(lines_);
  if (states_ != nullptr) cudaFreeHost(states_);
  if (one_ != nullptr) cudaFreeHost(one_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  lines_ = nullptr;
  states_ = nullptr;
  one_ = nullptr;
  stream_ = nullptr;
}

void gpu_recovery::start(std::vector<drive> drives) {
  stop();
  drives_ = std::move(drives);
  queues_.assign(drives_.size() * layout_.queues, watched{});
  stop_.store(false);
  thread_ = std::thread([this] {
    while (!stop_.load(std::memory_order_acquire)) {
      try {
        pass();
      } catch (const std::exception& e) {
        note(e.what());  // a CUDA error: the watchdog ends, the run goes on without it
        counts_.recovery_failures.fetch_add(1);
        return;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(opts_.period_us));
    }
  });
}

void gpu_recovery::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  thread_.join();
  try {
    pass();  // Aborts for the last waits that gave up
  } catch (const std::exception& e) {
    note(e.what());
  }
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    if (!queues_[i].open) continue;
    counts_.recovery_failures.fetch_add(1);
    note("drive " + std::to_string(i / layout_.queues) + " queue " +
         std::to_string(i % layout_.queues + 1) + ": failed: " + queues_[i].reason +
         "; left so until the drives stopped (GPU threads are not counted as users: a GPU queue "
         "is recreated when its drives start again)");
  }
  queues_.clear();
}

recovery_counts gpu_recovery::counts() const {
  recovery_counts c;
  c.aborts_sent = counts_.aborts_sent.load();
  c.aborts_found = counts_.aborts_found.load();
  c.abort_failures = counts_.abort_failures.load();
  c.recoveries = counts_.recoveries.load();
  c.recovery_failures = counts_.recovery_failures.load();
  return c;
}

std::string gpu_recovery::last_failure() const {
  std::lock_guard lock(mutex_);
  return last_failure_;
}

void gpu_recovery::note(const std::string& msg) {
  std::lock_guard lock(mutex_);
  last_failure_ = msg;
}

void gpu_recovery::copy_from(void* dst, std::size_t dpitch, const std::byte* src,
                             std::size_t spitch, std::size_t width, std::size_t rows) {
  check(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToHost, stream_),
        "read queue state");
  check(cudaStreamSynchronize(stream_), "read queue state");
}

void gpu_recovery::pass() {
  for (std::uint32_t d = 0; d < drives_.size(); ++d) {
    copy_from(lines_, lines_bytes, drives_[d].block + layout_.states + state_.counters + lines_at,
              layout_.state_bytes, lines_bytes, layout_.queues);
    for (std::uint32_t q = 0; q < layout_.queues; ++q) {
      const std::byte* l = lines_ + std::size_t{q} * lines_bytes;
      std::uint32_t abandoned = 0, failed = 0;
      std::memcpy(&abandoned, l + offsetof(queue_counters, abandoned) - lines_at, 4);
      std::memcpy(&failed, l + 128, 4);
      look(d, q, abandoned, failed != 0);
    }
  }
}

void gpu_recovery::look(std::uint32_t d, std::uint32_t q, std::uint32_t abandoned, bool failed) {
  watched& w = queues_[std::size_t{d} * layout_.queues + q];
  if (w.open) return;
  if (failed) {  // by itself (past half of its IDs abandoned, a stalled submission)
    fail(d, q, "failed by its users");
    return;
  }
  if (abandoned == 0 && w.pending.empty()) return;
  if (abandoned > static_cast<double>(state_.cid_count) * opts_.abandoned_limit) {
    fail(d, q,
         std::to_string(abandoned) + " of " + std::to_string(state_.cid_count) +
             " command IDs abandoned");
    return;
  }
  copy_from(states_, sizeof(std::uint32_t), box_state(d, q, 0), sizeof(completion_box),
            sizeof(std::uint32_t), state_.cid_count);
  auto is_abandoned = [this](std::uint32_t cid) {
    const std::uint32_t st = states_[cid];
    return (st & box_abandoned) != 0 && (st & box_ready) == 0;
  };
  // Aborts ended (the late completion was passed, the ID freed or reused) are forgotten.
  for (auto it = w.pending.begin(); it != w.pending.end();)
    it = is_abandoned(it->first) ? std::next(it) : w.pending.erase(it);
  const std::uint64_t now = now_ns();
  for (std::uint32_t cid = 0; cid < state_.cid_count && !w.open; ++cid) {
    const auto id = static_cast<std::uint16_t>(cid);
    if (!is_abandoned(cid) || w.pending.count(id) != 0) continue;
    pending_abort& a = w.pending[id];
    a.since_ns = now;
    abort(d, q, id, a);
  }
  // By ID, looked up again each time: fail() (directly or through abort()) clears the map.
  std::vector<std::uint16_t> ids;
  for (const auto& entry : w.pending)
    ids.push_back(entry.first);
  for (const std::uint16_t cid : ids) {
    if (w.open) break;
    const auto at = w.pending.find(cid);
    if (at == w.pending.end()) continue;
    pending_abort& a = at->second;
    // An Abort that found nothing may have come before the engine fetched the command: once
    // more half a timeout later. Not found a timeout after the first: the drive does not give
    // the command back. A found one is done: its completion is posted, and the queue's next
    // user passes it (the watchdog cannot: the queue's bookkeeping is the GPU threads').
    if (a.found) {
      // Its box still abandoned a timeout after the Abort: either no thread has passed the CQ
      // since (an idle queue, where the Abort's completion waits), or the ID was passed, taken
      // by a new command and that one was lost too, between two looks. Abort it again: a
      // second lost command is found and counted; nothing found fails nothing.
      if (now - a.since_ns > opts_.timeout_ns) {
        a.since_ns = now;
        abort(d, q, cid, a);
      }
      continue;
    }
    if (!a.retried && now - a.since_ns > opts_.timeout_ns / 2) {
      a.retried = true;
      abort(d, q, cid, a);
    } else if (!a.found && now - a.since_ns > opts_.timeout_ns) {
      fail(d, q,
           "command " + std::to_string(cid) + " still not back " +
               std::to_string(opts_.timeout_ns / 1'000'000) + " ms after its Abort");
    }
  }
}

void gpu_recovery::abort(std::uint32_t d, std::uint32_t q, std::uint16_t cid, pending_abort& a) {
  // The pass's snapshot of the boxes may be milliseconds old (each Abort waits for its answer):
  // the command may have completed and its ID gone to a new command, which an Abort would hit.
  // Its box once more, just before: the window left is this Abort's own round trip.
  std::uint32_t state = 0;
  copy_from(&state, sizeof state, box_state(d, q, cid), sizeof state, sizeof state, 1);
  if ((state & box_abandoned) == 0 || (state & box_ready) != 0) return;
  counts_.aborts_sent.fetch_add(1);
  const nvme::completion c = drives_[d].admin->ref<memory_doorbell>().submit_and_wait(
      nvme::abort(static_cast<std::uint16_t>(q + 1), cid), opts_.timeout_ns);
  if (!c.status().ok()) {
    counts_.abort_failures.fetch_add(1);
    const nvme::status st = c.status();
    fail(d, q,
         "the Abort of command " + std::to_string(cid) + " got status type " +
             std::to_string(st.sct) + " code " + std::to_string(st.sc));
    return;
  }
  if (!nvme::decode::abort_not_aborted(c.dw0)) {
    a.found = true;
    counts_.aborts_found.fetch_add(1);
  }
}

const std::byte* gpu_recovery::box_state(std::uint32_t d, std::uint32_t q,
                                         std::uint32_t cid) const {
  return drives_[d].block + layout_.states + std::size_t{q} * layout_.state_bytes + state_.boxes +
         std::size_t{cid} * sizeof(completion_box) + box_state_at;
}

void gpu_recovery::fail(std::uint32_t d, std::uint32_t q, const std::string& why) {
  watched& w = queues_[std::size_t{d} * layout_.queues + q];
  const std::size_t failed_at = layout_.states + std::size_t{q} * layout_.state_bytes +
                                state_.counters + offsetof(queue_counters, failed);
  // A store the GPU threads see at their next look (their loads of the word are acquire loads).
  check(cudaMemcpyAsync(const_cast<std::byte*>(drives_[d].block) + failed_at, one_,
                        sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream_),
        "fail queue");
  check(cudaStreamSynchronize(stream_), "fail queue");
  w.open = true;
  w.reason = why;
  w.pending.clear();
  counts_.recoveries.fetch_add(1);
  std::string msg = "drive " + std::to_string(d);
  msg += " queue " + std::to_string(q + 1) + ": failed: " + why;
  note(msg);
}

}  // namespace bam::emu::gpu::detail
