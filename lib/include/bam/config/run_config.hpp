// bam/config/run_config.hpp: API. The configuration every bamkit tool shares, as plain structs
// whose member initialisers are THE defaults (the JSON schema, --help and docs/config.md are
// derived from them). Sections: storage, queues, cache, workload, report, uring, cache_bench, gpu,
// taxi, graph.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bam/cache/cache_config.hpp"
#include "bam/config/enums.hpp"
#include "bam/config/ssd_model.hpp"

namespace bam {

struct media_config {
  media_kind kind = media_kind::host;
  std::uint64_t size_bytes = std::uint64_t{1} << 30;  ///< per SSD (per file for uring, cufile)
  std::string path;                                   ///< for kind=file
  bool operator==(const media_config&) const = default;
};

// ---- faults (issue 14): storage.faults, storage.faults_per_ssd, queues.timeout_ms ----------

/// Faults an emulated SSD injects into its I/O commands (storage.faults for every SSD,
/// storage.faults_per_ssd[i] for SSD i): fractions of the commands complete with an error
/// status, complete late, or never complete. The host emulated controllers and the GPU engine
/// decide each command's fate the same way (bam/emu/fault_injection.hpp), so a seed means the
/// same on both.
struct fault_settings {
  double error_fraction = 0;           ///< complete with error_status, moving no data
  std::uint16_t error_status = 0x281;  ///< SCT << 8 | SC; 0x281: Unrecovered Read Error
  double delay_fraction = 0;           ///< complete delay_us later
  std::uint64_t delay_us = 0;
  double drop_fraction = 0;  ///< never complete (until aborted or the queue is deleted)
  std::uint64_t seed = 0;
  /// Whether any command is faulted.
  bool any() const { return error_fraction > 0 || delay_fraction > 0 || drop_fraction > 0; }
  bool operator==(const fault_settings&) const = default;
};

/// One entry of storage.faults_per_ssd: the keys it gives replace storage.faults' for its SSD;
/// the others are storage.faults'.
struct fault_overrides {
  std::optional<double> error_fraction;
  std::optional<std::uint16_t> error_status;
  std::optional<double> delay_fraction;
  std::optional<std::uint64_t> delay_us;
  std::optional<double> drop_fraction;
  std::optional<std::uint64_t> seed;
  /// `base` with the keys given here replaced.
  fault_settings over(fault_settings base) const {
    if (error_fraction) base.error_fraction = *error_fraction;
    if (error_status) base.error_status = *error_status;
    if (delay_fraction) base.delay_fraction = *delay_fraction;
    if (delay_us) base.delay_us = *delay_us;
    if (drop_fraction) base.drop_fraction = *drop_fraction;
    if (seed) base.seed = *seed;
    return base;
  }
  bool operator==(const fault_overrides&) const = default;
};

// ---- end of faults -----------------------------------------------------------------------

struct storage_config {
  backend_kind backend = backend_kind::host;
  std::uint32_t ssd_count = 1;
  model_spec model{};
  media_config media{};
  std::uint32_t lba_size = 512;
  std::vector<std::string> device_paths;  ///< for backend=nvme, one per SSD
  /// The BaM paper's §4.4 workaround on the nvme backend's GPU path: after a completion, a
  /// coalesced extra NVMe read flushes the controller's PCIe writes into GPU memory before the
  /// data is used. auto: on for backend nvme, off otherwise; on; off.
  std::string nvme_ordering_read = "auto";
  // ---- storage.protocol (issue 14: honest emulation) --------------------------------------
  /// Backend emulated: hardware (the GPU threads execute what a real controller needs) or
  /// emulator (device scope, an upper bound). Every other backend already runs the real
  /// protocol or has no NVMe queues: hardware only.
  storage_protocol protocol = storage_protocol::hardware;
  // ---- end storage.protocol ---------------------------------------------------------------
  // faults (issue 14)
  fault_settings faults{};                      ///< every SSD's, unless faults_per_ssd is given
  std::vector<fault_overrides> faults_per_ssd;  ///< empty, or one per SSD (over `faults`)
  bool operator==(const storage_config&) const = default;
};

struct queues_config {
  std::uint32_t pairs_per_ssd = 1;
  std::uint32_t depth = 256;  ///< entries per SQ and CQ
  /// Per-command timeout of every wait, ms; 0: automatic (command_timeout_ns). Issue 14.
  std::uint32_t timeout_ms = 0;
  bool operator==(const queues_config&) const = default;
};

/// The `cache` section (named apart from bam/cache/cache_config.hpp's cache_config, which a
/// tool builds from it: slots = capacity / line_size).
struct run_cache_config {
  std::uint64_t line_size = 4096;
  std::uint64_t capacity = std::uint64_t{1} << 30;
  // ---- cache errors (issue 14) ----
  /// What an array access that must succeed does when its line cannot be read (flag: counted,
  /// T{} read, write dropped; trap: the program stops). See bam::cache_error_mode.
  cache_error_mode on_error = cache_error_mode::flag;
  // ---- end cache errors ----
  bool operator==(const run_cache_config&) const = default;
};

struct workload_config {
  std::uint32_t threads = 2;
  std::uint64_t io_size = 4096;
  io_pattern pattern = io_pattern::random;
  io_op op = io_op::read;
  double read_ratio = 0.5;          ///< fraction of reads when op=mixed
  std::uint64_t ios = 200000;       ///< total I/Os over all threads; 0: no limit
  double duration_s = 0;            ///< stop after this time; 0: no limit
  std::uint32_t outstanding = 4;    ///< I/Os in flight per thread
  std::uint64_t dataset_bytes = 0;  ///< bytes of each SSD the I/Os touch; 0: the whole media
  std::uint64_t seed = 1;
  bool operator==(const workload_config&) const = default;
};

struct report_config {
  std::string json;                                ///< fio json+ report path ("" = none)
  std::string csv;                                 ///< CSV path; a row is appended ("" = none)
  std::vector<std::string> formats = {"summary"};  ///< on stdout: summary, json, csv
  bool measure_ceilings = false;
  bool operator==(const report_config&) const = default;
};

/// Options of the io_uring baseline (storage.backend = uring).
struct uring_config {
  bool direct = false;             ///< O_DIRECT; false: buffered reads from the page cache
  bool registered_buffers = true;  ///< io_uring fixed buffers (read_fixed)
  std::string gpu_copy = "auto";   ///< copy each read to GPU memory: auto (when a GPU), on, off
  bool operator==(const uring_config&) const = default;
};

/// Options of cache-bench (8-byte element accesses through bam::array).
struct cache_bench_config {
  cache_access_mode mode = cache_access_mode::coalesced;
  std::uint32_t coarsening = 1;  ///< elements each thread accesses per iteration
  cache_temperature temperature = cache_temperature::hot;
  std::uint64_t elements = 0;    ///< dataset elements (8 B each); 0: threads * coarsening
  std::uint32_t iterations = 1;  ///< measured accesses per thread: iterations * coarsening
  cache_bench_layout layout = cache_bench_layout::thread;
  bool operator==(const cache_bench_config&) const = default;
};

/// How the GPU client threads of nvm-block-bench's `emulated` backend pick their SSD and queue
/// (random pattern; a sequential I/O goes to the SSD its offset stripes to, on the same queue
/// index).
enum class gpu_queue_mapping {
  warp,    ///< warp w = t / 32: SSD w % ssd_count, queue (w / ssd_count) % pairs_per_ssd (a
           ///< warp's lanes share one queue)
  thread,  ///< thread t: SSD t % ssd_count, queue (t / ssd_count) % pairs_per_ssd (the BaM
           ///< paper's benchmark)
};

/// How nvm-block-bench's `emulated` GPU threads use their queue pairs.
enum class gpu_queue_access {
  automatic,  ///< a thread alone on its queue pair (one command at a time, no other thread
              ///< mapped to it) holds it as its only user (bam::queue_hold); every other one
              ///< through BaM's shared protocol
  shared,     ///< every thread through BaM's shared protocol (queue_pair_ref::submit_and_wait)
};

/// Where the `emulated` backends' engine blocks run (emu::gpu::drives_config::
/// engine_on_first_sms).
enum class gpu_engine_placement {
  automatic,  ///< scheduler, but first_sms for an I/O-only client (nvm-block-bench) over pinned
              ///< media at or past emu::gpu::uneven_host_reads_bytes (emu::gpu::drives_config_of)
  scheduler,  ///< where the block scheduler puts them
  first_sms,  ///< engine block b on SM b
};

/// The GPU side of the `emulated` backends: the queue mapping of the client threads and the size
/// of the engine that serves the emulated SSDs (0: automatic, emu::gpu::drives_config_of).
struct gpu_config {
  gpu_queue_mapping queue_mapping = gpu_queue_mapping::warp;
  std::uint32_t engine_blocks = 0;           ///< persistent engine blocks; 0: automatic
  std::uint32_t engine_warps_per_block = 0;  ///< warps per engine block; 0: automatic (16, or
                                             ///< from 4 in engine_placement auto's even engine)
  /// Busy engine warps hand queues over to idle ones (emu::gpu::drives_config::engine_handover)
  bool engine_handover = true;
  gpu_engine_placement engine_placement = gpu_engine_placement::automatic;
  gpu_queue_access queue_access = gpu_queue_access::automatic;
  bool operator==(const gpu_config&) const = default;
};

/// Options of the graph applications bfs and cc (issue 15; tools/graph-common).
struct graph_config {
  std::string file;  ///< the input graph: .csr, .mtx, .el or .col (with .dst beside it)
  graph_access access = graph_access::bam;
  /// bfs: the source vertex, as the input file numbers it; none: graph.sources sources picked by
  /// the seeded rule (tools/graph-common/sources.hpp).
  std::optional<std::uint64_t> source;
  std::uint32_t sources = 1;  ///< bfs: how many sources the seeded rule picks (workload.seed)
  std::string dump;           ///< bfs: levels of the first source, cc: labels ("": none)
  bool direction_optimizing = true;  ///< bfs: bottom-up levels where they help (symmetric graphs)
  bool operator==(const graph_config&) const = default;
};

// ---- taxi (issue 16) ----
/// taxi-query (data-dependent queries over the NYC taxi table; docs/taxi.md).
struct taxi_config {
  std::string data;             ///< the table directory (bam-data taxi-import / taxi-gen)
  std::string queries = "all";  ///< "all" or a comma list of q0..q5
  double min_distance = 30;     ///< D: S = the rows with trip_distance >= D (miles)
  taxi_impl impl = taxi_impl::both;
  taxi_tiled_source tiled_source = taxi_tiled_source::ssd;
  std::uint64_t row_group_rows = std::uint64_t{1} << 20;  ///< rows per tiled row group
  std::string results;  ///< write {"q0": {"rows", "value"}, ...} here ("": none)
  bool operator==(const taxi_config&) const = default;
};
// ---- end taxi ----

struct run_config {
  storage_config storage{};
  queues_config queues{};
  run_cache_config cache{};
  workload_config workload{};
  report_config report{};
  uring_config uring{};
  cache_bench_config cache_bench{};
  gpu_config gpu{};
  taxi_config taxi{};  // taxi (issue 16)
  graph_config graph{};
  bool operator==(const run_config&) const = default;

  /// Bytes of each SSD the workload touches (dataset_bytes, or the media size when 0).
  std::uint64_t dataset() const {
    return workload.dataset_bytes != 0 ? workload.dataset_bytes : storage.media.size_bytes;
  }
};

/// Whether the nvme backend's GPU path issues the ordering read (storage.nvme_ordering_read
/// resolved: "auto" is on exactly for backend nvme). Host-mode I/O never needs it.
bool nvme_ordering_read_enabled(const run_config& c);

// ---- faults (issue 14) ----------------------------------------------------------------------
/// The faults SSD `ssd` injects: storage.faults, with storage.faults_per_ssd[ssd]'s keys over it
/// when that list is given.
fault_settings faults_of(const storage_config& s, std::uint32_t ssd);
/// Whether any SSD injects faults.
bool faults_enabled(const storage_config& s);
/// The per-command timeout every wait of a run uses, in ns (queues.timeout_ms resolved, the one
/// place it is): timeout_ms when set; otherwise 30 s without faults (Linux's NVMe I/O timeout)
/// and, with faults, 1 s plus the longest injected delay, so that a dropped command times out
/// and a delayed one does not.
std::uint64_t command_timeout_ns(const run_config& c);
// ---- end of faults ---------------------------------------------------------------------------

/// log2 of storage.lba_size (the one place it is computed; kernels take it from their queue set).
std::uint32_t lba_shift_of(const storage_config& s);

const char* to_string(backend_kind k);
const char* to_string(media_kind k);
const char* to_string(io_pattern p);
const char* to_string(io_op o);
const char* to_string(cache_access_mode m);
const char* to_string(cache_temperature t);
const char* to_string(cache_bench_layout l);
const char* to_string(gpu_queue_mapping m);
const char* to_string(gpu_engine_placement p);
const char* to_string(gpu_queue_access a);
const char* to_string(storage_protocol p);
const char* to_string(cache_error_mode m);
const char* to_string(taxi_impl i);          // taxi (issue 16)
const char* to_string(taxi_tiled_source s);  // taxi (issue 16)
const char* to_string(graph_access a);

}  // namespace bam
