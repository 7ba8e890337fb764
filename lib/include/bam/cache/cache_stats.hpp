// bam/cache/cache_stats.hpp: API. The cache's statistics: raw device-atomic counters (in the
// cache's metadata memory, updated by the cache logic) and the host snapshot read from them.
#pragma once
#include <cstdint>
#include <map>
#include <vector>
#if !defined(__CUDA_ARCH__)
#include <atomic>
#endif

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"
#include "bam/detail/sm_id.hpp"
#include "bam/nvme/spec.hpp"

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

/// Failed I/Os are counted per status, at index nvme::status::code() (SCT << 8 | SC; SCT is 3
/// bits): one add, no search, on the error path.
inline constexpr std::uint32_t cache_status_codes = 8 * 256;

/// Counters as they live in metadata memory; every field is only touched through
/// device_atomic_ref. Hits and misses are counted per element access (group members count
/// separately); a miss is the one access that made a line's fetch; an access whose line could
/// not be read (or had no slot) is a failed access, neither hit nor miss, so accesses = hits +
/// misses + failed_accesses.
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
  // ---- failures (issue 14): what went wrong, for the application's error flag and reports ----
  alignas(128) std::uint64_t failed_accesses;  ///< element accesses that got no data
  std::uint64_t timeouts;            ///< of io_errors, waits that gave up (sc::host_timeout)
  std::uint64_t quarantines;         ///< slots kept out of use: a timed-out read may still land
  std::uint64_t quarantine_returns;  ///< of those, slots back in use (the read was claimed)
  std::uint64_t by_status[cache_status_codes];  ///< failed I/Os per status code

  BAM_HD void add(std::uint64_t& field, std::uint64_t n) {
    device_atomic_ref<std::uint64_t>(field).fetch_add(n, relaxed);
  }
  /// Counts one failed I/O: io_errors, timeouts, and its status.
  BAM_HD void add_error(nvme::status s) {
    constexpr nvme::status timeout = nvme::sc::host_timeout;  // a copy: usable in device code
    add(io_errors, 1);
    if (s == timeout) add(timeouts, 1);
    add(by_status[s.code() % cache_status_codes], 1);
  }
  /// The shard the calling thread counts its accesses in.
  BAM_HD cache_access_shard& my_access_shard() {
#if BAM_DEVICE_CODE
    return access[bam::detail::sm_id() % cache_access_shards];
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
  std::uint64_t failed_accesses = 0;     ///< accesses that got no data (the application's flag)
  std::uint64_t timeouts = 0;            ///< of io_errors, waits that gave up
  std::uint64_t quarantines = 0;         ///< slots kept out of use after a timed-out read
  std::uint64_t quarantine_returns = 0;  ///< of those, slots back in use
  /// io_errors by nvme::status::code() (SCT << 8 | SC); other_status: failed I/Os counted
  /// without a status (by storage that counts none).
  std::map<std::uint16_t, std::uint64_t> errors_by_code;
  static constexpr std::uint16_t other_status = 0xffff;
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
    s.accesses += c.failed_accesses;
    s.io_errors = c.io_errors;
    s.flushes = c.flushes;
    s.failed_accesses = c.failed_accesses;
    s.timeouts = c.timeouts;
    s.quarantines = c.quarantines;
    s.quarantine_returns = c.quarantine_returns;
    std::uint64_t recorded = 0;
    for (std::uint32_t code = 0; code < cache_status_codes; ++code) {
      if (c.by_status[code] == 0) continue;
      s.errors_by_code[static_cast<std::uint16_t>(code)] = c.by_status[code];
      recorded += c.by_status[code];
    }
    if (s.io_errors > recorded) s.errors_by_code[other_status] += s.io_errors - recorded;
    s.bytes_read.assign(c.bytes_read, c.bytes_read + ssds);
    s.bytes_written.assign(c.bytes_written, c.bytes_written + ssds);
    return s;
  }

  /// Something failed: an I/O (error or timeout) or an access that got no data. Applications
  /// and tools check it after their threads are done (cache::io_failed()).
  bool io_failed() const { return io_errors != 0 || failed_accesses != 0; }
  /// Slots in quarantine when the snapshot was taken, as far as the counters since the last
  /// reset tell.
  std::uint64_t quarantined() const {
    return quarantines > quarantine_returns ? quarantines - quarantine_returns : 0;
  }
};

}  // namespace bam
