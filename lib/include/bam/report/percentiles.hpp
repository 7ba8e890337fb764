// bam/report/percentiles.hpp: API. Percentiles of a latency_histogram computed the way fio
// computes its clat percentiles (walk the buckets, the first bucket whose running count reaches
// p/100 * N gives the bucket's representative value), and fio's default percentile list.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bam/report/latency_histogram.hpp"

namespace bam {

/// fio's default list: 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99.
std::span<const double> default_percentiles();

/// Values (ns) of `list` (each in (0, 100], any order) for `h`; all 0 when `h` is empty.
std::vector<std::uint64_t> percentiles(const latency_histogram& h, std::span<const double> list);

/// One percentile.
std::uint64_t percentile(const latency_histogram& h, double p);

/// fio's key for a percentile in JSON: "%f", e.g. "99.900000".
std::string percentile_key(double p);

}  // namespace bam
