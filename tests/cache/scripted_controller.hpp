// A test-local NVMe controller for the cache's error paths: one SSD of host-memory media, one
// thread serving any number of queue pairs, DMA by identity bus addresses
// (host_identity_allocator), reads and writes of at most one 4 KiB page (PRP1 only), Flush. Chosen
// commands can be made to fail with a status or to be held for a while before they run: a held
// read moves its data into the slot when it finally runs, as a real controller would after the
// host gave up on it. Completions are posted in order of due time, so a held command completes
// after those submitted behind it.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bam/cache/host_storage.hpp"
#include "bam/detail/atomic.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/queue_pair.hpp"

namespace bam::test {

class scripted_controller {
 public:
  /// What happens to the next `times` commands of one kind at one LBA.
  struct rule {
    bool write = false;
    std::uint64_t lba = 0;
    std::uint32_t times = 1;
    nvme::status status = nvme::sc::success;  ///< completion status (no data moved unless ok)
    std::chrono::milliseconds hold{0};        ///< delay before the command runs and completes
  };

  scripted_controller(std::uint32_t queues, std::uint32_t entries, std::uint64_t lbas)
      : media_(lbas * lba_bytes), entries_(entries) {
    for (std::uint32_t q = 0; q < queues; ++q) {
      auto r = std::make_unique<ring>(entries);
      queue_pair_desc d;
      d.sq = r->sq.data();
      d.sq_entries = entries;
      d.cq = r->cq.data();
      d.cq_entries = entries;
      d.sq_doorbell = &r->doorbells[0];
      d.cq_doorbell = &r->doorbells[32];
      d.qid = static_cast<std::uint16_t>(q + 1);
      r->qp = std::make_unique<queue_pair>(d);
      rings_.push_back(std::move(r));
    }
    thread_ = std::thread([this] { run(); });
  }
  ~scripted_controller() {
    stop_.store(true);
    thread_.join();
  }
  scripted_controller(const scripted_controller&) = delete;
  scripted_controller& operator=(const scripted_controller&) = delete;

  static constexpr std::uint32_t lba_bytes = 512;

  /// The SSD as the host cache takes it.
  host_ssd ssd() const {
    host_ssd s;
    for (const auto& r : rings_)
      s.queues.push_back(r->qp->pointers());
    s.lba_bytes = lba_bytes;
    s.lbas = media_.size() / lba_bytes;
    return s;
  }
  queue_pair& queue(std::uint32_t q) { return *rings_[q]->qp; }

  void add_rule(const rule& r) {
    std::lock_guard<std::mutex> g(mu_);
    rules_.push_back(r);
  }
  /// The media, read or written while no command runs (or racing with one, for the tests that
  /// wait for what the controller posted).
  std::byte* media(std::uint64_t lba) { return media_.data() + lba * lba_bytes; }

  /// Commands fetched so far (of writes: write_fetched), completions posted so far.
  std::uint64_t fetched() const { return fetched_.load(); }
  std::uint64_t writes_fetched() const { return writes_fetched_.load(); }
  std::uint64_t posted() const { return posted_.load(); }
  /// Commands held (not yet run) now.
  std::uint64_t holding() const { return holding_.load(); }

 private:
  struct ring {
    explicit ring(std::uint32_t n) : sq(n), cq(n) {}
    std::vector<nvme::command> sq;
    std::vector<nvme::completion> cq;
    alignas(128) std::uint32_t doorbells[64] = {};
    std::unique_ptr<queue_pair> qp;
    std::uint32_t sq_head = 0, cq_tail = 0;
    bool phase = true;
  };
  struct pending {
    std::uint32_t q;
    nvme::command c;
    nvme::status st;
    std::chrono::steady_clock::time_point due;
    bool held;
  };

  /// The rule's outcome for `c` (consumes one of its times).
  void apply_rules(const nvme::command& c, nvme::status& st, std::chrono::milliseconds& hold) {
    const bool write = c.opcode == static_cast<std::uint8_t>(nvme::nvm_opcode::write);
    const bool read = c.opcode == static_cast<std::uint8_t>(nvme::nvm_opcode::read);
    if (!write && !read) return;
    const std::uint64_t lba = c.slba();
    std::lock_guard<std::mutex> g(mu_);
    for (rule& r : rules_) {
      if (r.times == 0 || r.write != write || r.lba != lba) continue;
      --r.times;
      st = r.status;
      hold = r.hold;
      return;
    }
  }

  /// Runs `c`: moves its data (identity DMA) when the status is success.
  void execute(const nvme::command& c, nvme::status st) {
    const bool write = c.opcode == static_cast<std::uint8_t>(nvme::nvm_opcode::write);
    const bool read = c.opcode == static_cast<std::uint8_t>(nvme::nvm_opcode::read);
    if (!st.ok() || (!write && !read)) return;
    const std::uint64_t lba = c.slba();
    const std::size_t bytes = std::size_t{c.nlb()} * lba_bytes;
    if ((c.prp1 & 4095) + bytes > 4096) throw std::logic_error("scripted_controller: PRP2");
    auto* host = reinterpret_cast<std::byte*>(c.prp1);
    // Relaxed word copies: the host reads the slot only after the completion (acquire), but a
    // late read lands in a slot the host may be using, which is what the tests look for.
    auto* dst = reinterpret_cast<std::uint64_t*>(read ? host : media(lba));
    auto* src = reinterpret_cast<std::uint64_t*>(read ? media(lba) : host);
    for (std::size_t w = 0; w < bytes / 8; ++w)
      device_atomic_ref<std::uint64_t>(dst[w]).store(
          device_atomic_ref<std::uint64_t>(src[w]).load(relaxed), relaxed);
  }

  void post(ring& r, const pending& p) {
    nvme::completion& e = r.cq[r.cq_tail];
    e.dw0 = 0;
    e.dw1 = 0;
    e.sqhd = static_cast<std::uint16_t>(r.sq_head);  // the SQ head now, as the specification says
    e.sqid = static_cast<std::uint16_t>(p.q + 1);
    system_atomic_ref<std::uint32_t>(reinterpret_cast<std::uint32_t*>(&e)[3])
        .store(nvme::completion::make_dw3(p.c.cid, r.phase, p.st), release);
    if (++r.cq_tail == entries_) {
      r.cq_tail = 0;
      r.phase = !r.phase;
    }
    posted_.fetch_add(1);
  }

  void run() {
    std::vector<pending> waiting;
    while (!stop_.load(std::memory_order_relaxed)) {
      const auto now = std::chrono::steady_clock::now();
      for (std::uint32_t q = 0; q < rings_.size(); ++q) {
        ring& r = *rings_[q];
        const std::uint32_t tail = system_atomic_ref<std::uint32_t>(r.doorbells[0]).load(acquire);
        while (r.sq_head != tail) {
          pending p{q, r.sq[r.sq_head], nvme::sc::success, now, false};
          r.sq_head = (r.sq_head + 1) % entries_;
          std::chrono::milliseconds hold{0};
          apply_rules(p.c, p.st, hold);
          p.due = now + hold;
          p.held = hold.count() != 0;
          if (p.held) holding_.fetch_add(1);
          if (p.c.opcode == static_cast<std::uint8_t>(nvme::nvm_opcode::write))
            writes_fetched_.fetch_add(1);
          fetched_.fetch_add(1);
          waiting.push_back(p);
        }
      }
      std::stable_sort(waiting.begin(), waiting.end(),
                       [](const pending& a, const pending& b) { return a.due < b.due; });
      std::size_t done = 0;
      for (; done < waiting.size() && waiting[done].due <= now; ++done) {
        const pending& p = waiting[done];
        ring& r = *rings_[p.q];
        const std::uint32_t cq_head =
            system_atomic_ref<std::uint32_t>(r.doorbells[32]).load(acquire);
        if ((r.cq_tail + 1) % entries_ == cq_head) break;  // CQ full: wait for the host
        execute(p.c, p.st);
        post(r, p);
        if (p.held) holding_.fetch_sub(1);
      }
      waiting.erase(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(done));
      std::this_thread::yield();
    }
  }

  std::vector<std::byte> media_;
  std::uint32_t entries_;
  std::vector<std::unique_ptr<ring>> rings_;
  std::mutex mu_;
  std::vector<rule> rules_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> fetched_{0}, writes_fetched_{0}, posted_{0}, holding_{0};
  std::thread thread_;
};

}  // namespace bam::test
