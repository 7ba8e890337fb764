// bam/storage/storage_context.hpp: API. What the two storage contexts (host_context for CPU
// threads, gpu_context for GPU threads) share: the run config, the dataset (geometry and named
// regions), the region writes done, the cache over the regions and typed arrays over each
// region. A base template (CRTP): the derived context owns the SSDs, writes regions its way and
// builds its cache (Derived::build_cache(cache_config)).
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/cache/cache_config.hpp"
#include "bam/config/run_config.hpp"
#include "bam/storage/dataset.hpp"

namespace bam {

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

  /// Appends a region of `bytes` (see dataset::add_region). Before build_cache()
  /// (std::logic_error otherwise).
  const region& add_region(std::string name, std::uint64_t bytes) {
    if (cache_) throw std::logic_error("storage context: add_region after build_cache");
    return data_->add_region(std::move(name), bytes);
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
  /// 1, or one per SSD where the SSDs see the cache's slots at different bus addresses.
  std::uint32_t prp_tables() const { return cache_ ? cache_->storage().prp_tables() : 0; }

 protected:
  explicit storage_context(const run_config& c) : cfg_(c) {}
  ~storage_context() = default;
  Derived& self() { return static_cast<Derived&>(*this); }
  /// cc with its lines filled in (0: through the last region).
  cache_config lines_filled(cache_config cc) const {
    if (cc.lines == 0) cc.lines = data_->lines(cc.line_bytes);
    return cc;
  }

  run_config cfg_;
  std::optional<dataset> data_;  ///< set by the derived constructor once the SSDs are up
  std::vector<write_result> writes_;
  std::optional<cache_type> cache_;  ///< dropped by the derived close(), before the SSDs go
};

}  // namespace bam
