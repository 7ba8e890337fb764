// bfs and cc with GPU threads: the access modes (graph.access), each a neighbour accessor and
// what must happen before and after each traversal; the traversals themselves are
// gpu_traversals.cuh's, the same for every mode.
#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "bam/storage/gpu_context.hpp"
#include "gpu_backend.hpp"
#include "gpu_traversals.cuh"
#include "graph_input.hpp"
#include "graph_storage.hpp"

namespace bam::apps {
namespace {

/// Blocks of graph_block_threads the GPU holds at once running `kernel`.
template <class Kernel>
unsigned resident_blocks(Kernel kernel) {
  cudaDeviceProp p{};
  cuda_check(cudaGetDeviceProperties(&p, 0), "graph: device properties");
  int per_sm = 0;
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                 &per_sm, kernel, static_cast<int>(graph_block_threads), 0),
             "graph: occupancy");
  return static_cast<unsigned>(std::max(1, per_sm) * p.multiProcessorCount);
}

/// Registers, local memory and occupancy of one kernel.
template <class Kernel>
nlohmann::json resources_of(Kernel kernel) {
  cudaFuncAttributes a{};
  cuda_check(cudaFuncGetAttributes(&a, kernel), "graph: kernel attributes");
  cudaDeviceProp p{};
  cuda_check(cudaGetDeviceProperties(&p, 0), "graph: device properties");
  int per_sm = 0;
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                 &per_sm, kernel, static_cast<int>(graph_block_threads), 0),
             "graph: occupancy");
  return {{"registers_per_thread", a.numRegs},
          {"local_bytes_per_thread", a.localSizeBytes},
          {"block_threads", graph_block_threads},
          {"resident_blocks_per_sm", per_sm},
          {"occupancy", double(per_sm) * graph_block_threads / p.maxThreadsPerMultiProcessor}};
}

/// The main kernel's resources (bfs: top-down, cc: hooking) at the top, every kernel's below.
template <class Adj>
nlohmann::json kernel_resources(graph_algorithm a) {
  nlohmann::json k = nlohmann::json::object();
  k["top_down"] = resources_of(top_down_kernel<Adj>);
  k["bottom_up"] = resources_of(bottom_up_kernel<Adj>);
  k["hook"] = resources_of(hook_kernel<Adj>);
  k["compress"] = resources_of(compress_kernel<>);
  nlohmann::json out = k[a == graph_algorithm::bfs ? "top_down" : "hook"];
  out["kernels"] = std::move(k);
  out["note"] = "occupancy: resident threads per SM of the kernel / the SM's maximum";
  return out;
}

/// Every traversal of the point: bfs from each source, or cc once. prepare() runs after the
/// traversal's start is set and returns the accessor; finish() runs after it.
template <class Prepare, class Finish>
void run_traversals(graph_outcome& o, const gpu_graph_buffers& b, const graph::csr_graph& g,
                    const run_config& c, bool verify, unsigned max_blocks, cudaStream_t s,
                    Prepare&& prepare, Finish&& finish) {
  if (o.algorithm == graph_algorithm::bfs) {
    std::vector<std::int32_t> levels;
    for (std::size_t i = 0; i < o.sources.size(); ++i) {
      reset_bfs(b, g, o.sources[i], s);
      const auto adj = prepare();
      traversal t = gpu_bfs(adj, b, g, o.sources[i], c.graph.direction_optimizing, max_blocks, s);
      finish();
      b.copy_out(levels, s);
      count_reached(t, g, levels);
      o.runs.push_back(t);
      if (verify) verify_levels(o, g, o.sources[i], levels);
      if (i == 0) o.first_levels = levels;
    }
  } else {
    reset_cc(b, g, s);
    const auto adj = prepare();
    o.runs.push_back(gpu_cc(adj, b, g, max_blocks, s));
    finish();
    b.copy_out(o.labels, s);
    if (verify) verify_labels(o, g);
  }
}

cudaError_t free_neighbours(const run_config& c, void* p) {
  return c.graph.access == graph_access::host_zero_copy ? cudaFreeHost(p) : cudaFree(p);
}

/// gpu-memory, host-zero-copy, uvm: the neighbour array in memory the kernels load directly.
void run_memory_mode(graph_outcome& o, const graph::csr_graph& g, const run_config& c, bool verify,
                     const std::string& file, cudaStream_t s) {
  const std::uint64_t bytes = neighbour_bytes(g);
  const void* src = g.neighbours32.data();
  const std::uint64_t copy = g.edge_count() * sizeof(std::uint32_t);
  void* p = nullptr;
  const std::uint32_t* device = nullptr;
  switch (c.graph.access) {
    case graph_access::gpu_memory:
      cuda_check(cudaMalloc(&p, bytes), "gpu-memory: cudaMalloc");
      cuda_check(cudaMemcpy(p, src, copy, cudaMemcpyHostToDevice), "gpu-memory: copy");
      device = static_cast<const std::uint32_t*>(p);
      break;
    case graph_access::host_zero_copy: {
      cuda_check(cudaHostAlloc(&p, bytes, cudaHostAllocMapped), "host-zero-copy: cudaHostAlloc");
      std::memcpy(p, src, copy);
      void* d = nullptr;
      cuda_check(cudaHostGetDevicePointer(&d, p, 0), "host-zero-copy: device pointer");
      device = static_cast<const std::uint32_t*>(d);
      nlohmann::json load = {{"disk_s", 0.0}, {"disk_bytes", 0}, {"cold", false}};
      if (!file.empty()) {
        const disk_read r = read_from_disk(file);
        load = {{"disk_s", r.seconds}, {"disk_bytes", r.bytes}, {"cold", r.cold}};
      }
      load["disk_note"] = file.empty() ? "no file (an in-memory graph)"
                                       : "the graph file read once from this machine's disk "
                                         "after posix_fadvise(DONTNEED) (cold: it was accepted)";
      o.backend["load"] = std::move(load);
      break;
    }
    default:  // uvm
      cuda_check(cudaMallocManaged(&p, bytes), "uvm: cudaMallocManaged");
      std::memcpy(p, src, copy);
      device = static_cast<const std::uint32_t*>(p);
      break;
  }
  std::size_t traversals = 0;
  try {
    const gpu_graph_buffers b(g);
    preload_graph_kernels<pointer_adj>();
    const unsigned max_blocks = resident_blocks(top_down_kernel<pointer_adj>);
    run_traversals(
        o, b, g, c, verify, max_blocks, s,
        [&] {
          // uvm: the pages the last traversal moved to the GPU go back to the host, so every
          // traversal starts as the first (the copy is not timed).
          if (c.graph.access == graph_access::uvm && traversals > 0) std::memcpy(p, src, copy);
          ++traversals;
          return pointer_adj{device};
        },
        [] {});
    o.backend["kernel"] = kernel_resources<pointer_adj>(o.algorithm);
  } catch (...) {
    (void)free_neighbours(c, p);
    throw;
  }
  cuda_check(free_neighbours(c, p), "graph: free");
  o.backend["offsets"] = "GPU memory";
}

/// bam, bam-preloaded: the neighbour array on GPU-emulated SSDs, read through a fresh cache per
/// traversal (bam-preloaded: every line read once before the timing).
template <class Ctx>
void run_bam_mode(graph_outcome& o, const graph::csr_graph& g, const run_config& c, bool verify,
                  cudaStream_t s) {
  using array_type = typename Ctx::template array_type<std::uint32_t>;
  Ctx ctx(c, layout_options{.manifest = false});
  put_graph(ctx, g, c);
  const gpu_graph_buffers b(g);
  preload_graph_kernels<array_type>();
  // A warp pins at most the two lines its chunk spans: keep the resident warps' pins below
  // half the slots, so that a slot is always free.
  const std::uint64_t slots = c.cache.capacity / c.cache.line_size;
  const std::uint64_t warps_per_block = graph_block_threads / 32;
  const unsigned max_blocks = static_cast<unsigned>(std::clamp<std::uint64_t>(
      slots / (4 * warps_per_block), 1, resident_blocks(top_down_kernel<array_type>)));
  const std::uint64_t elements = std::max<std::uint64_t>(1, g.edge_count());
  const std::uint64_t per_line = c.cache.line_size / sizeof(std::uint32_t);
  try {
    run_traversals(
        o, b, g, c, verify, max_blocks, s,
        [&] {
          ctx.build_cache();
          const array_type adj = ctx.template array<std::uint32_t>(neighbours_region, elements);
          ctx.start();
          if (c.graph.access == graph_access::bam_preloaded) {
            const unsigned blocks = static_cast<unsigned>(
                std::clamp<std::uint64_t>(slots / 2 / graph_block_threads, 1, max_blocks));
            preload_lines_kernel<array_type>
                <<<blocks, graph_block_threads, 0, s>>>(adj, elements, per_line, b.counters());
            cuda_check(cudaGetLastError(), "bam-preloaded: preload");
            cuda_check(cudaStreamSynchronize(s), "bam-preloaded: preload");
            ctx.cache().reset_stats();
          }
          return adj;
        },
        [&] {
          const cache_stats st = ctx.cache().stats();
          o.cache.add(st);
          add_cache_errors(st, o.io);
          ctx.stop();
        });
  } catch (...) {
    ctx.stop();  // b's cudaFree must not wait for the engine, which never ends by itself
    throw;
  }
  o.has_cache = true;
  o.backend["kernel"] = kernel_resources<array_type>(o.algorithm);
  o.backend["kernel"]["max_blocks"] = max_blocks;
  o.backend["offsets"] = "GPU memory";
  o.backend["cache_capacity"] = c.cache.capacity;
  o.backend["storage"] = ctx.describe();
  ctx.close();
}

}  // namespace

graph_outcome run_on_gpu(graph_algorithm a, const graph::csr_graph& g, const run_config& c,
                         const std::vector<std::uint32_t>& sources, bool verify,
                         const std::string& file) {
  std::string why;
  if (!cuda_device_usable(why)) throw std::runtime_error("graph: no usable GPU: " + why);
  check_app_graph(g, "the graph");
  graph_outcome o;
  o.algorithm = a;
  if (a == graph_algorithm::bfs) o.sources = sources;
  cudaStream_t s = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "graph: stream");
  try {
    if (c.graph.access == graph_access::bam || c.graph.access == graph_access::bam_preloaded) {
      if (c.storage.protocol == storage_protocol::hardware)
        run_bam_mode<gpu_context>(o, g, storage_config_of(c, g), verify, s);
      else
        run_bam_mode<emulator_gpu_context>(o, g, storage_config_of(c, g), verify, s);
    } else {
      run_memory_mode(o, g, c, verify, file, s);
    }
  } catch (...) {
    cudaStreamDestroy(s);
    throw;
  }
  cuda_check(cudaStreamDestroy(s), "graph: stream");
  return o;
}

}  // namespace bam::apps
