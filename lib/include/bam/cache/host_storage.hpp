// bam/cache/host_storage.hpp: API. The cache's storage policy for host threads: slots in host
// DMA memory (any dma_allocator) and lines moved through the memory_doorbell queues of host
// controllers (emulated, or real through the kernel module), given as a queue set.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_ref.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/cache/queue_storage.hpp"
#include "bam/dma.hpp"
#include "bam/queue/queue_set_ref.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam {

/// Host controllers' queues, the queue set host threads use.
using host_queue_set = queue_set_ref<memory_doorbell>;

/// One SSD as the host cache sees it (for owners that have no queue set of their own).
struct host_ssd {
  std::vector<queue_pointers> queues;  ///< I/O queue pairs, e.g. io_queue_pair::queue().pointers()
  std::uint32_t lba_bytes = 512;
  std::uint64_t lbas = 0;  ///< namespace 1 size in blocks
};

/// A queue table over host_ssds, owned (a queue set's memory must outlive its users).
class host_queue_table {
 public:
  /// Throws std::invalid_argument for no SSDs, mixed LBA sizes or queue counts, no queues.
  explicit host_queue_table(const std::vector<host_ssd>& ssds);
  host_queue_set ref() const;

 private:
  std::vector<queue_pointers> queues_;
  host_queue_set::params p_{};
};

/// Owner of the slots, their PRPs and (optionally) the queue table. Every SSD must share one
/// LBA size and reach `slot_memory`'s regions: either at the same bus addresses (for several
/// host emulated controllers: allocate from one's allocator and add slot_region()/prp_region()
/// to the others' dma_window), or through an allocator that maps them for every SSD (devices()
/// == SSDs, SSD i = device i, e.g. kmod_host_allocator over several controllers): then each SSD
/// gets its own PRP table and list pages, built from device_bus_address().
class host_cache_storage {
 public:
  using ref_type = queue_storage_ref<host_queue_set>;

  /// Preconditions (std::logic_error): a line size the schema allows, 1 to cache_max_ssds SSDs.
  /// Throws std::invalid_argument for no queues or a slot count past 2^32. `queues` must outlive
  /// the storage.
  host_cache_storage(const cache_config& cfg, const host_queue_set& queues,
                     dma_allocator& slot_memory);
  /// The same over SSDs described one by one (the storage keeps their queue table).
  host_cache_storage(const cache_config& cfg, const std::vector<host_ssd>& ssds,
                     dma_allocator& slot_memory);
  host_cache_storage(const host_cache_storage&) = delete;
  host_cache_storage& operator=(const host_cache_storage&) = delete;

  ref_type ref() const;
  /// Dataset lines the SSDs hold under the configured layout.
  std::uint64_t line_capacity() const { return capacity_; }
  std::uint32_t ssds() const { return map_.ssds; }
  const dma_region& slot_region() const { return slots_.region(); }
  const dma_region& prp_region() const { return lists_.region(); }
  std::size_t slot_bytes() const { return slots_.size(); }
  /// PRP tables built: 1 (every SSD reaches the slots at the same bus addresses) or one per SSD.
  std::uint32_t prp_tables() const { return tables_; }
  std::size_t prp_bytes() const { return lists_.size() + prps_.size() * sizeof(nvme::prp_pair); }

  // ---- memory of the cache's metadata (host memory) -------------------------------------
  void* allocate_zeroed(std::size_t bytes) const;
  void deallocate(void* p) const noexcept;
  /// Reads the counters (atomic word loads: safe while threads run).
  void read_counters(cache_counters& out, const cache_counters* in) const;
  void zero_counters(cache_counters* c) const;

  /// Writes back the dirty lines of [first_line, last_line) (calling thread), then sends a
  /// Flush to every SSD when the cache wrote a line since the last flush. True when every write and
  /// flush succeeded and no eviction's write-back failed since the last flush.
  template <class CacheRef>
  bool flush(const CacheRef& c, std::uint64_t first_line, std::uint64_t last_line) const {
    bool ok = true;
    for (std::uint64_t s = 0; s < c.slots(); ++s)
      ok = c.flush_slot(s, first_line, last_line) && ok;
    if (c.take_unflushed_writes()) {
      bool flushed = true;
      for (std::uint32_t d = 0; d < c.storage().ssds(); ++d)
        flushed = c.flush_ssd(d) && flushed;
      if (!flushed) c.note_unflushed_writes();
      ok = flushed && ok;
    }
    return !c.take_write_back_failure() && ok;
  }
  /// Nothing to load on the host.
  template <class CacheRef>
  static void preload() {}

 private:
  void init(const host_queue_set& queues, dma_allocator& slot_memory);

  cache_config cfg_;
  std::unique_ptr<host_queue_table> own_table_;  ///< the host_ssd constructor's table
  host_queue_set queues_;
  line_map map_{};
  std::uint64_t capacity_ = 0;
  dma_buffer slots_, lists_;
  std::uint32_t tables_ = 1;  ///< PRP tables (1, or one per SSD)
  std::vector<nvme::prp_pair> prps_;
};

}  // namespace bam
