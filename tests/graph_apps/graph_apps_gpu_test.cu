// bfs and cc with GPU threads. EveryAccessMode: gpu-memory, host-zero-copy, uvm, bam and
// bam-preloaded (the last two over two GPU-emulated SSDs, media in pinned host memory, a cache
// far smaller than the neighbour array for bam) give the CPU references' levels and labels on a
// symmetric graph with a hub (bottom-up levels) and on a directed one. GraphAppsGpuSanitizer: the
// same kernels through a bam::array over storage that copies lines in GPU memory (no engine
// kernel beside them, so compute-sanitizer can run it: scripts/gpu/graph-apps.sh). Skipped
// without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>

#include "bam/array/array.hpp"
#include "common/cuda_test.hpp"
#include "common/memory_storage.cuh"
#include "gpu_backend.hpp"
#include "gpu_traversals.cuh"
#include "graph_apps/graph_builders.hpp"
#include "reference.hpp"

namespace bam::test {
namespace {

using apps::graph_algorithm;

run_config gpu_config(graph_access access) {
  run_config c;
  c.storage.backend = backend_kind::emulated;
  c.storage.ssd_count = 2;
  c.storage.media.size_bytes = 8u << 20;
  c.queues.pairs_per_ssd = 8;
  c.queues.depth = 256;
  c.cache.line_size = 4096;
  c.cache.capacity = 256 * 4096;  // 1 MiB: a third of the neighbour array
  c.graph.access = access;
  if (access == graph_access::bam_preloaded) c.cache.capacity = 1024 * 4096;
  validate(c);
  return c;
}

constexpr graph_access all_modes[] = {graph_access::gpu_memory, graph_access::host_zero_copy,
                                      graph_access::uvm, graph_access::bam,
                                      graph_access::bam_preloaded};

TEST(GraphAppsGpu, EveryAccessModeMatchesTheReferences) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  // ~800 000 directed edges (3.2 MB), a hub of 200 000 neighbours in component 1 of 3.
  const graph::csr_graph sym = random_graph(100000, 3, 6, 200000, 11);
  edge_list directed;
  for (std::uint32_t u = 0; u < 50000; ++u) {
    directed.emplace_back(u, static_cast<std::uint32_t>(mix64(u) % 50000));
    directed.emplace_back(u, (u * 7 + 3) % 50000);
  }
  const graph::csr_graph dir = csr_of(50000, directed, false);
  for (const graph_access mode : all_modes) {
    SCOPED_TRACE(to_string(mode));
    const run_config c = gpu_config(mode);
    const apps::graph_outcome b = apps::run_on_gpu(graph_algorithm::bfs, sym, c, {1, 5}, true, "");
    EXPECT_EQ(b.verify.count, 0u) << b.verify.first;
    EXPECT_GT(b.runs[0].bottom_up_steps, 0u);
    EXPECT_EQ(b.first_levels, apps::reference_levels(sym, 1));
    const apps::graph_outcome cc = apps::run_on_gpu(graph_algorithm::cc, sym, c, {}, true, "");
    EXPECT_EQ(cc.verify.count, 0u) << cc.verify.first;
    EXPECT_EQ(cc.labels, apps::reference_components(sym));
    const apps::graph_outcome db = apps::run_on_gpu(graph_algorithm::bfs, dir, c, {0}, true, "");
    EXPECT_EQ(db.verify.count, 0u) << db.verify.first;
    const apps::graph_outcome dc = apps::run_on_gpu(graph_algorithm::cc, dir, c, {}, true, "");
    EXPECT_EQ(dc.verify.count, 0u) << dc.verify.first;
    EXPECT_TRUE(b.backend.contains("kernel"));
    if (mode == graph_access::bam) {
      EXPECT_GT(b.cache.evictions, 0u);
      EXPECT_EQ(b.cache.failed_accesses, 0u);
      EXPECT_EQ(b.io.errors, 0u);
    }
    if (mode == graph_access::bam_preloaded) EXPECT_EQ(b.cache.misses, 0u);
    if (mode == graph_access::host_zero_copy) EXPECT_TRUE(b.backend.contains("load"));
  }
}

// ---- a small case for compute-sanitizer ----------------------------------------------------

using mcache = bam::cache<memory_storage>;
using marray = bam::array<std::uint32_t, mcache::ref_type>;

TEST(GraphAppsGpuSanitizer, BfsAndCcThroughACacheOverGpuMemory) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const graph::csr_graph g = random_graph(3000, 3, 6, 2000, 13);  // ~11 000 edges, 44 KB
  constexpr std::uint32_t line_bytes = 512;
  const std::uint64_t lines = (g.edge_count() * 4 + line_bytes - 1) / line_bytes;
  bam::cache_config cc;
  cc.line_bytes = line_bytes;
  cc.slots = 64;  // a sixth of the lines
  cc.lines = lines;
  mcache c(cc, lines);
  CUDA_OK(cudaMemcpy(c.storage().media(), g.neighbours32.data(), g.edge_count() * 4,
                     cudaMemcpyHostToDevice));
  const marray adj(c.ref(), {0, g.edge_count()});
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  {
    const apps::gpu_graph_buffers b(g);
    constexpr unsigned max_blocks = 2;  // 16 warps: at most 32 of the 64 slots pinned
    apps::reset_bfs(b, g, 1, s);
    const apps::traversal t = apps::gpu_bfs(adj, b, g, 1, true, max_blocks, s);
    std::vector<std::int32_t> levels;
    b.copy_out(levels, s);
    EXPECT_EQ(levels, apps::reference_levels(g, 1));
    EXPECT_GT(t.bottom_up_steps, 0u);
    apps::reset_cc(b, g, s);
    apps::gpu_cc(adj, b, g, max_blocks, s);
    std::vector<std::uint32_t> labels;
    b.copy_out(labels, s);
    EXPECT_EQ(labels, apps::reference_components(g));
  }
  const bam::cache_stats st = c.stats();
  EXPECT_GT(st.evictions, 0u);
  EXPECT_EQ(st.failed_accesses, 0u);
  CUDA_OK(cudaStreamDestroy(s));
}

}  // namespace
}  // namespace bam::test
