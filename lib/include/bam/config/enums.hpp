// bam/config/enums.hpp: API. The enums of the run config (bam/config/run_config.hpp), apart from
// its strings and containers: plain enum classes, so kernel parameters carry them as they are
// (workload_params::op) instead of ints. Their names (to_string, the schema) are run_config's.
#pragma once

namespace bam {

enum class backend_kind {
  emulated,  ///< emulated SSDs served on the GPU (GPU threads as clients)
  nvme,      ///< real NVMe controllers through the bamkit kernel module
  host,      ///< host emulated controllers, CPU threads as clients
  uring,     ///< CPU-orchestrated baseline: io_uring reads of a file (+ copy to the GPU)
  zerocopy,  ///< GPU threads read/write pinned host memory directly (DRAM-only target path)
  cufile,    ///< GPUDirect Storage: CPU threads cuFileRead/cuFileWrite a file into GPU memory
};
enum class media_kind { host, gpu, file };

// ---- storage.protocol (issue 14: honest emulation) ----------------------------------------
/// How GPU threads drive the queues of GPU-emulated SSDs (backend emulated).
enum class storage_protocol {
  hardware,  ///< what a real controller needs: MMIO doorbells (system fence + volatile store),
             ///< completions polled at system scope, the §4.4 ordering read after every read
  emulator,  ///< device-scope doorbells and polling, possible only because the controller runs
             ///< on the same GPU: an upper bound no real SSD allows
};
// ---- end storage.protocol -------------------------------------------------------------------
enum class io_pattern { random, sequential };
enum class io_op { read, write, mixed };

/// How cache-bench threads reach the cache (BaM dissertation §7.2).
enum class cache_access_mode {
  plain,      ///< one acquire/release per thread and element, no coalescing
  coalesced,  ///< bam::array operator[]: lanes of a warp on one line share an acquire
  reuse,      ///< bam::array_ref: a thread keeps its line pinned across its accesses
};
enum class cache_temperature {
  hot,   ///< a first pass loads the dataset; the measured pass must have no misses
  cold,  ///< a fresh (empty) cache before the measured pass
};
/// Which elements of a chunk a cache-bench thread accesses (with coarsening c).
enum class cache_bench_layout {
  thread,  ///< thread t: c consecutive elements of its own chunk
  warp,    ///< a warp (host: 32 consecutive threads): 32 c consecutive elements, lane l at
           ///< step j the chunk's element 32 j + l (every warp load coalesced)
};

/// Where the graph applications (bfs, cc) read the neighbour lists from (graph.access; issue 15).
/// The vertex offsets are in GPU memory in every mode; only the neighbour array moves.
enum class graph_access {
  gpu_memory,      ///< the graph in GPU memory: the compute-only bound
  host_zero_copy,  ///< pinned, mapped host memory read by GPU threads (EMOGI; the target "T")
  uvm,             ///< cudaMallocManaged, no prefetch: pages migrate on fault
  bam,             ///< on the SSDs, read through the BaM cache (bam::array)
  bam_preloaded,   ///< as bam, every line read into the cache before timing: the cache API alone
};

// ---- taxi (issue 16) ----
/// taxi-query's implementations (taxi.impl).
enum class taxi_impl {
  bam,    ///< one scan through bam::array: the other columns read only for qualifying rows
  tiled,  ///< CPU-orchestrated row groups of every needed column (RAPIDS-like)
  both,   ///< bam, then tiled, in one process
};
/// Where taxi-query's tiled implementation reads its row groups (taxi.tiled_source).
enum class taxi_tiled_source {
  ssd,         ///< block reads from the same (emulated) SSDs through host queues
  page_cache,  ///< the table's files (the page cache): the baseline's best case
};
// ---- end taxi ----

}  // namespace bam
