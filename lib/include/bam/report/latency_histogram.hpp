// bam/report/latency_histogram.hpp: API. A latency histogram in fio's log-linear bucketing
// (fio's "plat" histogram: 64 buckets per power of two, 1856 buckets, values in ns), plus exact
// count/min/max/sum/sum-of-squares. Plain counters, no allocation: usable from device code
// (one per thread/warp/block, merged at the end), trivially copyable.
#pragma once
#include <cstdint>

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

/// Unsigned 128-bit accumulator for the sum of squares (portable to device code).
struct u128_acc {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;

  BAM_HD void add(std::uint64_t lo_add, std::uint64_t hi_add) {
    const std::uint64_t old = lo;
    lo += lo_add;
    hi += hi_add + (lo < old ? 1u : 0u);
  }
  /// Adds v * v.
  BAM_HD void add_square(std::uint64_t v) {
    const std::uint64_t a = v & 0xffffffffu;
    const std::uint64_t b = v >> 32;
    const std::uint64_t aa = a * a;
    const std::uint64_t ab = a * b;  // appears twice
    const std::uint64_t bb = b * b;
    // v^2 = bb << 64 + 2ab << 32 + aa
    const std::uint64_t ab_lo = ab << 33;
    const std::uint64_t ab_hi = ab >> 31;
    add(aa, bb);
    add(ab_lo, ab_hi);
  }
  BAM_HD void add(const u128_acc& o) { add(o.lo, o.hi); }
  /// The value as a long double (host use).
  long double value() const {
    return static_cast<long double>(hi) * 18446744073709551616.0L + static_cast<long double>(lo);
  }
};

/// fio-compatible latency histogram. Bucket i holds samples v with bucket_of(v) == i; a bucket's
/// representative value (fio's plat_idx_to_val, the key of json+ "bins") is bucket_value(i).
struct latency_histogram {
  static constexpr std::uint32_t plat_bits = 6;                          ///< FIO_IO_U_PLAT_BITS
  static constexpr std::uint32_t plat_val = 1u << plat_bits;             ///< FIO_IO_U_PLAT_VAL
  static constexpr std::uint32_t plat_groups = 29;                       ///< FIO_IO_U_PLAT_GROUP_NR
  static constexpr std::uint32_t bucket_count = plat_groups * plat_val;  ///< FIO_IO_U_PLAT_NR

  std::uint64_t buckets[bucket_count] = {};
  std::uint64_t count = 0;
  std::uint64_t sum = 0;  ///< ns; wraps only after ~584 years of summed latency
  u128_acc sum_sq{};      ///< ns^2
  std::uint64_t min = ~std::uint64_t{0};
  std::uint64_t max = 0;

  /// Index of the most significant set bit (v > 0).
  BAM_HD static constexpr std::uint32_t msb(std::uint64_t v) {
#if BAM_DEVICE_CODE
    return 63u - static_cast<std::uint32_t>(__clzll(static_cast<long long>(v)));
#else
    return 63u - static_cast<std::uint32_t>(__builtin_clzll(v));
#endif
  }

  /// Bucket of a sample: values below 2^(plat_bits+1) have their own bucket; above, each power
  /// of two [2^m, 2^(m+1)) is split in plat_val equal buckets (the low m - plat_bits bits are
  /// dropped). Values past the last group land in the last bucket.
  BAM_HD static constexpr std::uint32_t bucket_of(std::uint64_t v) {
    if (v < (std::uint64_t{plat_val} << 1)) return static_cast<std::uint32_t>(v);
    const std::uint32_t m = msb(v);
    const std::uint32_t dropped = m - plat_bits;
    const std::uint64_t group_start = std::uint64_t{dropped + 1} << plat_bits;
    const std::uint64_t within = (v >> dropped) & (plat_val - 1);
    const std::uint64_t idx = group_start + within;
    return idx < bucket_count - 1 ? static_cast<std::uint32_t>(idx) : bucket_count - 1;
  }

  /// Representative value of bucket `i`: the value itself for the exact buckets, else the middle
  /// of the bucket's range (its lower bound + half its width), as fio reports it.
  BAM_HD static constexpr std::uint64_t bucket_value(std::uint32_t i) {
    if (i < (plat_val << 1)) return i;
    const std::uint32_t dropped = (i >> plat_bits) - 1;
    const std::uint64_t lower =
        (std::uint64_t{1} << (dropped + plat_bits)) + (std::uint64_t{i % plat_val} << dropped);
    return lower + (std::uint64_t{1} << dropped) / 2;
  }

  /// Records one sample (ns). Not atomic: one histogram per recording thread.
  BAM_HD void add(std::uint64_t ns) {
    ++buckets[bucket_of(ns)];
    ++count;
    sum += ns;
    sum_sq.add_square(ns);
    if (ns < min) min = ns;
    if (ns > max) max = ns;
  }

  /// Records one sample into a histogram shared by many threads (e.g. one per thread block in
  /// shared or global memory): atomic at `Scope`, relaxed (read it after the writers finished).
  template <cuda::thread_scope Scope = cuda::thread_scope_device>
  BAM_HD void add_atomic(std::uint64_t ns) {
    using ref = cuda::atomic_ref<std::uint64_t, Scope>;
    ref(buckets[bucket_of(ns)]).fetch_add(1, relaxed);
    ref(count).fetch_add(1, relaxed);
    ref(sum).fetch_add(ns, relaxed);
    // 128-bit sum of squares: each addition carries into `hi` on its own.
    u128_acc sq;
    sq.add_square(ns);
    const std::uint64_t old_lo = ref(sum_sq.lo).fetch_add(sq.lo, relaxed);
    const std::uint64_t carry = old_lo + sq.lo < old_lo ? 1u : 0u;
    if (sq.hi + carry != 0) ref(sum_sq.hi).fetch_add(sq.hi + carry, relaxed);
    ref lo_ref(min);
    for (std::uint64_t m = lo_ref.load(relaxed); ns < m;) {
      if (lo_ref.compare_exchange_weak(m, ns, relaxed)) break;
    }
    ref hi_ref(max);
    for (std::uint64_t m = hi_ref.load(relaxed); ns > m;) {
      if (hi_ref.compare_exchange_weak(m, ns, relaxed)) break;
    }
  }

  /// Adds every sample of `o` to this histogram.
  BAM_HD void merge(const latency_histogram& o) {
    for (std::uint32_t i = 0; i < bucket_count; ++i)
      buckets[i] += o.buckets[i];
    count += o.count;
    sum += o.sum;
    sum_sq.add(o.sum_sq);
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
  }

  BAM_HD void clear() {
    *this = latency_histogram{};
  }

  // ---- host-side statistics ------------------------------------------------------------------
  /// Exact mean (0 without samples).
  double mean() const {
    return count == 0 ? 0.0 : static_cast<double>(sum) / double(count);
  }
  /// Sample standard deviation (n - 1 denominator, as fio), 0 with fewer than two samples.
  double stddev() const;
  /// Smallest sample or 0 without samples.
  std::uint64_t min_or_zero() const {
    return count == 0 ? 0 : min;
  }
};

}  // namespace bam
