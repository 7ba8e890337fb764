// gpu_backend.hpp: API (CUDA builds). bfs and cc with GPU threads in every access mode
// (graph.access), the same kernels over a plain pointer (gpu-memory: cudaMalloc;
// host-zero-copy: pinned, mapped host memory; uvm: cudaMallocManaged, no prefetch) or a
// bam::array over GPU-emulated SSDs (bam: a fresh cache per traversal; bam-preloaded: every
// line read into the cache before timing). The vertex offsets, levels, labels and frontiers are
// in GPU memory in every mode.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bam/graph/csr.hpp"
#include "bam/harness/backend.hpp"
#include "graph_run.hpp"

namespace bam::apps {

/// One point on `g` (0-based `sources` for bfs) with GPU threads. `file`: the graph's file, whose
/// read from disk host-zero-copy reports as its measured load time ("": none). Throws
/// config_error for what `c` cannot do, std::runtime_error on CUDA errors.
graph_outcome run_on_gpu(graph_algorithm a, const graph::csr_graph& g, const run_config& c,
                         const std::vector<std::uint32_t>& sources, bool verify,
                         const std::string& file);

/// The harness backend (storage.backend emulated).
std::unique_ptr<backend> make_gpu_backend(graph_algorithm a);

}  // namespace bam::apps
