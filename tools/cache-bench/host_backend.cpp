// cache-bench's CPU-thread backends: the cache's host storage policy over a set of controllers
// (host emulated, or real ones through bamkit.ko), every pass run by CPU threads.
#include "host_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "bam/cache/cache.hpp"
#include "bam/cache/host_storage.hpp"
#include "bam/storage/host_controllers.hpp"
#include "bench_run.hpp"
#if BAM_HAVE_NVME_BACKEND
#include "bam/storage/kmod_controllers.hpp"
#endif

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

/// CPU threads over a cache whose SSDs are `drivers`' controllers (SSD i = driver i) and whose
/// slots come from `slot_memory`, which every one of them reaches.
class host_rig final : public cache_rig {
 public:
  host_rig(const std::vector<controller_driver*>& drivers, dma_allocator& slot_memory,
           const run_config& c)
      : slot_memory_(slot_memory) {
    for (controller_driver* drv : drivers) {
      host_ssd s;
      s.lba_bytes = drv->info().lba_size;
      s.lbas = drv->info().namespace_lbas;
      pairs_.emplace_back();
      for (std::uint32_t q = 0; q < c.queues.pairs_per_ssd; ++q) {
        pairs_.back().push_back(drv->create_io_queue_pair(c.queues.depth));
        s.queues.push_back(pairs_.back().back().queue().pointers());
      }
      ssds_.push_back(s);
    }
    workers_ = std::max(1u, std::min(c.workload.threads, std::thread::hardware_concurrency()));
  }
  ~host_rig() override { cache_.reset(); }

  void new_cache(const bench_shape& s) override {
    cache_.reset();
    cache_config cc;
    cc.line_bytes = s.line_bytes;
    cc.slots = s.slots;
    cc.lines = s.lines;
    cache_.emplace(cc, ssds_, slot_memory_);
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
  /// 1, or one per SSD where the controllers see the slots at different bus addresses (IOMMU).
  std::uint32_t prp_tables() const { return cache_ ? cache_->storage().prp_tables() : 0; }

 private:
  dma_allocator& slot_memory_;
  std::vector<std::vector<io_queue_pair>> pairs_;  // before cache_: destroyed after it
  std::vector<host_ssd> ssds_;
  std::optional<hcache> cache_;
  harray array_{};
  std::uint32_t workers_ = 1;
};

/// What a report says of the controllers (the nvme ones name their devices).
void describe(host_controllers&, const run_config&, run_result&) {}
#if BAM_HAVE_NVME_BACKEND
void describe(kmod_controllers& k, const run_config& c, run_result& out) {
  k.describe(c, out.tool_stats);
}
#endif

/// The backend of CPU threads over `Controllers` (host_controllers or kmod_controllers).
template <class Controllers>
class cpu_bench_backend final : public backend {
 public:
  void open(const run_config& c) override {
    ctrls_ = std::make_unique<Controllers>(c);
    caps_ = ctrls_->caps();
    caps_.max_threads = host_max_threads;
    media_dirty_ = true;
  }
  backend_caps capabilities() const override { return caps_; }
  run_result run(const run_config& c, const run_hooks& hooks) override {
    check_capacity(c);
    if (!rig_ || rig_queues_ != c.queues) {
      rig_.reset();
      std::vector<controller_driver*> drivers;
      for (std::uint32_t d = 0; d < ctrls_->size(); ++d)
        drivers.push_back(&ctrls_->driver(d));
      rig_ = std::make_unique<host_rig>(drivers, ctrls_->shared_memory(), c);
      rig_queues_ = c.queues;
    }
    run_result out = run_cache_bench(*rig_, c, hooks, media_dirty_);
    describe(*ctrls_, c, out);
    out.tool_stats["prp_tables"] = rig_->prp_tables();
    return out;
  }

 private:
  /// The dataset must fit on the SSDs as they are (real namespaces need not match
  /// storage.media.size_bytes, which validate_cache_bench checked).
  void check_capacity(const run_config& c) const {
    const bench_shape s = shape_of(c);
    const std::uint64_t lines = caps_.media_bytes / s.line_bytes * ctrls_->size();
    if (s.lines > lines) {
      throw config_error("cache_bench.elements",
                         fmt::format("{} elements ({} lines of {} B) do not fit on the {} SSD(s) "
                                     "({} B each), allowed at most {} elements",
                                     s.elements, s.lines, s.line_bytes, ctrls_->size(),
                                     caps_.media_bytes, lines * s.line_bytes / 8));
    }
  }

  std::unique_ptr<Controllers> ctrls_;
  std::unique_ptr<host_rig> rig_;  // after ctrls_: destroyed first
  queues_config rig_queues_{};
  backend_caps caps_{};
  bool media_dirty_ = true;
};

}  // namespace

std::unique_ptr<backend> make_host_backend() {
  return std::make_unique<cpu_bench_backend<host_controllers>>();
}

std::unique_ptr<backend> make_nvme_backend() {
#if BAM_HAVE_NVME_BACKEND
  return std::make_unique<cpu_bench_backend<kmod_controllers>>();
#else
  return nullptr;
#endif
}

}  // namespace bam::tools
