// cache-bench: what one benchmark thread does, written once for CPU and GPU threads (BAM_HD):
// how it reaches the elements its pattern names (bench_pattern.hpp): plain acquire/release,
// warp-coalesced bam::array, or bam::array_ref reuse; and the fill, warm and check passes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/array/array.hpp"
#include "bam/array/array_ref.hpp"
#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"
#include "bench_pattern.hpp"

namespace bam::tools {

/// Per-pass results the threads add to (device or host memory).
/// Accesses whose line could not be read are not counted here: the cache counts them
/// (cache_stats::failed_accesses), and a read that failed is not checked.
struct bench_counters {
  unsigned long long bad;      ///< reads that returned neither the initial nor the written value
  unsigned long long written;  ///< check pass: elements holding the written value
  unsigned long long sink;     ///< keeps the reads alive
};

BAM_HD inline void bench_add(unsigned long long& field, unsigned long long n) {
  if (n != 0) device_atomic_ref<unsigned long long>(field).fetch_add(n, relaxed);
}

/// Thread t's measured accesses over `a` (8-byte elements of one range covering the dataset):
/// per iteration, the `coarsening` elements of its chunk that bench_pattern.hpp assigns it.
/// Force-inlined: the kernel's array and parameters then stay in its parameter space (not
/// inlined, nvcc copied them to local memory and the hot loop loaded them from there).
template <class CacheRef>
BAM_HD BAM_FORCEINLINE void bench_thread(const array<std::uint64_t, CacheRef>& a,
                                         const bench_params& p, bench_counters* out,
                                         std::uint64_t t) {
  unsigned long long bad = 0;
  std::uint64_t sum = 0, hits = 0, misses = 0, failed = 0;  // plain: counted once per thread
  auto check = [&](std::uint64_t i, std::uint64_t v) {
    sum += v;
    if (p.verify && v != initial_value(i) && v != written_value(i)) ++bad;
  };
  const std::uint64_t o = owner_of(p, t);
  for (std::uint32_t k = 0; k < p.iterations; ++k) {
    const std::uint64_t ch = chunk_of(p, o, k);
    const bool w = writes_in(p, o, k);
    if (p.mode == cache_access_mode::plain) {
      // Plain: one acquire and release per element, no coalescing (the statistics are added
      // once per thread, not per access).
      const CacheRef& c = a.cache();
      for (std::uint32_t j = 0; j < p.coarsening; ++j) {
        const std::uint64_t i = element_of(p, ch, t, j);
        const element_location at = a.locate(i);
        const acquire_result r = c.acquire(at.line, 1);
        if (!r.ok) {
          ++failed;
          c.fail_access();  // cache.on_error = trap stops here
          continue;
        }
        hits += r.fetched ? 0 : 1;
        misses += r.fetched ? 1 : 0;
        auto* e = reinterpret_cast<std::uint64_t*>(c.slot_data(r.slot) + at.offset);
        if (w) {
          store_element(e, written_value(i));
        } else {
          check(i, load_element(e));
        }
        c.release(at.line, 1, w);
      }
    } else if (p.mode == cache_access_mode::coalesced) {  // coalesced: bam::array accesses
      for (std::uint32_t j = 0; j < p.coarsening; ++j) {
        const std::uint64_t i = element_of(p, ch, t, j);
        if (w) {
          a.write(i, written_value(i));
        } else if (std::uint64_t v; a.try_read(i, v)) {
          check(i, v);
        } else {
          a.cache().fail_access();  // as a[i] would: counted by the cache, or the trap
        }
      }
    } else {  // reuse: one bam::array_ref keeps the line pinned while the thread stays on it
      array_ref<std::uint64_t, CacheRef> h(a);
      if (w) {
        for (std::uint32_t j = 0; j < p.coarsening; ++j) {
          const std::uint64_t i = element_of(p, ch, t, j);
          h.write(i, written_value(i));
        }
      } else {
        // Reads in groups of `ilp`: all loads of a group are issued before the first value is
        // used, so a thread has several loads in flight. One at a time left the hot cache
        // latency-bound (H200, 8 KiB lines, warp layout, the kernel before it was inlined and
        // capped: 1.09 TB/s; 4: 1.56 TB/s; 8 and 16 were slower, the kernel's registers grew;
        // inlined and capped, 4 give 2.26 TB/s and 8 spill, 2.05 TB/s). The array_ref calls are
        // the same, in the same order, so the cache statistics do not change. The check
        // recomputes each index (it needs it only under --verify) rather than keeping `ilp` of
        // them in registers.
        // A read that failed (bit u of `got` clear) is not checked: the cache counted it.
        constexpr std::uint32_t ilp = 4;
        for (std::uint32_t j = 0; j < p.coarsening; j += ilp) {
          std::uint64_t v[ilp];
          std::uint32_t got = 0;
          BAM_UNROLL
          for (std::uint32_t u = 0; u < ilp; ++u) {
            v[u] = 0;
            if (j + u < p.coarsening && h.try_read(element_of(p, ch, t, j + u), v[u]))
              got |= 1u << u;
          }
          BAM_UNROLL
          for (std::uint32_t u = 0; u < ilp; ++u) {
            if (j + u >= p.coarsening) continue;
            if ((got >> u & 1u) != 0) {
              check(element_of(p, ch, t, j + u), v[u]);
            } else {
              a.cache().fail_access();
            }
          }
        }
      }
    }
  }
  if (p.mode == cache_access_mode::plain) {
    a.cache().count_accesses(hits, misses);
    if (failed != 0) a.cache().count_failed(failed);
  }
  bench_add(out->bad, bad);
  if (sum == 0x5eed5eed5eed5eedull) bench_add(out->sink, 1);
}

/// Fill pass: element i := initial_value(i).
template <class CacheRef>
BAM_HD void fill_element(const array<std::uint64_t, CacheRef>& a, std::uint64_t i) {
  a.write(i, initial_value(i));
}

/// Warm pass: touches line `line`'s first element (the dataset becomes resident).
template <class CacheRef>
BAM_HD void warm_line(const array<std::uint64_t, CacheRef>& a, bench_counters* out,
                      std::uint64_t line) {
  const std::uint64_t per_line = a.cache().line_bytes() / sizeof(std::uint64_t);
  const std::uint64_t v = a[line * per_line];
  if (v == 0x5eed5eed5eed5eedull) bench_add(out->sink, 1);
}

/// Check pass: element i must hold its initial or its written value; counts the written ones.
/// An element that cannot be read is counted by the cache (failed access), not here.
template <class CacheRef>
BAM_HD void check_element(const array<std::uint64_t, CacheRef>& a, bench_counters* out,
                          std::uint64_t i) {
  std::uint64_t v = 0;
  if (!a.try_read(i, v)) {
    a.cache().fail_access();
    return;
  }
  if (v == written_value(i)) {
    bench_add(out->written, 1);
  } else if (v != initial_value(i)) {
    bench_add(out->bad, 1);
  }
}

}  // namespace bam::tools
