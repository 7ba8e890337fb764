// bam/storage/dataset.hpp: API. What both storage contexts (host_context, gpu_context) keep of
// the data on their SSDs: the geometry the data is striped with, the named regions (and whether
// a manifest in the first stripe unit records them), the capacity, the cache a run config asks
// for over those regions, and typed arrays over a region.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bam/array/array.hpp"
#include "bam/cache/cache_config.hpp"
#include "bam/cache/line_map.hpp"
#include "bam/config/run_config.hpp"
#include "bam/storage/regions.hpp"

namespace bam {

struct layout_options {
  /// Keep the regions' manifest in the dataset's first stripe unit (LBA 0 of SSD 0): regions
  /// start after it and load_manifest() finds them again. Off: regions start at byte 0 (scratch
  /// data of benchmarks, which lay out their data anew each run).
  bool manifest = true;
};

/// How write_region puts a region's contents onto the SSDs.
enum class write_route {
  automatic,  ///< straight into the media where the SSDs are emulated in memory, else queues
  queues,     ///< NVMe writes through the SSDs' queues (what real SSDs need)
  media,      ///< straight into emulated media (no NVMe command; emulated SSDs only)
};

/// What a write_region did (reports echo it).
struct write_result {
  std::string region;
  std::uint64_t bytes = 0;     ///< of the region's contents
  std::uint64_t commands = 0;  ///< NVMe write commands issued (0 on the media route)
  std::string route;           ///< "queues" or "media"
  double seconds = 0;
  nlohmann::json to_json() const;
};

class dataset {
 public:
  /// The dataset on the SSDs of queue set `q`: their geometry, their room in whole stripe units.
  template <class QueueSet>
  static dataset of(const QueueSet& q, const layout_options& o) {
    return dataset(dataset_geometry{q.ssds(), q.lba_bytes()},
                   striped_capacity_bytes(q.lbas() << q.lba_shift(), q.ssds()), o);
  }

  dataset(const dataset_geometry& g, std::uint64_t capacity_bytes, const layout_options& o);

  /// Appends a region (bam/storage/regions.hpp) and returns it. Throws std::invalid_argument as
  /// region_table does, and when it would end past capacity_bytes().
  region add_region(std::string name, std::uint64_t bytes);
  const region_table& regions() const { return table_; }
  region_table& table() { return table_; }
  /// Replaces the table by one read from a manifest; std::runtime_error (naming
  /// storage.media.size_bytes) when its regions end past capacity_bytes().
  void adopt(region_table t);

  const dataset_geometry& geometry() const { return geometry_; }
  /// Bytes of the dataset the SSDs hold (whole stripe units on every SSD).
  std::uint64_t capacity_bytes() const { return capacity_; }
  bool keeps_manifest() const { return options_.manifest; }

  /// Lines of `line_bytes` through the last region's last byte (every line when no region is
  /// defined).
  std::uint64_t lines(std::uint32_t line_bytes) const;
  /// The cache `c` asks for (cache.line_size, cache.capacity / cache.line_size slots) over
  /// lines(line_size), its I/O waits bounded by command_timeout_ns(c) (queues.timeout_ms).
  cache_config cache_config_of(const run_config& c) const;

  /// Elements of a region: all of them.
  static constexpr std::uint64_t whole = ~std::uint64_t{0};

  /// An array of T over the first `elements` elements of region `name` (whole: all of them) of
  /// the cache `cache` (whose lines must cover them). Throws std::out_of_range for an unknown
  /// region or more elements than it holds, std::invalid_argument when the cache does not cover
  /// them.
  template <class T, class CacheRef>
  array<T, CacheRef> array_of(const CacheRef& cache, std::string_view name,
                              std::uint64_t elements = whole) const {
    const region& r = table_.at(name);
    range<T> span = r.as_range<T>(cache.line_bytes());
    if (elements != whole) {
      if (elements > span.elements) too_many(r, elements, sizeof(T));
      span.elements = elements;
    }
    const array<T, CacheRef> a(cache, span);
    if (a.size() != span.elements) uncovered(r);
    return a;
  }

  nlohmann::json to_json() const;

 private:
  [[noreturn]] static void uncovered(const region& r);
  [[noreturn]] static void too_many(const region& r, std::uint64_t elements, std::size_t size);

  dataset_geometry geometry_;
  std::uint64_t capacity_ = 0;
  layout_options options_;
  region_table table_;
};

}  // namespace bam
