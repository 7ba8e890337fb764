// bam/storage/storage_context.hpp: API. What the two storage contexts (host_context for CPU
// threads, gpu_context for GPU threads) share: the run config, the dataset (geometry and named
// regions), writing a region's contents and the manifest, the cache over the regions and typed
// arrays over each region. A base template (CRTP): the derived context owns the SSDs and
// supplies how data reaches them (write_data, store_manifest, fetch_manifest) and how it builds
// its cache (build_cache(cache_config)).
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/config/run_config.hpp"
#include "bam/report/run_result.hpp"
#include "bam/storage/checksum.hpp"
#include "bam/storage/dataset.hpp"

namespace bam {

/// Throws config_error (storage.ssd_count) when `c` asks for more SSDs than a cache spans.
void check_cache_ssds(const run_config& c);

/// Adds the cache's failed I/Os in `s` to `r`: errors, timeouts, errors_by_status (named as
/// nvme::status_name prints them; "Unrecorded status" for those the cache could not tell).
void add_cache_errors(const cache_stats& s, run_result& r);

template <class Derived, class Cache>
class storage_context {
 public:
  using cache_type = Cache;
  using cache_ref_type = typename Cache::ref_type;
  template <class T>
  using array_type = bam::array<T, cache_ref_type>;

  const run_config& config() const { return cfg_; }
  const dataset& data() const { return *data_; }
  const region_table& regions() const { return data_->regions(); }
  /// The region writes so far.
  const std::vector<write_result>& writes() const { return writes_; }

  /// Appends a region of `bytes` (see dataset::add_region) and returns it. Before build_cache()
  /// (std::logic_error otherwise).
  region add_region(std::string name, std::uint64_t bytes) {
    if (cache_) throw std::logic_error("storage context: add_region after build_cache");
    return data_->add_region(std::move(name), bytes);
  }

  /// Writes `bytes` bytes of `data` (host memory) at the start of region `name` (at most its
  /// size), then the manifest when the layout keeps one. A region written before is first
  /// recorded as unwritten on the SSDs, so a write that fails part way leaves no manifest that
  /// vouches for half-new data. How the bytes travel is the derived context's (its
  /// write_region docs); `route` picks among its ways. Before build_cache()
  /// (std::logic_error otherwise); std::invalid_argument for too many bytes; the failures of
  /// the route.
  write_result write_region(std::string_view name, const void* data, std::uint64_t bytes,
                            write_route route = write_route::automatic) {
    if (cache_) throw std::logic_error("storage context: write_region after build_cache");
    self().check_open("write_region");
    const region r = data_->regions().at(name);
    if (bytes > r.bytes) {
      std::string what = "write_region \"";
      what += r.name;
      what += "\": ";
      what += std::to_string(bytes);
      what += " B of data for a region of ";
      what += std::to_string(r.bytes);
      what += " B";
      throw std::invalid_argument(what);
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (r.written && data_->keeps_manifest()) {
      data_->table().mark_unwritten(r.name);
      self().store_manifest(data_->regions().encode(data_->geometry()));
    }
    write_result out = self().write_data(r, data, bytes, route);
    data_->table().mark_written(r.name, bytes, checksum64(data, bytes));
    if (data_->keeps_manifest()) {
      out.commands += self().store_manifest(data_->regions().encode(data_->geometry()));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    writes_.push_back(out);
    return out;
  }

  /// Reads the manifest from the dataset's first stripe unit: true when one was there (its
  /// regions replace the table), false when none. std::runtime_error when it is damaged, does not
  /// match the SSDs or names regions past their room. Before build_cache().
  bool load_manifest() {
    if (!data_->keeps_manifest())
      throw std::logic_error("storage context: load_manifest on a layout without a manifest");
    if (cache_) throw std::logic_error("storage context: load_manifest after build_cache");
    self().check_open("load_manifest");
    const std::vector<std::byte> m = self().fetch_manifest();
    if (!region_table::has_manifest(m)) return false;
    data_->adopt(region_table::decode(m, data_->geometry()));
    return true;
  }

  /// Builds the cache the config asks for (cache.line_size; cache.capacity / line_size slots)
  /// over the lines through the last region; see Derived::build_cache(cache_config).
  cache_type& build_cache() { return self().build_cache(data_->cache_config_of(cfg_)); }
  bool has_cache() const { return cache_.has_value(); }
  /// The cache (std::logic_error when none was built).
  cache_type& cache() {
    if (!cache_) throw std::logic_error("storage context: no cache (build_cache first)");
    return *cache_;
  }
  /// An array of T over region `name` (its first `elements` elements; see dataset::array_of).
  template <class T>
  array_type<T> array(std::string_view name, std::uint64_t elements = dataset::whole) {
    return data_->template array_of<T>(cache().ref(), name, elements);
  }
  /// True when the cache saw an I/O fail or an access get no data since its counters were last
  /// reset (cache::io_failed()); false without a cache.
  bool io_failed() const { return cache_ && cache_->io_failed(); }
  /// Adds the cache's failures since its counters were last reset to `r` (add_cache_errors),
  /// and its failed accesses to r.tool_stats["failed_accesses"].
  void add_io_failures(run_result& r) const {
    if (!cache_) return;
    const cache_stats s = cache_->stats();
    add_cache_errors(s, r);
    nlohmann::json& f = r.tool_stats["failed_accesses"];
    f = (f.is_number_unsigned() ? f.get<std::uint64_t>() : 0) + s.failed_accesses;
  }

  /// 1, or one per SSD where the SSDs see the cache's slots at different bus addresses.
  std::uint32_t prp_tables() const { return cache_ ? cache_->storage().prp_tables() : 0; }

 protected:
  explicit storage_context(const run_config& c) : cfg_(c) { check_cache_ssds(c); }
  ~storage_context() = default;
  Derived& self() { return static_cast<Derived&>(*this); }
  /// cc with its lines filled in (0: through the last region).
  cache_config lines_filled(cache_config cc) const {
    if (cc.lines == 0) cc.lines = data_->lines(cc.line_bytes);
    return cc;
  }
  /// Writes the old cache back before a new one replaces it; throws (keeping it) when that
  /// fails, so no dirty line is dropped unwritten.
  void flush_before_replacing() {
    if (cache_ && !self().flush()) {
      throw std::runtime_error(
          "storage context: the cache could not be written back; it is kept (no new cache)");
    }
  }

  run_config cfg_;
  std::optional<dataset> data_;  ///< set by the derived constructor once the SSDs are up
  std::vector<write_result> writes_;
  /// Dropped by the derived close() before the SSDs go, also when writing it back fails.
  std::optional<cache_type> cache_;
};

}  // namespace bam
