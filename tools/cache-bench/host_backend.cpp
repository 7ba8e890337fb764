// cache-bench's host backend: the cache's host storage policy over host emulated controllers,
// every pass run by CPU threads.
#include "host_backend.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "bam/bench/host_controllers.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/host_storage.hpp"
#include "bam/emu/dma_window.hpp"
#include "bench_run.hpp"

namespace bam::tools {
namespace {

using hcache = cache<host_cache_storage>;
using harray = array<std::uint64_t, hcache::ref_type>;

/// Runs f(i) for i in [0, n) on `threads` CPU threads (strided).
template <class F>
void parallel_for(std::uint64_t n, std::uint32_t threads, F&& f) {
  std::vector<std::thread> pool;
  for (std::uint32_t w = 0; w < threads; ++w) {
    pool.emplace_back([&, w] {
      for (std::uint64_t i = w; i < n; i += threads)
        f(i);
    });
  }
  for (auto& t : pool)
    t.join();
}

class host_rig final : public cache_rig {
 public:
  host_rig(host_controllers& ctrls, const run_config& c) : ctrls_(ctrls) {
    for (std::uint32_t d = 0; d < ctrls.size(); ++d) {
      controller_driver& drv = ctrls.driver(d);
      host_ssd s;
      s.lba_bytes = drv.info().lba_size;
      s.lbas = drv.info().namespace_lbas;
      pairs_.emplace_back();
      for (std::uint32_t q = 0; q < c.queues.pairs_per_ssd; ++q) {
        pairs_.back().push_back(drv.create_io_queue_pair(c.queues.depth));
        s.queues.push_back(pairs_.back().back().queue().pointers());
      }
      ssds_.push_back(s);
    }
    workers_ = std::max(1u, std::min(c.workload.threads, std::thread::hardware_concurrency()));
  }
  ~host_rig() override { drop(); }

  void new_cache(const bench_shape& s) override {
    drop();
    cache_config cc;
    cc.line_bytes = s.line_bytes;
    cc.slots = s.slots;
    cc.lines = s.lines;
    cache_.emplace(cc, ssds_, ctrls_.controller(0).allocator());
    for (std::uint32_t d = 1; d < ctrls_.size(); ++d) {
      for (const dma_region* r : regions()) {
        if (r->vaddr != nullptr) ctrls_.controller(d).window().add(r->bus_address(0), r->size);
      }
    }
    array_ = harray(cache_->ref(), range<std::uint64_t>{0, s.elements});
  }
  void fill(const bench_shape& s) override {
    parallel_for(s.elements, workers_, [&](std::uint64_t i) { fill_element(array_, i); });
  }
  void warm(const bench_shape& s) override {
    bench_counters c{};
    parallel_for(s.lines, workers_, [&](std::uint64_t l) { warm_line(array_, &c, l); });
  }
  double measure(const bench_params& p, bench_counters& out) override {
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (std::uint64_t t = 0; t < p.threads; ++t) {
      pool.emplace_back([&, t] {
        while (!go.load(std::memory_order_acquire))
          std::this_thread::yield();
        bench_thread(array_, p, &out, t);
      });
    }
    const auto start = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& t : pool)
      t.join();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  bench_counters check(const bench_shape& s) override {
    bench_counters c{};
    parallel_for(s.elements, workers_, [&](std::uint64_t i) { check_element(array_, &c, i); });
    return c;
  }
  bool flush() override { return cache_->flush(); }
  cache_stats stats() override { return cache_->stats(); }
  void reset_stats() override { cache_->reset_stats(); }

 private:
  std::vector<const dma_region*> regions() const {
    return {&cache_->storage().slot_region(), &cache_->storage().prp_region()};
  }
  /// Destroys the cache, first taking its memory out of the other controllers' windows.
  void drop() {
    if (!cache_) return;
    for (std::uint32_t d = 1; d < ctrls_.size(); ++d) {
      for (const dma_region* r : regions()) {
        if (r->vaddr != nullptr) ctrls_.controller(d).window().remove(r->bus_address(0));
      }
    }
    cache_.reset();
  }

  host_controllers& ctrls_;
  std::vector<std::vector<io_queue_pair>> pairs_;
  std::vector<host_ssd> ssds_;
  std::optional<hcache> cache_;
  harray array_{};
  std::uint32_t workers_ = 1;
};

class host_bench_backend final : public backend {
 public:
  void open(const run_config& c) override {
    ctrls_ = std::make_unique<host_controllers>(c);
    caps_ = ctrls_->caps();
    caps_.max_threads = host_max_threads;
    media_dirty_ = true;
  }
  backend_caps capabilities() const override { return caps_; }
  run_result run(const run_config& c, const run_hooks& hooks) override {
    if (!rig_ || rig_queues_ != c.queues) {
      rig_.reset();
      rig_ = std::make_unique<host_rig>(*ctrls_, c);
      rig_queues_ = c.queues;
    }
    return run_cache_bench(*rig_, c, hooks, media_dirty_);
  }

 private:
  std::unique_ptr<host_controllers> ctrls_;
  std::unique_ptr<host_rig> rig_;
  queues_config rig_queues_{};
  backend_caps caps_{};
  bool media_dirty_ = true;
};

}  // namespace

std::unique_ptr<backend> make_host_backend() {
  return std::make_unique<host_bench_backend>();
}

}  // namespace bam::tools
