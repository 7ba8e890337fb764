// cache-bench: what one benchmark thread does, written once for CPU and GPU threads (BAM_HD):
// which elements it touches, how (plain acquire/release, warp-coalesced bam::array, or
// bam::array_ref reuse), and the values the dataset holds (for --verify).
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/array/array.hpp"
#include "bam/array/array_ref.hpp"
#include "bam/config.hpp"
#include "bam/detail/atomic.hpp"

namespace bam::tools {

/// The measured pass, as plain data (copied into kernels).
struct bench_params {
  std::uint64_t threads = 0;
  std::uint64_t elements = 0;  ///< dataset elements (8 B)
  std::uint64_t chunks = 0;    ///< elements / coarsening
  std::uint32_t coarsening = 1;
  std::uint32_t iterations = 1;
  std::uint32_t mode = 1;         ///< cache_access_mode
  std::uint32_t op = 0;           ///< io_op: read, write, mixed
  std::uint32_t write_share = 0;  ///< mixed: writes per 2^16 chunks
  bool sequential = true;
  bool verify = false;
  std::uint64_t seed = 1;
};

/// Per-pass results the threads add to (device or host memory).
struct bench_counters {
  unsigned long long bad;      ///< reads that returned neither the initial nor the written value
  unsigned long long failed;   ///< accesses whose line could not be read
  unsigned long long written;  ///< check pass: elements holding the written value
  unsigned long long sink;     ///< keeps the reads alive
};

BAM_HD inline std::uint64_t bench_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
/// What element i holds before the run (the fill pass writes it to the SSDs).
BAM_HD inline std::uint64_t initial_value(std::uint64_t i) {
  return bench_mix(i) | 1;
}
/// What a write of the measured pass stores at element i (never the initial value).
BAM_HD inline std::uint64_t written_value(std::uint64_t i) {
  return bench_mix(i) & ~std::uint64_t{1};
}
/// The chunk (of `coarsening` consecutive elements) thread t accesses in iteration k.
BAM_HD inline std::uint64_t chunk_of(const bench_params& p, std::uint64_t t, std::uint64_t k) {
  const std::uint64_t n = k * p.threads + t;
  return p.sequential ? n % p.chunks : bench_mix(n ^ (p.seed << 40)) % p.chunks;
}
/// Whether thread t writes its chunk in iteration k.
BAM_HD inline bool writes_in(const bench_params& p, std::uint64_t t, std::uint64_t k) {
  if (p.op != 2) return p.op == 1;
  return (bench_mix((k * p.threads + t) ^ ~p.seed) & 0xffff) < p.write_share;
}

BAM_HD inline void bench_add(unsigned long long& field, unsigned long long n) {
  if (n != 0) device_atomic_ref<unsigned long long>(field).fetch_add(n, relaxed);
}

/// Thread t's measured accesses over `a` (8-byte elements of one range covering the dataset).
template <class CacheRef>
BAM_HD void bench_thread(const array<std::uint64_t, CacheRef>& a, const bench_params& p,
                         bench_counters* out, std::uint64_t t) {
  unsigned long long bad = 0, failed = 0;
  std::uint64_t sum = 0, hits = 0, misses = 0;  // plain: counted once per thread
  auto check = [&](std::uint64_t i, std::uint64_t v) {
    sum += v;
    if (p.verify && v != initial_value(i) && v != written_value(i)) ++bad;
  };
  for (std::uint32_t k = 0; k < p.iterations; ++k) {
    const std::uint64_t first = chunk_of(p, t, k) * p.coarsening;
    const bool w = writes_in(p, t, k);
    if (p.mode == 0) {  // plain: one acquire and release per element, no coalescing (the
                        // statistics are added once per thread, not per access)
      const CacheRef& c = a.cache();
      for (std::uint32_t j = 0; j < p.coarsening; ++j) {
        const element_location at = a.locate(first + j);
        const acquire_result r = c.acquire(at.line, 1);
        hits += r.ok && !r.fetched ? 1 : 0;
        misses += r.fetched ? 1 : 0;
        if (!r.ok) {
          ++failed;
          continue;
        }
        auto* e = reinterpret_cast<std::uint64_t*>(c.slot_data(r.slot) + at.offset);
        if (w) {
          *e = written_value(first + j);
        } else {
          check(first + j, *e);
        }
        c.release(at.line, 1, w);
      }
    } else if (p.mode == 1) {  // coalesced: bam::array accesses
      for (std::uint32_t j = 0; j < p.coarsening; ++j) {
        if (w) {
          a.write(first + j, written_value(first + j));
        } else {
          check(first + j, a[first + j]);
        }
      }
    } else {  // reuse: one bam::array_ref keeps the line pinned across the chunk
      array_ref<std::uint64_t, CacheRef> h(a);
      for (std::uint32_t j = 0; j < p.coarsening; ++j) {
        if (w) {
          h.write(first + j, written_value(first + j));
        } else {
          check(first + j, h[first + j]);
        }
      }
    }
  }
  if (p.mode == 0) a.cache().count_accesses(hits, misses);
  bench_add(out->bad, bad);
  bench_add(out->failed, failed);
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
template <class CacheRef>
BAM_HD void check_element(const array<std::uint64_t, CacheRef>& a, bench_counters* out,
                          std::uint64_t i) {
  const std::uint64_t v = a[i];
  if (v == written_value(i)) {
    bench_add(out->written, 1);
  } else if (v != initial_value(i)) {
    bench_add(out->bad, 1);
  }
}

}  // namespace bam::tools
