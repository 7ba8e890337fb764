// bam/storage/host_context.hpp: API. The library's entry point for applications whose threads are
// CPU threads: from a validated run config to running SSDs (storage.backend host: host-emulated
// controllers; nvme: real controllers bound to bamkit.ko, host mode), named regions laid out on
// them (written through the queues), a BaM cache over them and typed bam::arrays over each
// region, statistics, and a clean stop. GPU threads: bam/storage/gpu_context.hpp.
//
//   bam::host_context ctx(cfg);                        // controllers up, queues created
//   ctx.add_region("numbers", n * 8);
//   ctx.write_region("numbers", values.data(), n * 8); // NVMe writes, then the manifest
//   ctx.build_cache();                                 // cache.line_size, cache.capacity
//   auto a = ctx.array<std::uint64_t>("numbers");      // any number of CPU threads use it
//   ... a[i] ...
//   ctx.close();                                       // write back, flush, shut down
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/host_storage.hpp"
#include "bam/config/config_io.hpp"
#include "bam/report/recovery_counts.hpp"
#include "bam/storage/dataset.hpp"
#include "bam/storage/storage_context.hpp"

namespace bam {

class host_context : public storage_context<host_context, bam::cache<host_cache_storage>> {
 public:
  /// Validates `c` (validate(), then against what the SSDs report) and brings the SSDs up with
  /// queues.pairs_per_ssd I/O queue pairs of queues.depth entries each. Throws config_error for
  /// a backend other than host or nvme and for what the SSDs refuse; std::runtime_error when
  /// they cannot be brought up.
  explicit host_context(const run_config& c, const layout_options& layout = {});
  ~host_context();  ///< close(), errors swallowed
  host_context(const host_context&) = delete;
  host_context& operator=(const host_context&) = delete;

  // write_region (storage_context): NVMe writes of up to a stripe unit (and the SSDs' MDTS)
  // through the queues, from several threads, each SSD flushed after; route media is refused
  // (std::invalid_argument). std::runtime_error naming the SSD, LBA and status when a write
  // fails or times out.

  /// What a read_region did.
  struct read_result {
    std::uint64_t commands = 0;  ///< NVMe reads issued
    std::uint64_t bytes = 0;     ///< bytes they moved from the SSDs (whole LBAs)
  };
  /// Reads bytes [offset, offset + bytes) of region `name` into `dst` (host memory) through the
  /// SSDs' queues: NVMe reads of up to a stripe unit (and the SSDs' MDTS), issued by up to
  /// `threads` threads (0: one per core, at most 16), each a queue of its SSD (thread w uses
  /// queue w % queues.pairs_per_ssd). For applications that move whole blocks themselves (a
  /// CPU-orchestrated baseline) rather than through the cache. Not while a cache's lines of
  /// the region are dirty (its data is what the SSDs hold). std::out_of_range past the region;
  /// std::runtime_error naming the SSD, LBA and status when a read fails or times out.
  read_result read_region(std::string_view name, std::uint64_t offset, void* dst,
                          std::uint64_t bytes, unsigned threads = 0);

  using storage_context::build_cache;
  /// Builds exactly `cc` (cc.lines = 0: through the last region), replacing an earlier cache
  /// (written back first).
  cache_type& build_cache(cache_config cc);
  /// Writes every dirty line back and flushes the SSDs; true when all of it succeeded.
  bool flush();

  /// What the SSDs report (the smallest limit over them; max_ssds = their number).
  backend_caps caps() const;
  /// What the queues' recovery did so far: a command whose wait gave up (queues.timeout_ms) is
  /// aborted through the admin queue, or its queue deleted, created again and reset, by a
  /// watchdog thread (bam/driver/queue_recovery.hpp). Cache reads and region writes that
  /// failed meanwhile have reported their errors; later ones go through.
  recovery_counts recovery() const;
  /// For reports: backend, SSDs and their controllers, the dataset, the writes.
  nlohmann::json describe() const;

  /// Writes back and flushes the cache, drops it, shuts the controllers down. Idempotent.
  void close();

  /// The controllers and their queues (defined in lib/src/storage/host_context.cpp).
  struct controllers;

 private:
  friend class storage_context;
  void check_open(const char* what) const;
  write_result write_data(const region& r, const void* data, std::uint64_t bytes,
                          write_route route);
  /// Writes the manifest at the dataset's byte 0; returns the commands it took.
  std::uint64_t store_manifest(const std::vector<std::byte>& m);
  std::vector<std::byte> fetch_manifest();
  std::uint64_t command_bytes() const;

  std::unique_ptr<controllers> ctrls_;
};

}  // namespace bam
