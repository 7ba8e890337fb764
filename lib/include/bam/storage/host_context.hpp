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

  /// Writes `bytes` bytes of `data` at the start of region `name` (at most its size) with NVMe
  /// writes of up to a stripe unit through the queues, from several threads, then the manifest
  /// (when kept). Before build_cache() (std::logic_error otherwise); std::runtime_error naming
  /// the SSD, LBA and status when a write fails.
  write_result write_region(std::string_view name, const void* data, std::uint64_t bytes);
  /// Reads the manifest from the SSDs: true when one was there (its regions replace the table),
  /// false when none. std::runtime_error when it is damaged or does not match the SSDs.
  bool load_manifest();

  using storage_context::build_cache;
  /// Builds exactly `cc` (cc.lines = 0: through the last region), replacing an earlier cache
  /// (written back first).
  cache_type& build_cache(cache_config cc);
  /// Writes every dirty line back and flushes the SSDs; true when all of it succeeded.
  bool flush();

  /// What the SSDs report (the smallest limit over them; max_ssds = their number).
  backend_caps caps() const;
  /// For reports: backend, SSDs and their controllers, the dataset, the writes.
  nlohmann::json describe() const;

  /// Writes back and flushes the cache, drops it, shuts the controllers down. Idempotent.
  void close();

  /// The controllers and their queues (defined in lib/src/storage/host_context.cpp).
  struct controllers;

 private:
  void write_manifest();

  std::unique_ptr<controllers> ctrls_;
};

static_assert(std::is_trivially_copyable_v<host_context::array_type<std::uint64_t>>);

}  // namespace bam
