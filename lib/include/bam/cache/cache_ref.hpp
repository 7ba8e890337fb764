// bam/cache/cache_ref.hpp: API. The software cache's logic, written once for host and GPU
// threads (BaM dissertation ch. 6): per-line state words driven by fetch-add ("faa"), clock
// replacement over slots with per-slot locks, write-back of dirty lines. Trivially copyable:
// pass it (or an array over it) by value into kernels. Owned by bam::cache (bam/cache/cache.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#if !defined(__CUDA_ARCH__)
#include <cstdio>
#include <cstdlib>
#endif

#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/cache/line_state.hpp"
#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

/// Metadata of one line of the mapped dataset: 8 bytes (state word + slot index).
struct cache_line_meta {
  std::uint32_t state;  ///< bam::line_state word
  std::uint32_t slot;   ///< the slot holding the line while it is valid
};
static_assert(sizeof(cache_line_meta) == 8);

/// Metadata of one cache slot: the resident line's tag and the slot's lock.
struct cache_slot_meta {
  /// line + 1 of the line mapped to this slot; 0: never used (cold); quarantine_bit | token: in
  /// quarantine (a read into the slot timed out and the storage's token says it may still land)
  std::uint64_t tag;
  std::uint32_t lock;  ///< taken to insert into or evict from the slot
  std::uint32_t pad;
};
static_assert(sizeof(cache_slot_meta) == 16);

/// Tag bit of a slot in quarantine (lines are < 2^40, storage tokens < 2^63).
inline constexpr std::uint64_t quarantine_bit = std::uint64_t{1} << 63;

/// The cache's shared words that are not statistics (reset_stats keeps them): one 128-byte
/// block of the metadata.
struct cache_control {
  std::uint64_t clock_hand;  ///< the clock's next probe (modulo the slot count)
  /// Non-zero: an eviction's write-back failed since the last flush (which reports it).
  std::uint64_t write_back_failed;
  /// Non-zero: the cache wrote (or tried to write) a line since the last flush sent its NVMe
  /// Flushes, so the next flush sends them; a flush of a cache that wrote nothing sends none.
  std::uint64_t unflushed_writes;
};
static_assert(sizeof(cache_control) <= 128);

/// Where the metadata lives (one zero-initialised allocation of the owner).
struct cache_meta {
  cache_line_meta* lines = nullptr;  ///< [n_lines]
  cache_slot_meta* slots = nullptr;  ///< [n_slots]
  cache_control* control = nullptr;
  cache_counters* counters = nullptr;
  std::uint64_t n_lines = 0;
  std::uint64_t n_slots = 0;
  std::uint32_t line_bytes = 0;
  cache_error_mode on_error = cache_error_mode::flag;
};

/// What acquire() returns: the slot (when ok) and whether this caller fetched the line.
struct acquire_result {
  std::uint32_t slot = 0;
  bool fetched = false;  ///< this call issued the line's read (the access was a miss)
  bool ok = false;       ///< false: the read failed, or no slot could be had; nothing is held
};

namespace detail {
/// cache_error_mode::trap: an access that had to succeed got no data.
[[noreturn]] BAM_HD inline void trap_failed_access() {
#if BAM_DEVICE_CODE
  __trap();
  __builtin_unreachable();
#else
  std::fputs("bamkit: an array access failed: its line could not be read (cache on_error = trap)\n",
             stderr);
  std::abort();
#endif
}
}  // namespace detail

/// The cache handle. `StorageRef` moves whole lines between slots and the SSDs and flushes an
/// SSD (see bam/cache/host_storage.hpp and bam/cache/gpu_storage.hpp for the two policies):
///   BAM_HD std::uint32_t ssds() const;
///   BAM_HD std::byte* slot_data(std::uint32_t slot) const;
///   BAM_HD bool read_line(std::uint64_t line, std::uint32_t slot, cache_counters&,
///                         std::uint64_t& live) const;
///   BAM_HD bool io_live(std::uint64_t token) const;
///   BAM_HD void reap(std::uint64_t token, cache_counters&) const;
///   BAM_HD bool write_line(std::uint64_t line, std::uint32_t slot, cache_counters&) const;
///   BAM_HD bool flush_ssd(std::uint32_t ssd, cache_counters&) const;
/// A failed read_line sets `live` to 0 when nothing can write into the slot any more, else to a
/// token (non-zero, < 2^63) of the command that may still do so (it timed out, and the
/// controller still holds it): the slot stays in quarantine, out of use, until io_live(token)
/// is false. reap(token) makes the storage notice completions of such commands that arrived
/// (called when every slot is in quarantine).
template <class StorageRef>
class cache_ref {
 public:
  using storage_ref = StorageRef;
  using state_ref = device_atomic_ref<std::uint32_t>;

  cache_ref() = default;
  BAM_HD cache_ref(const cache_meta& m, const StorageRef& s) : m_(m), s_(s) {
    static_assert(std::is_trivially_copyable_v<cache_ref>, "kernels take cache refs by value");
  }

  BAM_HD std::uint32_t line_bytes() const { return m_.line_bytes; }
  BAM_HD std::uint64_t lines() const { return m_.n_lines; }
  BAM_HD std::uint64_t slots() const { return m_.n_slots; }
  BAM_HD std::byte* slot_data(std::uint32_t slot) const { return s_.slot_data(slot); }
  BAM_HD const StorageRef& storage() const { return s_; }
  BAM_HD cache_counters& counters() const { return *m_.counters; }
  BAM_HD const cache_meta& meta() const { return m_; }

  /// Pins `line` with `n` references (n = the number of coalesced accessors, >= 1) and returns
  /// its slot. A resident line costs one fetch-add; a missing line is fetched by exactly one
  /// caller while the others wait holding their references. Blocks while every slot is pinned.
  BAM_HD BAM_FORCEINLINE acquire_result acquire(std::uint64_t line, std::uint32_t n) const {
    state_ref st(m_.lines[line].state);
    std::uint32_t cur = st.fetch_add(n, bam::acquire) + n;
    backoff bo;
    for (;;) {
      if (line_state::is_usable(cur)) return {m_.lines[line].slot, false, true};
      if (line_state::is_valid(cur)) {  // being evicted: hand our references back, retry
        st.fetch_sub(n, relaxed);
        bo.pause();
        cur = st.fetch_add(n, bam::acquire) + n;
        continue;
      }
      if (line_state::is_busy(cur)) {  // being inserted: wait with our references held
        bo.pause();
        cur = st.load(bam::acquire);
        continue;
      }
      // Not in the cache: the caller that sets Busy fetches it (our references stay counted).
      if (st.compare_exchange_weak(cur, cur | line_state::busy, bam::acquire, bam::acquire)) {
        return fetch(line, n);
      }
    }
  }

  /// Drops `n` references of `line`; `dirtied`: the holders wrote to the slot (sets Dirty,
  /// with release order, before the count drops).
  BAM_HD void release(std::uint64_t line, std::uint32_t n, bool dirtied) const {
    state_ref st(m_.lines[line].state);
    if (dirtied) st.fetch_or(line_state::dirty, bam::release);
    st.fetch_sub(n, bam::release);
  }

  /// Adds to the hit/miss counters (in the calling thread's shard; callers aggregate per
  /// coalesced group on the GPU).
  BAM_HD void count_accesses(std::uint64_t hits, std::uint64_t misses) const {
    cache_access_shard& a = m_.counters->my_access_shard();
    if (hits != 0) m_.counters->add(a.hits, hits);
    if (misses != 0) m_.counters->add(a.misses, misses);
  }
  /// Counts `n` accesses that got no data (acquire failed): the flag cache::io_failed() reads.
  BAM_HD void count_failed(std::uint64_t n) const {
    m_.counters->add(m_.counters->failed_accesses, n);
  }
  /// Called by an access that had to succeed and got no data (after count_failed): stops the
  /// program in cache_error_mode::trap, returns otherwise.
  BAM_HD void fail_access() const {
    if (m_.on_error == cache_error_mode::trap) detail::trap_failed_access();
  }

  /// Writes slot `slot` back if it holds a dirty line in [first_line, last_line); false when
  /// the write failed (the line stays dirty). A line being evicted is waited for: its eviction
  /// either writes it back or fails, leaving it dirty for this call to write. Safe while other
  /// threads use the cache; writes to the line racing with its flush are durable only after a
  /// later flush or eviction.
  BAM_HD bool flush_slot(std::uint64_t slot, std::uint64_t first_line,
                         std::uint64_t last_line) const {
    backoff bo;
    for (;;) {
      const std::uint64_t tag = tag_ref(slot).load(relaxed);
      if (tag == 0 || (tag & quarantine_bit) != 0) return true;  // no line in the slot
      const std::uint64_t line = tag - 1;
      if (line < first_line || line >= last_line) return true;
      state_ref st(m_.lines[line].state);
      const std::uint32_t cur = st.fetch_add(1, bam::acquire) + 1;  // pin it as a reader
      if (line_state::is_valid(cur) && line_state::is_busy(cur)) {
        // Being evicted, its write-back perhaps running: hand the reference back and look
        // again. Once the line has left the slot (Valid off, with release order after its
        // write-back completed) it is on the SSD; a failed eviction leaves it Valid and Dirty.
        st.fetch_sub(1, relaxed);
        bo.pause();
        continue;
      }
      bool ok = true;
      if (line_state::is_usable(cur) && line_state::is_dirty(cur) && m_.lines[line].slot == slot) {
        if (line_state::is_dirty(st.fetch_and(~line_state::dirty, bam::acquire))) {
          const bool written = s_.write_line(line, static_cast<std::uint32_t>(slot), *m_.counters);
          note_unflushed_writes();  // after the write: see evict
          if (written) {
            m_.counters->add(m_.counters->write_backs, 1);
          } else {
            st.fetch_or(line_state::dirty, relaxed);
            ok = false;
          }
        }
      }
      st.fetch_sub(1, bam::release);
      return ok;
    }
  }

  /// Sends an NVMe Flush to SSD `ssd` (after flush_slot over the slots: makes the data durable).
  BAM_HD bool flush_ssd(std::uint32_t ssd) const {
    m_.counters->add(m_.counters->flushes, 1);
    return s_.flush_ssd(ssd, *m_.counters);
  }

  /// True when the cache wrote a line since the last call, which clears the record: a flush
  /// sends its NVMe Flushes only then (a read-only cache never sends one), and calls
  /// note_unflushed_writes() again when one of them failed, so the next flush sends them again.
  BAM_HD bool take_unflushed_writes() const {
    return device_atomic_ref<std::uint64_t>(m_.control->unflushed_writes).exchange(0, acq_rel) != 0;
  }
  BAM_HD void note_unflushed_writes() const {
    device_atomic_ref<std::uint64_t>(m_.control->unflushed_writes).store(1, bam::release);
  }

  /// True when an eviction's write-back failed since the last call, which clears the record. A
  /// flush calls it after its write-backs and fails when it is true, so a failed write-back is
  /// reported by the next flush even when a later eviction or this flush wrote the line.
  BAM_HD bool take_write_back_failure() const {
    return device_atomic_ref<std::uint64_t>(m_.control->write_back_failed).exchange(0, acq_rel) !=
           0;
  }

 private:
  BAM_HD device_atomic_ref<std::uint64_t> tag_ref(std::uint64_t slot) const {
    return device_atomic_ref<std::uint64_t>(m_.slots[slot].tag);
  }
  BAM_HD static bool try_lock(std::uint32_t& word) {
    device_atomic_ref<std::uint32_t> l(word);
    return l.load(relaxed) == 0 && l.exchange(1, bam::acquire) == 0;
  }
  BAM_HD static void unlock(std::uint32_t& word) {
    device_atomic_ref<std::uint32_t>(word).store(0, bam::release);
  }

  /// take_slot found none: every slot probed for `quarantine_rounds` rounds of the clock in a
  /// row was in quarantine.
  static constexpr std::uint32_t no_slot = ~std::uint32_t{0};
  static constexpr std::uint64_t quarantine_rounds = 4;

  /// The caller set Busy on the invalid `line` (holding `n` references): find it a slot, read
  /// it, publish it (Valid on, Busy off, with release order). When that fails, Busy is cleared
  /// and the references dropped: waiters elect another fetcher. Inline (as ptxas compiled it in
  /// every kernel measured); its NVMe command is the one call
  /// (queue_pair_ref::submit_and_wait_outlined). Out of line as well, it cost 14 % of the cold
  /// 512 B miss rate over 4 optane models for 25 % more hot reuse rate (H200; docs/cache.md,
  /// "Registers").
  BAM_HD BAM_FORCEINLINE acquire_result fetch(std::uint64_t line, std::uint32_t n) const {
    state_ref st(m_.lines[line].state);
    const std::uint32_t slot = take_slot(line);
    if (slot != no_slot) {
      m_.lines[line].slot = slot;
      std::uint64_t live = 0;
      if (s_.read_line(line, slot, *m_.counters, live)) {
        st.fetch_xor(line_state::busy | line_state::valid, bam::release);
        return {slot, true, true};
      }
      give_back(slot, live);
    }
    st.fetch_and(~line_state::busy, bam::release);
    st.fetch_sub(n, bam::release);
    return {0, slot != no_slot, false};
  }

  /// A read into `slot` failed: the slot goes back cold, or, when the storage says the read may
  /// still land in it (`live`: its token), into quarantine; take_slot returns it to use once
  /// io_live(token) is false. (Given back at once, a late completion would overwrite the next
  /// line read into the slot.)
  BAM_HD void give_back(std::uint32_t slot, std::uint64_t live) const {
    cache_slot_meta& sm = m_.slots[slot];
    backoff bo;
    while (!try_lock(sm.lock))
      bo.pause();
    tag_ref(slot).store(live == 0 ? 0 : quarantine_bit | live, relaxed);
    unlock(sm.lock);
    if (live != 0) m_.counters->add(m_.counters->quarantines, 1);
  }

  /// Clock replacement: takes slots from the global hand until one is cold, leaves quarantine,
  /// or holds a valid, unreferenced line it can evict (written back first when dirty); maps it
  /// to `line`. Waits while slots are pinned. When every slot probed for quarantine_rounds
  /// rounds of the clock in a row is in quarantine, the storage reaps the last one's queue (its
  /// late completion may have arrived with no command completing there to claim it) and the
  /// probing starts over once; no_slot if it ends the same way (no slot can be had until the
  /// controller completes those reads or their queues are reset: the fetch fails rather than
  /// wait without bound).
  BAM_HD std::uint32_t take_slot(std::uint64_t line) const {
    device_atomic_ref<std::uint64_t> hand(m_.control->clock_hand);
    backoff bo;
    std::uint64_t quarantined = 0;  // probes in a row that found a slot in quarantine
    bool reaped = false;
    for (std::uint32_t misses = 0;; ++misses) {
      // Back off after a few slots that were locked, pinned or in flight: thousands of GPU
      // threads missing at once would otherwise hammer the hand and the locks.
      if (misses >= 8) bo.pause();
      const auto slot = static_cast<std::uint32_t>(hand.fetch_add(1, relaxed) % m_.n_slots);
      cache_slot_meta& sm = m_.slots[slot];
      if (!try_lock(sm.lock)) {
        quarantined = 0;
        continue;
      }
      const std::uint64_t tag = tag_ref(slot).load(relaxed);
      if ((tag & quarantine_bit) != 0) {
        // io_live's acquire load orders the late read's data before the slot's next use.
        if (s_.io_live(tag & ~quarantine_bit)) {
          unlock(sm.lock);
          if (++quarantined >= quarantine_rounds * m_.n_slots) {
            if (reaped) return no_slot;
            s_.reap(tag & ~quarantine_bit, *m_.counters);
            reaped = true;
            quarantined = 0;
          }
          continue;
        }
        m_.counters->add(m_.counters->quarantine_returns, 1);
      } else if (tag != 0 && !evict(tag - 1, slot)) {
        unlock(sm.lock);
        quarantined = 0;
        continue;
      }
      tag_ref(slot).store(line + 1, relaxed);
      unlock(sm.lock);
      return slot;
    }
  }

  /// Slot lock held: evicts `victim` from `slot` if it is valid and unreferenced (§6.4: the
  /// count must be zero when first read and again after Busy is set).
  BAM_HD bool evict(std::uint64_t victim, std::uint32_t slot) const {
    state_ref st(m_.lines[victim].state);
    const std::uint32_t cur = st.load(relaxed);
    if (!line_state::is_usable(cur) || line_state::count(cur) != 0) return false;
    const std::uint32_t prev = st.fetch_or(line_state::busy, bam::acquire);
    if (line_state::count(prev) != 0 || !line_state::is_usable(prev)) {
      if (!line_state::is_busy(prev)) st.fetch_and(~line_state::busy, relaxed);
      return false;
    }
    if (line_state::is_dirty(prev)) {
      const bool written = s_.write_line(victim, slot, *m_.counters);
      // After the write (it may have reached the SSD even if it failed): a flush that took the
      // mark while this write was in flight did not cover it, and the next one must.
      note_unflushed_writes();
      if (!written) {
        // Stays resident and dirty; the next flush reports the failure (take_write_back_failure).
        device_atomic_ref<std::uint64_t>(m_.control->write_back_failed).store(1, bam::release);
        st.fetch_and(~line_state::busy, bam::release);
        return false;
      }
      m_.counters->add(m_.counters->write_backs, 1);
      m_.counters->add(m_.counters->dirty_evictions, 1);
    }
    m_.counters->add(m_.counters->evictions, 1);
    // Not in the cache any more; references taken meanwhile (and handed back) are kept.
    st.fetch_and(~line_state::flags, bam::release);
    return true;
  }

  cache_meta m_{};
  StorageRef s_{};
};

}  // namespace bam
