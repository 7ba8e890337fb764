// cache-bench's CPU-thread backends: a host storage context (bam/storage/host_context.hpp) over
// host-emulated controllers or real ones through bamkit.ko, every pass run by CPU threads.
#include "host_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "bam/storage/host_context.hpp"
#include "bench_run.hpp"

namespace bam::tools {
namespace {

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

/// The dataset region every run's array covers a prefix of (its whole room on the SSDs).
constexpr const char* data_region = "cache_bench.data";

/// CPU threads over the cache of a host storage context.
class host_rig final : public cache_rig {
 public:
  host_rig(host_context& ctx, const run_config& c) : ctx_(ctx) {
    workers_ = std::max(1u, std::min(c.workload.threads, std::thread::hardware_concurrency()));
  }

  void new_cache(const bench_shape& s) override {
    cache_config cc;
    cc.line_bytes = s.line_bytes;
    cc.slots = s.slots;
    cc.lines = s.lines;
    cc.io_timeout_ns = command_timeout_ns(ctx_.config());  // queues.timeout_ms
    cc.on_error = s.on_error;
    ctx_.build_cache(cc);
    array_ = ctx_.array<std::uint64_t>(data_region, s.elements);
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
  bool flush() override { return ctx_.flush(); }
  cache_stats stats() override { return ctx_.cache().stats(); }
  void reset_stats() override { ctx_.cache().reset_stats(); }

 private:
  host_context& ctx_;
  host_context::array_type<std::uint64_t> array_{};
  std::uint32_t workers_ = 1;
};

/// The backend of CPU threads over a host storage context (storage.backend host or nvme).
class cpu_bench_backend final : public backend {
 public:
  void open(const run_config& c) override {
    ctx_ = std::make_unique<host_context>(c, layout_options{.manifest = false});
    ctx_->add_region(data_region, ctx_->data().capacity_bytes());
    caps_ = ctx_->caps();
    caps_.max_threads = host_max_threads;
    media_dirty_ = true;
  }
  backend_caps capabilities() const override { return caps_; }
  run_result run(const run_config& c, const run_hooks& hooks) override {
    check_capacity(c);
    if (!rig_) rig_ = std::make_unique<host_rig>(*ctx_, c);
    const recovery_counts before = ctx_->recovery();
    run_result out = run_cache_bench(*rig_, c, hooks, media_dirty_);
    out.recovery = ctx_->recovery().since(before);
    out.tool_stats["storage"] = ctx_->describe();
    out.tool_stats["prp_tables"] = ctx_->prp_tables();
    return out;
  }

 private:
  /// The dataset must fit on the SSDs as they are (real namespaces need not match
  /// storage.media.size_bytes, which validate_cache_bench checked).
  void check_capacity(const run_config& c) const {
    const bench_shape s = shape_of(c);
    const std::uint64_t lines = ctx_->data().capacity_bytes() / s.line_bytes;
    if (s.lines > lines) {
      throw config_error("cache_bench.elements",
                         fmt::format("{} elements ({} lines of {} B) do not fit on the {} SSD(s) "
                                     "({} B of whole stripe units), allowed at most {} elements",
                                     s.elements, s.lines, s.line_bytes, c.storage.ssd_count,
                                     ctx_->data().capacity_bytes(), lines * s.line_bytes / 8));
    }
  }

  std::unique_ptr<host_context> ctx_;
  std::unique_ptr<host_rig> rig_;  // after ctx_: destroyed first
  backend_caps caps_{};
  bool media_dirty_ = true;
};

}  // namespace

std::unique_ptr<backend> make_host_backend() {
  return std::make_unique<cpu_bench_backend>();
}

std::unique_ptr<backend> make_nvme_backend() {
#if BAM_HAVE_NVME_BACKEND
  return std::make_unique<cpu_bench_backend>();
#else
  return nullptr;
#endif
}

}  // namespace bam::tools
