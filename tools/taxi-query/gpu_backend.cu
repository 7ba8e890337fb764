// taxi-query on the GPU. bam: the kernel's block b (a CUDA block of taxi::lanes threads) scans
// rows b * block_rows .. through the trip_distance array, lane l taking every lanes-th row (a
// warp's loads are one line: coalesced), and reads the numerator columns' arrays only for rows
// of S; the lanes' sums meet in shared memory in taxi_query.hpp's tree order. tiled: CPU threads
// read row group g+1 (host-emulated SSDs of the same model, or the files) into pinned memory
// while the GPU copies and reduces row group g with the same block reduction over plain
// pointers. Both write per-block sums that the host adds in block order: bit-identical results.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bam/detail/cuda.hpp"
#include "bam/storage/gpu_context.hpp"
#include "bam/storage/host_context.hpp"
#include "gpu_backend.hpp"
#include "host_backend.hpp"
#include "taxi_backend.hpp"
#include "taxi_run.hpp"
#include "tiled_reader.hpp"

namespace bam::tools {
namespace {

using garray = gpu_context::array_type<double>;
using taxi::block_sums;

/// The query columns as arrays (bam) for the reduction's dist(i) and col(k, i).
struct array_columns {
  garray a[taxi::query_count];
  __device__ double operator()(std::uint64_t i) const { return a[0][i]; }
  __device__ double operator()(int k, std::uint64_t i) const { return a[k][i]; }
};

/// A row group's columns in GPU memory, rows first .. first + n.
struct group_columns {
  const double* p[taxi::query_count];
  std::uint64_t first;
  __device__ double operator()(std::uint64_t i) const { return p[0][i - first]; }
  __device__ double operator()(int k, std::uint64_t i) const { return p[k][i - first]; }
};

/// Block b's sums into out[b]: every lane's sums, then the tree (taxi_query.hpp's order).
template <class Cols>
__device__ void reduce_block(std::uint64_t b, std::uint64_t rows, double d, int deepest,
                             const Cols& c, block_sums* sh, block_sums* out) {
  const unsigned l = threadIdx.x;
  sh[l] = taxi::lane_sums(b, l, rows, d, deepest, c, c);
  __syncthreads();
  for (unsigned stride = taxi::lanes / 2; stride > 0; stride /= 2) {
    if (l < stride) taxi::add_into(sh[l], sh[l + stride]);
    __syncthreads();
  }
  if (l == 0) out[b] = sh[0];
  __syncthreads();
}

/// At least 3 blocks an SM (80 registers): the grid is far larger than what is resident, so the
/// array kernel's rate follows the threads in flight, and ptxas left alone gives it 128
/// registers (2 blocks) once the hardware protocol's ordering read holds its queue
/// (submit_and_wait_held): 26-31 % slower (H200, docs/gpu-engine.md, "The ordering read through a
/// hold").
inline constexpr int query_min_blocks = 3;

template <class Cols>
__global__ void __launch_bounds__(taxi::lanes, query_min_blocks)
    query_kernel(Cols c, std::uint64_t rows, std::uint64_t first_block, std::uint64_t last_block,
                 double d, int deepest, block_sums* out) {
  __shared__ alignas(16) unsigned char raw[sizeof(block_sums) * taxi::lanes];
  auto* sh = reinterpret_cast<block_sums*>(raw);
  for (std::uint64_t b = first_block + blockIdx.x; b < last_block; b += gridDim.x)
    reduce_block(b, rows, d, deepest, c, sh, out);
}

void check(cudaError_t e, const char* what) {
  cuda_check(e, std::string("taxi-query: ") + what);
}

/// BAM_TAXI_TRACE=1: each step of the bam path on stderr (where a run stops, on a GPU machine).
void trace(const char* step) {
  static const bool on = std::getenv("BAM_TAXI_TRACE") != nullptr;
  if (on) std::fprintf(stderr, "taxi-query trace: %s\n", step);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A device buffer.
struct device_buffer {
  void* p = nullptr;
  explicit device_buffer(std::size_t bytes) {
    check(cudaMalloc(&p, std::max<std::size_t>(bytes, 8)), "cudaMalloc");
  }
  ~device_buffer() { cudaFree(p); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};
/// A pinned host buffer.
struct pinned_buffer {
  void* p = nullptr;
  explicit pinned_buffer(std::size_t bytes) {
    check(cudaHostAlloc(&p, std::max<std::size_t>(bytes, 8), cudaHostAllocDefault),
          "cudaHostAlloc");
  }
  ~pinned_buffer() { cudaFreeHost(p); }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
};

class taxi_gpu_backend final : public taxi_backend {
 public:
  taxi_gpu_backend() : taxi_backend(1u << 25) {}
  ~taxi_gpu_backend() override {
    gctx_.reset();
    if (stream_) cudaStreamDestroy(stream_);
  }

 private:
  void check_needs(const run_config&) override {
    std::string why;
    if (!cuda_device_usable(why)) {
      throw config_error("storage.backend",
                         "\"emulated\" needs a CUDA GPU and none is usable (" + why + ")");
    }
  }
  void open_storage(const run_config&) override {
    gctx_.reset();  // both contexts place the columns when an implementation first needs them
    hctx_.reset();
    if (!stream_) check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream");
  }
  taxi_outcome run_impl(taxi_impl impl, const run_config& c) override {
    return impl == taxi_impl::bam ? run_bam(c) : run_tiled(c);
  }
  void describe(nlohmann::json& st) const override {
    if (gctx_) st["storage"] = gctx_->describe();
    if (hctx_) st["tiled_storage"] = hctx_->describe();
    st["taxi"]["real_hardware"] =
        "bam: GPU threads through the BaM cache over GPU-emulated SSDs (their controller a "
        "kernel on this GPU, media in pinned host memory: data crosses PCIe as from real "
        "SSDs); tiled (ssd): CPU threads read host-emulated SSDs of the same storage.model "
        "into pinned memory, then cudaMemcpy to the GPU; on real hardware both would read the "
        "same drives";
  }

  taxi_outcome run_bam(const run_config& c) {
    if (!gctx_) {
      trace("gpu_context");
      gctx_ = std::make_unique<gpu_context>(c);
      trace("place columns");
      place_seconds_ += place_taxi_columns(*gctx_, table());
      trace("preload");
      check(preload_kernel(query_kernel<array_columns>), "preload");
      if (std::getenv("BAM_TAXI_TRACE") != nullptr) {
        cudaFuncAttributes a{};
        std::size_t stack = 0;
        check(cudaFuncGetAttributes(&a, query_kernel<array_columns>), "attributes");
        check(cudaDeviceGetLimit(&stack, cudaLimitStackSize), "stack limit");
        std::fprintf(stderr,
                     "taxi-query trace: bam kernel: %d registers, %zu B local, stack %zu B\n",
                     a.numRegs, a.localSizeBytes, stack);
      }
    }
    trace("build_cache");
    gctx_->build_cache();  // a fresh, cold cache; the engine is stopped
    array_columns cols;
    for (int k = 0; k < taxi::query_count; ++k)
      cols.a[k] = gctx_->array<double>(taxi_region(k));
    const taxi::query_set q = taxi::parse_queries(c.taxi.queries);
    const std::uint64_t rows = table().rows();
    const std::uint64_t blocks = taxi::blocks_of(rows);
    device_buffer sums(blocks * sizeof(block_sums));
    cudaEvent_t begin = nullptr, end = nullptr;
    check(cudaEventCreate(&begin), "event");
    check(cudaEventCreate(&end), "event");
    // A block pins at most 2 lines per warp while others wait for slots (bam/array): keep the
    // grid within slots / 16 so that waiting warps can never pin every slot.
    const std::uint64_t slots = c.cache.capacity / c.cache.line_size;
    const unsigned grid = static_cast<unsigned>(
        std::max<std::uint64_t>(1, std::min<std::uint64_t>({blocks, slots / 16, 65535})));
    gctx_->cache().reset_stats();
    trace("start");
    gctx_->start();
    trace("kernel");
    float ms = 0;
    try {
      check(cudaEventRecord(begin, stream_), "event");
      if (blocks > 0) {
        query_kernel<array_columns>
            <<<grid, taxi::lanes, 0, stream_>>>(cols, rows, 0, blocks, c.taxi.min_distance,
                                                q.deepest(), static_cast<block_sums*>(sums.p));
      }
      check(cudaGetLastError(), "bam kernel");
      check(cudaEventRecord(end, stream_), "event");
      const auto t0 = std::chrono::steady_clock::now();
      bool told = false;
      cudaError_t e = cudaErrorNotReady;
      while ((e = cudaStreamQuery(stream_)) == cudaErrorNotReady) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (!told && seconds_since(t0) > 5 && std::getenv("BAM_TAXI_TRACE") != nullptr) {
          told = true;
          const cache_stats s = gctx_->cache().stats();
          std::fprintf(stderr,
                       "taxi-query trace: kernel still running after 5 s: %llu accesses, %llu "
                       "misses, %llu reads, %llu timeouts, %llu io errors\n",
                       static_cast<unsigned long long>(s.accesses),
                       static_cast<unsigned long long>(s.misses),
                       static_cast<unsigned long long>(s.reads),
                       static_cast<unsigned long long>(s.timeouts),
                       static_cast<unsigned long long>(s.io_errors));
        }
      }
      check(e, "bam kernel");
      trace("kernel done");
      check(cudaEventElapsedTime(&ms, begin, end), "event");
    } catch (...) {
      gctx_->stop();
      throw;
    }
    gctx_->stop();
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    std::vector<block_sums> host(blocks);
    if (blocks > 0) {
      check(cudaMemcpyAsync(host.data(), sums.p, blocks * sizeof(block_sums),
                            cudaMemcpyDeviceToHost, stream_),
            "copy");
      check(cudaStreamSynchronize(stream_), "copy");
    }
    taxi_outcome o;
    o.impl = "bam";
    o.seconds = double(ms) / 1e3;
    o.results = results_of(host);
    const cache_stats s = gctx_->cache().stats();
    for (std::uint64_t b : s.bytes_read)
      o.bytes_moved += b;
    o.commands = s.reads;
    add_cache_failures(s, o);
    o.details["cache"] = cache_json(s, c.cache.line_size);
    o.details["kernel"] = {{"grid", grid},
                           {"block_threads", taxi::lanes},
                           {"timing", "CUDA events around the kernel"}};
    return o;
  }

  taxi_outcome run_tiled(const run_config& c) {
    std::unique_ptr<tiled_reader> src;
    if (c.taxi.tiled_source == taxi_tiled_source::ssd) {
      if (!hctx_) {
        run_config hc = c;  // the same SSDs, host-emulated: same model, count, media size
        hc.storage.backend = backend_kind::host;
        hc.storage.media.kind = media_kind::host;
        hctx_ = std::make_unique<host_context>(hc);
        place_seconds_ += place_taxi_columns(*hctx_, table());
      }
      src = ssd_tiled_reader(*hctx_, std::min(c.workload.threads, 16u));
    } else {
      src = file_tiled_reader(table());
    }
    const taxi::query_set q = taxi::parse_queries(c.taxi.queries);
    const int deepest = q.deepest();
    const std::uint64_t rows = table().rows();
    const std::uint64_t group = c.taxi.row_group_rows;
    const std::uint64_t groups = (rows + group - 1) / group;
    const std::uint64_t blocks = taxi::blocks_of(rows);
    const std::uint64_t cols = static_cast<std::uint64_t>(deepest) + 1;
    const std::uint64_t tile = std::min(group, rows);
    pinned_buffer pin[2] = {pinned_buffer(tile * 8 * cols), pinned_buffer(tile * 8 * cols)};
    device_buffer dev[2] = {device_buffer(tile * 8 * cols), device_buffer(tile * 8 * cols)};
    device_buffer sums(blocks * sizeof(block_sums));
    cudaEvent_t copied[2];
    for (cudaEvent_t& e : copied)
      check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event");
    auto host_cols = [&](int h) {
      std::array<double*, taxi::query_count> p{};
      for (std::uint64_t k = 0; k < cols; ++k)
        p[k] = static_cast<double*>(pin[h].p) + k * tile;
      return p;
    };
    std::array<std::array<double*, taxi::query_count>, 2> dst = {host_cols(0), host_cols(1)};
    auto read_group = [&](std::uint64_t g) {
      const std::uint64_t first = g * group;
      return src->read(first, std::min(group, rows - first), deepest, dst[g % 2].data());
    };
    taxi_outcome o;
    o.impl = src->label();
    const auto t0 = std::chrono::steady_clock::now();
    std::future<tiled_io> next;
    if (groups > 0) next = std::async(std::launch::async, read_group, 0);
    for (std::uint64_t g = 0; g < groups; ++g) {
      const tiled_io io = next.get();
      o.bytes_moved += io.bytes;
      o.commands += io.commands;
      const int h = static_cast<int>(g % 2);
      const std::uint64_t first = g * group;
      const std::uint64_t n = std::min(group, rows - first);
      group_columns gc{};
      gc.first = first;
      for (std::uint64_t k = 0; k < cols; ++k) {
        double* d = static_cast<double*>(dev[h].p) + k * tile;
        check(cudaMemcpyAsync(d, dst[h][k], n * 8, cudaMemcpyHostToDevice, stream_), "copy");
        gc.p[k] = d;
      }
      check(cudaEventRecord(copied[h], stream_), "event");
      const std::uint64_t b0 = first / taxi::block_rows;
      const std::uint64_t b1 = std::min(blocks, (first + group) / taxi::block_rows);
      const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>(b1 - b0, 65535));
      query_kernel<group_columns><<<grid, taxi::lanes, 0, stream_>>>(
          gc, rows, b0, b1, c.taxi.min_distance, deepest, static_cast<block_sums*>(sums.p));
      check(cudaGetLastError(), "tiled kernel");
      if (g + 1 < groups) {
        // The next group goes into the other pinned buffer once its last copy is done.
        check(cudaEventSynchronize(copied[1 - h]), "event");
        next = std::async(std::launch::async, read_group, g + 1);
      }
    }
    check(cudaStreamSynchronize(stream_), "tiled kernel");
    o.seconds = seconds_since(t0);
    for (cudaEvent_t e : copied)
      cudaEventDestroy(e);
    std::vector<block_sums> host(blocks);
    if (blocks > 0) {
      check(cudaMemcpyAsync(host.data(), sums.p, blocks * sizeof(block_sums),
                            cudaMemcpyDeviceToHost, stream_),
            "copy");
      check(cudaStreamSynchronize(stream_), "copy");
    }
    o.results = results_of(host);
    o.details["row_group_rows"] = group;
    o.details["row_groups"] = groups;
    o.details["pipeline"] =
        "double-buffered: the CPU reads row group g+1 into pinned memory while the GPU copies "
        "and reduces row group g";
    o.details["timing"] = "wall clock from the first read to the last kernel's end";
    return o;
  }

  std::unique_ptr<gpu_context> gctx_;
  std::unique_ptr<host_context> hctx_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<backend> make_taxi_gpu_backend() {
  return std::make_unique<taxi_gpu_backend>();
}

}  // namespace bam::tools
