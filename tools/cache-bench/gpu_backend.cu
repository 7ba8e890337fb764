// cache-bench's emulated backend: every pass is a kernel over the GPU cache; the engine of the
// emulated SSDs runs beside it (residency rule: caches are built, kernels loaded and memory
// allocated only while the engine is stopped). The kernels and the rig are templates over the
// context, whose type is the protocol (storage.protocol): both are instantiated here.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/detail/cuda.hpp"
#include "bam/emu/gpu/drives_of_config.hpp"
#include "bam/emu/gpu/engine_report.hpp"
#include "bam/harness/gpu_ceilings.hpp"
#include "bam/storage/gpu_context.hpp"
#include "bench_run.hpp"
#include "gpu_backend.hpp"

namespace bam::tools {
namespace {

template <class Ctx>
using garray_of = typename Ctx::template array_type<std::uint64_t>;

/// The dataset region every run's array covers a prefix of (its whole room on the SSDs).
constexpr const char* data_region = "cache_bench.data";

constexpr unsigned block_threads = 256;

__device__ std::uint64_t global_id() {
  return std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
}
__device__ std::uint64_t grid_threads() {
  return std::uint64_t{gridDim.x} * blockDim.x;
}

template <class A>
__global__ void fill_kernel(A a, std::uint64_t n) {
  for (std::uint64_t i = global_id(); i < n; i += grid_threads())
    fill_element(a, i);
}
template <class A>
__global__ void warm_kernel(A a, bench_counters* out, std::uint64_t lines) {
  for (std::uint64_t l = global_id(); l < lines; l += grid_threads())
    warm_line(a, out, l);
}
template <class A>
__global__ void check_kernel(A a, bench_counters* out, std::uint64_t n) {
  for (std::uint64_t i = global_id(); i < n; i += grid_threads())
    check_element(a, out, i);
}
// The measured kernel: at least 2 resident blocks of 256 threads per SM, so ptxas caps it at 128
// registers. Its NVMe commands are calls (queue_pair_ref::submit_and_wait_outlined); at the cap
// it spills 456-640 bytes (scripts/register-cost --apps, 1ac6589). Before that the whole
// submission was inline and it spilled 2.7-7.5 KB, at a third of today's hot reuse rate
// (docs/cache.md, "Registers").
constexpr int bench_min_blocks = 2;
template <class A>
__global__ void __launch_bounds__(block_threads, bench_min_blocks)
    bench_kernel(A a, bench_params p, bench_counters* out) {
  const std::uint64_t t = global_id();
  if (t < p.threads) bench_thread(a, p, out, t);
}

/// What the measured kernel costs per thread and how many of its blocks fit on an SM.
template <class A>
nlohmann::json bench_kernel_resources() {
  cudaFuncAttributes a{};
  cuda_check(cudaFuncGetAttributes(&a, bench_kernel<A>), "cache-bench: kernel attributes");
  int resident = 0;
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, bench_kernel<A>,
                                                           static_cast<int>(block_threads), 0),
             "cache-bench: occupancy");
  return {{"registers_per_thread", a.numRegs},
          {"local_bytes_per_thread", a.localSizeBytes},
          {"block_threads", block_threads},
          {"min_blocks_per_sm", bench_min_blocks},
          {"resident_blocks_per_sm", resident}};
}

/// Blocks of a grid-stride pass over n consecutive items through a cache of `slots` slots. A
/// warp's lanes span at most two lines, and a lane group keeps its line pinned while the
/// warp's other group waits for a slot: 16 lines per block of 8 warps at most, so the resident
/// blocks can never pin every slot.
unsigned stride_blocks(std::uint64_t n, std::uint64_t slots) {
  std::uint64_t b = (n + block_threads - 1) / block_threads;
  b = std::min<std::uint64_t>({b, 8192, slots / 16});
  return static_cast<unsigned>(b == 0 ? 1 : b);
}

template <class Ctx>
class gpu_rig final : public cache_rig {
  using garray = garray_of<Ctx>;

 public:
  explicit gpu_rig(Ctx& ctx) : ctx_(ctx) {
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cache-bench: stream");
    cuda_check(cudaEventCreate(&begin_), "cache-bench: event");
    cuda_check(cudaEventCreate(&end_), "cache-bench: event");
    cuda_check(cudaMalloc(&counters_, sizeof(bench_counters)), "cache-bench: cudaMalloc");
    cuda_check(preload_kernel(fill_kernel<garray>), "cache-bench: preload");
    cuda_check(preload_kernel(warm_kernel<garray>), "cache-bench: preload");
    cuda_check(preload_kernel(check_kernel<garray>), "cache-bench: preload");
    cuda_check(preload_kernel(bench_kernel<garray>), "cache-bench: preload");
  }
  ~gpu_rig() override {
    ctx_.stop();
    cudaFree(counters_);
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
    cudaStreamDestroy(stream_);
  }

  void new_cache(const bench_shape& s) override {
    cache_config cc;
    cc.line_bytes = s.line_bytes;
    cc.slots = s.slots;
    cc.lines = s.lines;
    cc.io_timeout_ns = command_timeout_ns(ctx_.config());  // queues.timeout_ms
    cc.on_error = s.on_error;
    ctx_.build_cache(cc);
    array_ = ctx_.template array<std::uint64_t>(data_region, s.elements);
    slots_ = s.slots;
    ctx_.start();
  }
  void fill(const bench_shape& s) override {
    fill_kernel<garray>
        <<<stride_blocks(s.elements, slots_), block_threads, 0, stream_>>>(array_, s.elements);
    wait("fill kernel");
  }
  void warm(const bench_shape& s) override {
    zero();
    warm_kernel<garray>
        <<<stride_blocks(s.lines, slots_), block_threads, 0, stream_>>>(array_, counters_, s.lines);
    wait("warm kernel");
  }
  double measure(const bench_params& p, bench_counters& out) override {
    zero();
    const std::uint64_t blocks = (p.threads + block_threads - 1) / block_threads;
    cuda_check(cudaEventRecord(begin_, stream_), "cache-bench: event");
    bench_kernel<garray>
        <<<static_cast<unsigned>(blocks), block_threads, 0, stream_>>>(array_, p, counters_);
    cuda_check(cudaEventRecord(end_, stream_), "cache-bench: event");
    wait("bench kernel");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, begin_, end_), "cache-bench: event");
    out = read();
    return double(ms) / 1e3;
  }
  bench_counters check(const bench_shape& s) override {
    zero();
    check_kernel<garray><<<stride_blocks(s.elements, slots_), block_threads, 0, stream_>>>(
        array_, counters_, s.elements);
    wait("check kernel");
    return read();
  }
  bool flush() override { return ctx_.flush(); }
  cache_stats stats() override { return ctx_.cache().stats(); }
  void reset_stats() override { ctx_.cache().reset_stats(); }

 private:
  void zero() {
    cuda_check(cudaMemsetAsync(counters_, 0, sizeof(bench_counters), stream_),
               "cache-bench: memset");
  }
  bench_counters read() {
    bench_counters c{};
    cuda_check(cudaMemcpyAsync(&c, counters_, sizeof c, cudaMemcpyDeviceToHost, stream_),
               "cache-bench: copy");
    cuda_check(cudaStreamSynchronize(stream_), "cache-bench: copy");
    return c;
  }
  void wait(const char* what) {
    cuda_check(cudaGetLastError(), std::string("cache-bench: ") + what);
    cuda_check(cudaStreamSynchronize(stream_), std::string("cache-bench: ") + what);
  }

  Ctx& ctx_;
  garray array_{};
  cudaStream_t stream_ = nullptr;
  cudaEvent_t begin_ = nullptr, end_ = nullptr;
  bench_counters* counters_ = nullptr;
  std::uint64_t slots_ = 0;
};

/// The backend over a context of one protocol.
template <class Ctx>
class emulated_protocol_backend final : public backend {
 public:
  void open(const run_config& c) override {
    ctx_ = std::make_unique<Ctx>(c, layout_options{.manifest = false});
    ctx_->add_region(data_region, ctx_->data().capacity_bytes());
    moves_data_ = emu::gpu::timing_of(c.storage.model).moves_data;
    caps_.max_ssds = cache_max_ssds;
    caps_.media_bytes = c.storage.media.size_bytes;
    rig_ = std::make_unique<gpu_rig<Ctx>>(*ctx_);
  }
  backend_caps capabilities() const override { return caps_; }
  run_result run(const run_config& c, const run_hooks& hooks) override {
    if (hooks.verify && !moves_data_) {
      throw config_error("storage.model",
                         "--verify with a model that moves no data (\"null\"), allowed any other "
                         "model");
    }
    check_pinning(c);
    const recovery_counts before = ctx_->drives().recovery();
    run_result out;
    try {
      out = run_cache_bench(*rig_, c, hooks, media_dirty_);
    } catch (...) {
      ctx_->stop();
      throw;
    }
    ctx_->stop();
    const emu::gpu::emulated_drives& drives = ctx_->drives();
    out.recovery = drives.recovery().since(before);
    nlohmann::json ssds = nlohmann::json::array();
    for (const emu::gpu::drive_stats& s : drives.stats())
      ssds.push_back({{"completed", s.completed},
                      {"errors", s.errors},
                      {"aborted", s.aborted},
                      {"ordering_reads", s.ordering_reads}});
    nlohmann::json engine = emu::gpu::engine_report(drives);
    engine["ssds"] = ssds;
    engine["gpu_timer_rate"] = drives.timer_rate();
    engine["note"] = "engine counters since its last start (each fresh cache restarts it)";
    out.tool_stats["engine"] = std::move(engine);
    out.tool_stats["timing"] = "CUDA events around the measured kernel";
    out.tool_stats["storage"] = ctx_->describe();
    out.tool_stats["kernel"] = bench_kernel_resources<garray_of<Ctx>>();
    return out;
  }
  nlohmann::json measure_ceilings(const run_config& c) override {
    ctx_->stop();
    // Over the run's footprint: its dataset's lines, spread over every SSD's media as the data
    // region stripes them (media not in host memory: pinned memory of its own, as much).
    const bench_shape s = shape_of(c);
    const std::uint32_t n = c.storage.ssd_count;
    const std::uint64_t per_ssd = std::min<std::uint64_t>(
        c.storage.media.size_bytes, (s.lines + n - 1) / n * std::uint64_t{s.line_bytes});
    std::vector<pinned_span> spans;
    for (std::uint32_t i = 0; i < n; ++i)
      spans.push_back({ctx_->drives().host_media(i), per_ssd});
    return to_json(measure_run_ceilings(spans, per_ssd * n, c.cache.line_size, 5));
  }

 private:
  /// Warp-coalesced and array_ref accesses keep a lane's line pinned while other lanes of its
  /// warp wait for a slot: a cache that can evict needs a slot per resident thread, or every
  /// slot may end up pinned by waiting warps.
  static void check_pinning(const run_config& c) {
    if (c.cache_bench.temperature != cache_temperature::cold ||
        c.cache_bench.mode == cache_access_mode::plain)
      return;
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, 0), "cache-bench: device properties");
    const std::uint64_t resident =
        std::uint64_t(prop.multiProcessorCount) * std::uint64_t(prop.maxThreadsPerMultiProcessor);
    const std::uint64_t need = std::min<std::uint64_t>(c.workload.threads, resident);
    const std::uint64_t slots = c.cache.capacity / c.cache.line_size;
    if (slots < need) {
      throw config_error("cache.capacity",
                         std::to_string(c.cache.capacity) + " B (" + std::to_string(slots) +
                             " slots) is too small for a cold " + to_string(c.cache_bench.mode) +
                             " run: each resident GPU thread may pin a line while its warp waits "
                             "for slots, allowed at least " +
                             std::to_string(need * c.cache.line_size) + " B (min(threads, " +
                             std::to_string(resident) + " resident threads) slots) or mode plain");
    }
  }

  std::unique_ptr<Ctx> ctx_;
  std::unique_ptr<gpu_rig<Ctx>> rig_;  // after ctx_: destroyed first
  backend_caps caps_{};
  bool moves_data_ = true;
  bool media_dirty_ = true;
};

/// The backend of storage.protocol, chosen when it opens (a sweep over the protocol reopens it).
class emulated_bench_backend final : public backend {
 public:
  void open(const run_config& c) override {
    impl_.reset();
    if (c.storage.protocol == storage_protocol::hardware)
      impl_ = std::make_unique<emulated_protocol_backend<gpu_context>>();
    else
      impl_ = std::make_unique<emulated_protocol_backend<emulator_gpu_context>>();
    impl_->open(c);
  }
  backend_caps capabilities() const override { return impl_->capabilities(); }
  run_result run(const run_config& c, const run_hooks& hooks) override {
    return impl_->run(c, hooks);
  }
  nlohmann::json measure_ceilings(const run_config& c) override {
    return impl_->measure_ceilings(c);
  }

 private:
  std::unique_ptr<backend> impl_;
};

}  // namespace

std::unique_ptr<backend> make_emulated_backend() {
  return std::make_unique<emulated_bench_backend>();
}

}  // namespace bam::tools
