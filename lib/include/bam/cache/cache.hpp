// bam/cache/cache.hpp: API. Owner of a BaM software cache: its metadata (8 bytes per dataset
// line + 16 per slot, allocated once at construction) over a storage policy that owns the slots
// (host_cache_storage: host memory and host controllers; gpu_cache_storage: GPU memory and
// emu::gpu::emulated_drives). Threads use ref() (or a bam::array over it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_ref.hpp"
#include "bam/cache/cache_stats.hpp"

namespace bam {

template <class Storage>
class cache {
 public:
  using storage_type = Storage;
  using ref_type = cache_ref<typename Storage::ref_type>;

  /// Builds the storage as Storage(cfg, storage_args...) and the metadata. cfg.lines = 0 maps
  /// every line the SSDs hold. Throws std::invalid_argument for impossible configurations.
  template <class... Args>
  explicit cache(const cache_config& cfg, Args&&... storage_args)
      : cfg_(cfg), storage_(cfg, std::forward<Args>(storage_args)...) {
    if (cfg_.lines == 0) cfg_.lines = storage_.line_capacity();
    if (cfg_.lines > storage_.line_capacity())
      throw std::invalid_argument("cache: more lines than the SSDs hold");
    if (cfg_.lines >= (std::uint64_t{1} << 40))
      throw std::invalid_argument("cache: at most 2^40 lines");
    lines_bytes_ = round(cfg_.lines * sizeof(cache_line_meta));
    slots_bytes_ = round(cfg_.slots * sizeof(cache_slot_meta));
    const std::size_t total = lines_bytes_ + slots_bytes_ + 128 + round(sizeof(cache_counters));
    base_ = static_cast<std::byte*>(storage_.allocate_zeroed(total));
    meta_.lines = reinterpret_cast<cache_line_meta*>(base_);
    meta_.slots = reinterpret_cast<cache_slot_meta*>(base_ + lines_bytes_);
    meta_.control = reinterpret_cast<cache_control*>(base_ + lines_bytes_ + slots_bytes_);
    meta_.counters = reinterpret_cast<cache_counters*>(base_ + lines_bytes_ + slots_bytes_ + 128);
    meta_.n_lines = cfg_.lines;
    meta_.n_slots = cfg_.slots;
    meta_.line_bytes = cfg_.line_bytes;
    meta_.on_error = cfg_.on_error;
    metadata_bytes_ = total;
  }
  ~cache() { storage_.deallocate(base_); }
  cache(const cache&) = delete;
  cache& operator=(const cache&) = delete;

  ref_type ref() const { return ref_type(meta_, storage_.ref()); }
  const cache_config& config() const { return cfg_; }
  const Storage& storage() const { return storage_; }
  Storage& storage() { return storage_; }
  std::uint64_t lines() const { return cfg_.lines; }
  /// Metadata bytes: lines * 8 + slots * 16 + clock hand + counters (each part 128-aligned).
  std::uint64_t metadata_bytes() const { return metadata_bytes_; }

  /// Counters now (GPU: copied from device memory; safe while threads run).
  cache_stats stats() const {
    cache_counters c{};
    storage_.read_counters(c, meta_.counters);
    cache_stats s = cache_stats::from(c, storage_.ssds());
    s.metadata_bytes = metadata_bytes_;
    s.slot_bytes = storage_.slot_bytes();
    s.prp_bytes = storage_.prp_bytes();
    return s;
  }
  /// Zeroes the counters (no thread may use the cache meanwhile).
  void reset_stats() { storage_.zero_counters(meta_.counters); }

  /// True when an I/O failed or an access got no data since the counters were last reset (the
  /// error flag the application checks after its threads or kernels are done; see
  /// cache_stats::io_failed and cache_config::on_error).
  bool io_failed() const { return stats().io_failed(); }

  /// Writes every dirty line back and flushes every SSD, the flushes only when the cache wrote
  /// a line since the last flush (GPU: kernels on the storage's stream, waited for). True when all
  /// I/O succeeded, lines being evicted meanwhile included (waited for, or written again when their
  /// eviction failed), and no eviction's write-back failed since the last flush. Writes made before
  /// the call are durable when it returns true.
  bool flush() { return flush(0, cfg_.lines); }
  /// Same for the lines [first_line, last_line).
  bool flush(std::uint64_t first_line, std::uint64_t last_line) {
    return storage_.flush(ref(), first_line, last_line);
  }

  /// GPU: loads the cache's own kernels (flush); call before emu::gpu::emulated_drives::start().
  static void preload() { Storage::template preload<ref_type>(); }

 private:
  static std::size_t round(std::size_t n) { return (n + 127) / 128 * 128; }

  cache_config cfg_;
  Storage storage_;
  cache_meta meta_{};
  std::byte* base_ = nullptr;
  std::size_t lines_bytes_ = 0, slots_bytes_ = 0;
  std::uint64_t metadata_bytes_ = 0;
};

}  // namespace bam
