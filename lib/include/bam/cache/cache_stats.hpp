// bam/cache/cache_stats.hpp: API. The cache's statistics: raw device-atomic counters (in the
// cache's metadata memory, updated by the cache logic) and the host snapshot read from them.
#pragma once
#include <cstdint>
#include <vector>
#if !defined(__CUDA_ARCH__)
#include <atomic>
#endif

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

/// SSDs whose bytes are counted separately (a cache may span at most this many SSDs).
inline constexpr std::uint32_t cache_max_ssds = 32;

/// Hit/miss counters are spread over shards (each on its own 128-byte line) so that every
/// access's count does not land on one address: GPU threads add to the shard of their SM,
/// host threads to one picked per thread.
inline constexpr std::uint32_t cache_access_shards = 64;
struct cache_access_shard {
  alignas(128) std::uint64_t hits;  ///< accesses that found the line resident or in flight
  std::uint64_t misses;             ///< accesses whose caller fetched the line
};

/// Counters as they live in metadata memory; every field is only touched through
/// device_atomic_ref. Hits and misses are counted per element access (group members count
/// separately); a miss is the one access that made a line's fetch, so accesses = hits + misses.
struct cache_counters {
  cache_access_shard access[cache_access_shards];
  alignas(128) std::uint64_t reads;  ///< read I/Os issued (line fetches, every SSD)
  std::uint64_t writes;              ///< write I/Os issued (write-backs, every replica)
  std::uint64_t evictions;           ///< valid lines evicted
  std::uint64_t write_backs;         ///< dirty lines written back (eviction or flush)
  std::uint64_t dirty_evictions;     ///< of the evictions, lines that were dirty
  std::uint64_t io_errors;           ///< I/Os that failed (status other than success)
  std::uint64_t flushes;             ///< NVMe Flush commands issued
  std::uint64_t bytes_read[cache_max_ssds];
  std::uint64_t bytes_written[cache_max_ssds];

  BAM_HD void add(std::uint64_t& field, std::uint64_t n) {
    device_atomic_ref<std::uint64_t>(field).fetch_add(n, relaxed);
  }
  /// The shard the calling thread counts its accesses in.
  BAM_HD cache_access_shard& my_access_shard() {
#if BAM_DEVICE_CODE
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    return access[sm % cache_access_shards];
#else
    static std::atomic<std::uint32_t> next{0};
    thread_local const std::uint32_t mine = next.fetch_add(1, std::memory_order_relaxed);
    return access[mine % cache_access_shards];
#endif
  }
};

/// A snapshot for reports and tests.
struct cache_stats {
  std::uint64_t accesses = 0, hits = 0, misses = 0;
  std::uint64_t reads = 0, writes = 0;
  std::uint64_t evictions = 0, dirty_evictions = 0, write_backs = 0;
  std::uint64_t io_errors = 0, flushes = 0;
  std::vector<std::uint64_t> bytes_read, bytes_written;  ///< per SSD
  std::uint64_t metadata_bytes = 0;  ///< line states + slot tags/locks + counters
  std::uint64_t slot_bytes = 0;      ///< cache slots (data) memory
  std::uint64_t prp_bytes = 0;       ///< PRP lists prepared for the slots

  static cache_stats from(const cache_counters& c, std::uint32_t ssds) {
    cache_stats s;
    for (const cache_access_shard& a : c.access) {
      s.hits += a.hits;
      s.misses += a.misses;
    }
    s.accesses = s.hits + s.misses;
    s.reads = c.reads;
    s.writes = c.writes;
    s.evictions = c.evictions;
    s.dirty_evictions = c.dirty_evictions;
    s.write_backs = c.write_backs;
    s.io_errors = c.io_errors;
    s.flushes = c.flushes;
    s.bytes_read.assign(c.bytes_read, c.bytes_read + ssds);
    s.bytes_written.assign(c.bytes_written, c.bytes_written + ssds);
    return s;
  }
};

}  // namespace bam
