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
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/host_storage.hpp"
#include "bam/config/config_io.hpp"
#include "bam/storage/dataset.hpp"

namespace bam {

class host_context {
 public:
  using cache_type = bam::cache<host_cache_storage>;
  using cache_ref_type = cache_type::ref_type;
  template <class T>
  using array_type = array<T, cache_ref_type>;

  /// Validates `c` (validate(), then against what the SSDs report) and brings the SSDs up with
  /// queues.pairs_per_ssd I/O queue pairs of queues.depth entries each. Throws config_error for
  /// a backend other than host or nvme and for what the SSDs refuse; std::runtime_error when
  /// they cannot be brought up.
  explicit host_context(const run_config& c, const layout_options& layout = {});
  ~host_context();  ///< close(), errors swallowed
  host_context(const host_context&) = delete;
  host_context& operator=(const host_context&) = delete;

  const run_config& config() const { return cfg_; }
  const dataset& data() const { return data_; }
  const region_table& regions() const { return data_.regions(); }
  /// Appends a region of `bytes` (see dataset::add_region). Before build_cache().
  const region& add_region(std::string name, std::uint64_t bytes);
  /// Writes `bytes` bytes of `data` at the start of region `name` (at most its size) with NVMe
  /// writes of up to a stripe unit through the queues, from several threads, then the manifest
  /// (when kept). Before build_cache() (std::logic_error otherwise); std::runtime_error naming
  /// the SSD, LBA and status when a write fails.
  write_result write_region(std::string_view name, const void* data, std::uint64_t bytes);
  /// Reads the manifest from the SSDs: true when one was there (its regions replace the table),
  /// false when none. std::runtime_error when it is damaged or does not match the SSDs.
  bool load_manifest();
  /// The region writes so far.
  const std::vector<write_result>& writes() const { return writes_; }

  /// Builds the cache `c` asks for over the regions (replacing an earlier one, written back
  /// first). build_cache(cc) builds exactly `cc` (cc.lines = 0: through the last region).
  cache_type& build_cache();
  cache_type& build_cache(cache_config cc);
  bool has_cache() const { return cache_.has_value(); }
  /// The cache (std::logic_error when none was built).
  cache_type& cache();
  /// An array of T over region `name` (see dataset::array_of).
  /// An array of T over region `name` (its first `elements` elements; see dataset::array_of).
  template <class T>
  array_type<T> array(std::string_view name, std::uint64_t elements = dataset::whole) {
    return data_.array_of<T>(cache().ref(), name, elements);
  }
  /// Writes every dirty line back and flushes the SSDs; true when all of it succeeded.
  bool flush();

  /// What the SSDs report (the smallest limit over them; max_ssds = their number).
  backend_caps caps() const;
  /// 1, or one per SSD where the controllers see the cache's slots at different bus addresses.
  std::uint32_t prp_tables() const;
  /// For reports: backend, SSDs and their controllers, the dataset, the writes.
  nlohmann::json describe() const;

  /// Writes back and flushes the cache, drops it, shuts the controllers down. Idempotent.
  void close();

  /// The controllers and their queues (defined in lib/src/storage/host_context.cpp).
  struct controllers;

 private:
  void write_manifest();

  run_config cfg_;
  std::unique_ptr<controllers> ctrls_;
  dataset data_;
  std::vector<write_result> writes_;
  std::optional<cache_type> cache_;
};

}  // namespace bam
