// gpu_traversals.cuh: API (CUDA). The host loops that drive the bfs and cc kernels
// (gpu_kernels.cuh) over any neighbour accessor, on one non-blocking stream, and the GPU
// buffers they use. While GPU-emulated SSDs run (their engine is a persistent kernel), nothing
// here allocates or waits for the whole device: the buffers are allocated before, the loops
// only launch, copy asynchronously and wait for their stream.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <vector>

#include "bam/detail/cuda.hpp"
#include "bam/graph/csr.hpp"
#include "gpu_kernels.cuh"
#include "graph_run.hpp"

namespace bam::apps {

/// The GPU buffers of a run: offsets, levels (bfs) or labels (cc), two frontiers, counters, and
/// a pinned copy of the counters. Allocate it before the SSDs' engine starts.
class gpu_graph_buffers {
 public:
  explicit gpu_graph_buffers(const graph::csr_graph& g) : n_(g.vertex_count) {
    alloc(offsets_, (n_ + 1) * sizeof(std::uint64_t));
    alloc(values_, std::max<std::uint64_t>(1, n_) * sizeof(std::uint32_t));
    alloc(frontier_[0], std::max<std::uint64_t>(1, n_) * sizeof(std::uint32_t));
    alloc(frontier_[1], std::max<std::uint64_t>(1, n_) * sizeof(std::uint32_t));
    alloc(counters_, sizeof(step_counters));
    cuda_check(cudaMallocHost(&host_, sizeof(step_counters)), "graph: cudaMallocHost");
    cuda_check(cudaMemcpy(offsets_, g.offsets.data(), (n_ + 1) * sizeof(std::uint64_t),
                          cudaMemcpyHostToDevice),
               "graph: offsets to the GPU");
  }
  ~gpu_graph_buffers() {
    cudaFree(offsets_);
    cudaFree(values_);
    cudaFree(frontier_[0]);
    cudaFree(frontier_[1]);
    cudaFree(counters_);
    cudaFreeHost(host_);
  }
  gpu_graph_buffers(const gpu_graph_buffers&) = delete;
  gpu_graph_buffers& operator=(const gpu_graph_buffers&) = delete;

  const std::uint64_t* offsets() const { return static_cast<const std::uint64_t*>(offsets_); }
  std::int32_t* levels() const { return static_cast<std::int32_t*>(values_); }
  std::uint32_t* labels() const { return static_cast<std::uint32_t*>(values_); }
  std::uint32_t* frontier(int i) const { return static_cast<std::uint32_t*>(frontier_[i]); }
  step_counters* counters() const { return static_cast<step_counters*>(counters_); }

  void zero_counters(cudaStream_t s) const {
    cuda_check(cudaMemsetAsync(counters_, 0, sizeof(step_counters), s), "graph: memset");
  }
  /// The counters, once the stream's work before is done.
  step_counters read_counters(cudaStream_t s) const {
    cuda_check(cudaMemcpyAsync(host_, counters_, sizeof(step_counters), cudaMemcpyDeviceToHost, s),
               "graph: counters");
    cuda_check(cudaStreamSynchronize(s), "graph: kernel");
    return *host_;
  }
  template <class T>
  void copy_out(std::vector<T>& out, cudaStream_t s) const {
    out.resize(n_);
    cuda_check(cudaMemcpyAsync(out.data(), values_, n_ * sizeof(T), cudaMemcpyDeviceToHost, s),
               "graph: results");
    cuda_check(cudaStreamSynchronize(s), "graph: results");
  }

 private:
  static void alloc(void*& p, std::uint64_t bytes) {
    cuda_check(cudaMalloc(&p, bytes), "graph: cudaMalloc");
  }
  std::uint64_t n_;
  void* offsets_ = nullptr;
  void* values_ = nullptr;
  void* frontier_[2] = {nullptr, nullptr};
  void* counters_ = nullptr;
  step_counters* host_ = nullptr;
};

/// How many blocks a launch over `items` warps may have: no more than `max_blocks` (the GPU's
/// resident blocks, and few enough that the warps' pinned lines leave free cache slots).
inline unsigned blocks_for(std::uint64_t items, unsigned max_blocks) {
  const std::uint64_t warps_per_block = graph_block_threads / 32;
  const std::uint64_t b = (items + warps_per_block - 1) / warps_per_block;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(b, 1, max_blocks));
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// bfs's start from `source`: every level -1 but the source's, the frontier {source}. Before
/// the SSDs' engine starts (copies from pageable memory).
inline void reset_bfs(const gpu_graph_buffers& b, const graph::csr_graph& g, std::uint32_t source,
                      cudaStream_t s) {
  cuda_check(cudaMemsetAsync(b.levels(), 0xff, g.vertex_count * sizeof(std::int32_t), s),
             "bfs: memset");
  const std::int32_t zero = 0;
  cuda_check(cudaMemcpyAsync(b.levels() + source, &zero, sizeof zero, cudaMemcpyHostToDevice, s),
             "bfs: source");
  cuda_check(cudaMemcpyAsync(b.frontier(0), &source, sizeof source, cudaMemcpyHostToDevice, s),
             "bfs: source");
  cuda_check(cudaStreamSynchronize(s), "bfs: set-up");
}

/// Level-synchronous, direction-optimizing bfs from `source` (0-based; reset_bfs first); its
/// levels stay in b.levels(). Timed from the first launch to the last level's end.
template <class Adj>
traversal gpu_bfs(const Adj& adj, const gpu_graph_buffers& b, const graph::csr_graph& g,
                  std::uint32_t source, bool direction_optimizing, unsigned max_blocks,
                  cudaStream_t s) {
  const std::uint64_t n = g.vertex_count;
  const bool may_go_bottom_up = direction_optimizing && g.symmetric;
  traversal t;
  std::uint64_t n_f = 1, m_f = g.offsets[source + 1] - g.offsets[source];
  std::uint64_t m_u = g.edge_count() - m_f;
  bool bottom_up = false;
  int cur = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int32_t level = 0; n_f != 0; ++level) {
    bottom_up = may_go_bottom_up && direction_rule::bottom_up_next(bottom_up, m_f, m_u, n_f, n);
    b.zero_counters(s);
    step_counters* c = b.counters();
    const bfs_level_ref l{b.levels(), b.offsets(),
                          level,      queue_out{b.frontier(1 - cur), &c->count, &c->degrees},
                          n,          &c->bad};
    if (bottom_up) {
      const unsigned blocks = blocks_for(n, max_blocks);
      bottom_up_kernel<Adj><<<blocks, graph_block_threads, 0, s>>>(adj, l, n, c);
      ++t.bottom_up_steps;
    } else {
      const unsigned blocks = blocks_for(n_f, max_blocks);
      top_down_kernel<Adj><<<blocks, graph_block_threads, 0, s>>>(adj, l, b.frontier(cur), n_f, c);
    }
    cuda_check(cudaGetLastError(), "bfs: launch");
    const step_counters got = b.read_counters(s);
    n_f = got.count;
    m_f = got.degrees;
    m_u -= std::min(m_u, m_f);
    t.edges_read += got.read;
    t.bad_ids += got.bad;
    cur = 1 - cur;
    ++t.steps;
  }
  t.seconds = seconds_since(t0);
  return t;
}

/// cc's start: every vertex its own label. Before the SSDs' engine starts.
inline void reset_cc(const gpu_graph_buffers& b, const graph::csr_graph& g, cudaStream_t s) {
  const std::uint64_t n = g.vertex_count;
  std::vector<std::uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0u);
  cuda_check(
      cudaMemcpyAsync(b.labels(), ids.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice, s),
      "cc: labels");
  cuda_check(cudaStreamSynchronize(s), "cc: set-up");
}

/// Connected components (reset_cc first); the labels stay in b.labels().
template <class Adj>
traversal gpu_cc(const Adj& adj, const gpu_graph_buffers& b, const graph::csr_graph& g,
                 unsigned max_blocks, cudaStream_t s) {
  const std::uint64_t n = g.vertex_count;
  traversal t;
  step_counters* c = b.counters();
  const cc_round_ref r{b.labels(), b.offsets(), &c->changed, n, &c->bad};
  const unsigned blocks = blocks_for(n, max_blocks);
  const unsigned compress_blocks = blocks_for((n + 31) / 32, max_blocks);  // a thread a vertex
  const auto t0 = std::chrono::steady_clock::now();
  for (bool changed = true; changed;) {
    b.zero_counters(s);
    hook_kernel<Adj><<<blocks, graph_block_threads, 0, s>>>(adj, r, n, c);
    compress_kernel<><<<compress_blocks, graph_block_threads, 0, s>>>(r, n);
    cuda_check(cudaGetLastError(), "cc: launch");
    const step_counters got = b.read_counters(s);
    changed = got.changed != 0;
    t.edges_read += got.read;
    t.bad_ids += got.bad;
    ++t.steps;
  }
  t.seconds = seconds_since(t0);
  t.reached = n;
  t.reached_edges = g.edge_count();
  return t;
}

/// Loads every kernel of accessor `Adj` (before the SSDs' engine starts).
template <class Adj>
void preload_graph_kernels() {
  cuda_check(preload_kernel(top_down_kernel<Adj>), "graph: preload");
  cuda_check(preload_kernel(bottom_up_kernel<Adj>), "graph: preload");
  cuda_check(preload_kernel(hook_kernel<Adj>), "graph: preload");
  cuda_check(preload_kernel(compress_kernel<>), "graph: preload");
  cuda_check(preload_kernel(preload_lines_kernel<Adj>), "graph: preload");
}

}  // namespace bam::apps
