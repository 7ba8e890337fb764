// Percentiles and moments of latency histograms (fio's method).
#include "bam/report/percentiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace bam {

double latency_histogram::stddev() const {
  if (count < 2) return 0.0;
  const long double n = static_cast<long double>(count);
  const long double s = static_cast<long double>(sum);
  const long double m2 = sum_sq.value() - s * s / n;  // sum of squared deviations
  if (m2 <= 0) return 0.0;
  return static_cast<double>(std::sqrt(m2 / (n - 1)));
}

std::span<const double> default_percentiles() {
  static constexpr std::array<double, 17> list = {1.0,  5.0,  10.0, 20.0,  30.0, 40.0,
                                                  50.0, 60.0, 70.0, 80.0,  90.0, 95.0,
                                                  99.0, 99.5, 99.9, 99.95, 99.99};
  return list;
}

std::vector<std::uint64_t> percentiles(const latency_histogram& h, std::span<const double> list) {
  std::vector<std::uint64_t> out(list.size(), 0);
  if (h.count == 0 || list.empty()) return out;
  std::vector<std::size_t> order(list.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return list[a] < list[b]; });
  const long double n = static_cast<long double>(h.count);
  std::size_t j = 0;
  std::uint64_t running = 0;
  for (std::uint32_t i = 0; i < latency_histogram::bucket_count && j < order.size(); ++i) {
    running += h.buckets[i];
    while (j < order.size() && static_cast<long double>(running) >=
                                   static_cast<long double>(list[order[j]]) / 100.0L * n) {
      out[order[j]] = latency_histogram::bucket_value(i);
      ++j;
    }
  }
  return out;
}

std::uint64_t percentile(const latency_histogram& h, double p) {
  const double one[1] = {p};
  return percentiles(h, one).front();
}

std::string percentile_key(double p) {
  return fmt::format("{:f}", p);
}

}  // namespace bam
