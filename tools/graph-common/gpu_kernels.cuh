// gpu_kernels.cuh: API (CUDA). The kernels of bfs and cc, templates over the neighbour accessor
// `Adj` (pointer_adj for memory, a bam::array for the cache): a warp per vertex, grid-stride
// over the frontier or the vertices, bodies from bfs_steps.hpp and cc_steps.hpp. Each warp adds
// the neighbour elements it read to counters->read once.
#pragma once
#include <cstdint>

#include "bfs_steps.hpp"
#include "cc_steps.hpp"

namespace bam::apps {

inline constexpr unsigned graph_block_threads = 256;

/// A neighbour array in memory the GPU threads can load (GPU, mapped pinned host or managed).
struct pointer_adj {
  const std::uint32_t* p = nullptr;
  __device__ std::uint32_t operator[](std::uint64_t i) const { return p[i]; }
};

/// What a launch counts, in GPU memory; next-frontier count and degrees live here too.
struct step_counters {
  unsigned long long count;    ///< vertices pushed to the next frontier
  unsigned long long degrees;  ///< their degrees
  unsigned long long read;     ///< neighbour elements read
  unsigned long long bad;      ///< neighbour ids read that are no vertex (bfs_level_ref::bad)
  unsigned changed;            ///< cc: a hook found endpoints with different labels
};

__device__ inline std::uint64_t warp_index() {
  return (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
}
__device__ inline std::uint64_t warp_count() {
  return std::uint64_t{gridDim.x} * blockDim.x / 32;
}
/// Adds a lane's count once per warp (every lane of the warp calls it).
__device__ inline void add_read(step_counters* c, std::uint64_t mine) {
  for (int o = 16; o > 0; o /= 2)
    mine += __shfl_down_sync(0xffffffffu, mine, o);
  if (threadIdx.x % 32 == 0) atomicAdd(&c->read, static_cast<unsigned long long>(mine));
}

template <class Adj>
__global__ void __launch_bounds__(graph_block_threads)
    top_down_kernel(Adj adj, bfs_level_ref l, const std::uint32_t* frontier, std::uint64_t size,
                    step_counters* c) {
  const unsigned lane = threadIdx.x % 32;
  std::uint64_t read = 0;
  for (std::uint64_t i = warp_index(); i < size; i += warp_count())
    read += top_down_vertex(adj, l, frontier[i], lane, gpu_warp_lanes);
  add_read(c, read);
}

template <class Adj>
__global__ void __launch_bounds__(graph_block_threads)
    bottom_up_kernel(Adj adj, bfs_level_ref l, std::uint64_t vertices, step_counters* c) {
  const unsigned lane = threadIdx.x % 32;
  std::uint64_t read = 0;
  for (std::uint64_t v = warp_index(); v < vertices; v += warp_count())
    read += bottom_up_vertex(adj, l, static_cast<std::uint32_t>(v), lane, gpu_warp_lanes);
  add_read(c, read);
}

template <class Adj>
__global__ void __launch_bounds__(graph_block_threads)
    hook_kernel(Adj adj, cc_round_ref r, std::uint64_t vertices, step_counters* c) {
  const unsigned lane = threadIdx.x % 32;
  std::uint64_t read = 0;
  for (std::uint64_t u = warp_index(); u < vertices; u += warp_count())
    read += hook_vertex(adj, r, static_cast<std::uint32_t>(u), lane, gpu_warp_lanes);
  add_read(c, read);
}

/// A template only so that every file that includes this header may instantiate it.
template <class Unused = void>
__global__ void __launch_bounds__(graph_block_threads)
    compress_kernel(cc_round_ref r, std::uint64_t vertices) {
  for (std::uint64_t v = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; v < vertices;
       v += std::uint64_t{gridDim.x} * blockDim.x)
    compress_vertex(r, static_cast<std::uint32_t>(v));
}

/// Reads the first element of every line of `per_line` elements (bam-preloaded's fill).
template <class Adj>
__global__ void __launch_bounds__(graph_block_threads)
    preload_lines_kernel(Adj adj, std::uint64_t elements, std::uint64_t per_line,
                         step_counters* c) {
  unsigned long long sum = 0;
  const std::uint64_t lines = (elements + per_line - 1) / per_line;
  for (std::uint64_t l = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; l < lines;
       l += std::uint64_t{gridDim.x} * blockDim.x)
    sum += adj[l * per_line];
  if (sum == ~0ull) c->changed = 1;  // keeps the loads
}

}  // namespace bam::apps
