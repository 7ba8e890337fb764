// The synthetic taxi table: a counter-based generator (every value a hash of seed, row and a
// stream number), streamed to disk in waves of chunks: the threads make one chunk each, then
// write the columns (one thread per column, chunks in row order).
#include "bam/table/taxi_gen.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "bam/table/table_writer.hpp"

namespace bam::taxi {
namespace {

/// A 64-bit mix (splitmix64's finaliser).
constexpr std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/// Uniform in [0, 1) for (seed, row, stream).
double uniform(std::uint64_t seed, std::uint64_t row, std::uint64_t stream) {
  const std::uint64_t h =
      mix(mix(seed * 0x9e3779b97f4a7c15ull + stream) ^ (row * 0xd1b54a32d192ed03ull + 0x632be5ab));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

double cents(double x) {
  return std::round(x * 100.0) / 100.0;
}

/// A standard normal from two uniforms (Box-Muller).
double normal(double u1, double u2) {
  return std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

constexpr double share_30 = 0.0003;  // >= 30 miles (dissertation 3.1)
constexpr double share_20 = 0.0047;  // >= 20 miles
constexpr double share_zero = 0.01;  // distance 0 (cancelled, GPS lost)

double distance(std::uint64_t seed, std::uint64_t row) {
  const double u = uniform(seed, row, 0);
  if (u < share_30) return cents(30.0 - 8.0 * std::log1p(-uniform(seed, row, 1) * 0.9999));
  if (u < share_20) return std::min(cents(20.0 + 10.0 * uniform(seed, row, 1)), 29.99);
  if (u >= 1.0 - share_zero) return 0.0;
  // Lognormal around 1.8 miles, redrawn (then uniform) while it reaches 20 miles.
  for (std::uint64_t s = 1; s < 7; s += 2) {
    const double x = 1.8 * std::exp(0.8 * normal(uniform(seed, row, s), uniform(seed, row, s + 1)));
    const double d = cents(x);
    if (d < 20.0 && d > 0.0) return d;
  }
  return cents(0.1 + 19.8 * uniform(seed, row, 7));
}

}  // namespace

std::array<double, column_count> generate_row(std::uint64_t seed, std::uint64_t row) {
  std::array<double, column_count> v{};
  const double dist = distance(seed, row);
  const double minutes =
      dist * (2.5 + 4.0 * uniform(seed, row, 10)) + 1.0 + 3.0 * uniform(seed, row, 11);
  const double fare = cents(2.5 + 2.5 * dist + 0.35 * minutes);
  const double ue = uniform(seed, row, 12);
  const double ex = ue < 0.5 ? 0.0 : ue < 0.8 ? 0.5 : ue < 0.95 ? 1.0 : 2.5;
  const double mta = uniform(seed, row, 13) < 0.99 ? 0.5 : 0.0;
  const double improvement = uniform(seed, row, 14) < 0.995 ? 0.3 : 0.0;
  const double ut = uniform(seed, row, 15);
  double tolls = 0.0;
  if (dist >= 10.0 && ut < 0.45) tolls = ut < 0.3 ? 6.12 : 5.76;
  if (dist >= 3.0 && dist < 10.0 && ut < 0.03) tolls = 5.76;
  const double tip =
      uniform(seed, row, 16) < 0.7 ? cents(fare * (0.10 + 0.15 * uniform(seed, row, 17))) : 0.0;
  const double up = uniform(seed, row, 18);
  double passengers = up < 0.7 ? 1.0 : up < 0.85 ? 2.0 : 3.0 + std::floor((up - 0.85) / 0.15 * 4.0);
  if (uniform(seed, row, 19) < 0.01) passengers = std::numeric_limits<double>::quiet_NaN();
  constexpr double start = 1420070400.0;  // 2015-01-01T00:00:00Z
  constexpr double span = 126230400.0;    // four years
  v[trip_distance] = dist;
  v[fare_amount] = fare;
  v[extra] = ex;
  v[mta_tax] = mta;
  v[tip_amount] = tip;
  v[tolls_amount] = tolls;
  v[improvement_surcharge] = improvement;
  v[total_amount] = cents(fare + ex + mta + tip + tolls + improvement);
  v[passenger_count] = passengers;
  v[pickup_time] = std::floor(start + span * uniform(seed, row, 20));
  return v;
}

nlohmann::json generate_table(const gen_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const unsigned threads =
      o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t chunk = std::max<std::uint64_t>(1, o.chunk_rows);
  std::vector<std::string> names(column_names.begin(), column_names.end());
  table::table_writer w(o.out, names);

  struct chunk_buf {
    std::vector<double> cols[column_count];
    std::uint64_t rows = 0, ge20 = 0, ge30 = 0;
  };
  std::vector<chunk_buf> bufs(threads);
  std::uint64_t ge20 = 0, ge30 = 0;
  for (std::uint64_t wave = 0; wave * chunk * threads < o.rows; ++wave) {
    const std::uint64_t first = wave * chunk * threads;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        chunk_buf& b = bufs[t];
        const std::uint64_t lo = std::min(o.rows, first + t * chunk);
        const std::uint64_t hi = std::min(o.rows, lo + chunk);
        b.rows = hi - lo;
        b.ge20 = b.ge30 = 0;
        for (auto& c : b.cols)
          c.resize(b.rows);
        for (std::uint64_t r = lo; r < hi; ++r) {
          const auto v = generate_row(o.seed, r);
          for (std::size_t c = 0; c < column_count; ++c)
            b.cols[c][r - lo] = v[c];
          b.ge20 += v[trip_distance] >= 20.0;
          b.ge30 += v[trip_distance] >= 30.0;
        }
      });
    }
    for (auto& th : pool)
      th.join();
    pool.clear();
    // One thread per column (a column file is written by one thread, chunks in row order).
    std::exception_ptr failed;
    std::mutex mu;
    for (std::size_t c = 0; c < column_count; ++c) {
      pool.emplace_back([&, c] {
        try {
          for (unsigned t = 0; t < threads; ++t)
            if (bufs[t].rows != 0) w.append(c, bufs[t].cols[c].data(), bufs[t].rows);
        } catch (...) {
          std::lock_guard lock(mu);
          if (!failed) failed = std::current_exception();
        }
      });
    }
    for (auto& th : pool)
      th.join();
    if (failed) std::rethrow_exception(failed);
    for (const chunk_buf& b : bufs) {
      ge20 += b.ge20;
      ge30 += b.ge30;
    }
  }
  const double rows = static_cast<double>(std::max<std::uint64_t>(o.rows, 1));
  nlohmann::json source = {
      {"generator", "bam-data taxi-gen"},
      {"rows", o.rows},
      {"seed", o.seed},
      {"published", {{"share_ge_20_miles", share_20}, {"share_ge_30_miles", share_30}}},
      {"measured",
       {{"rows_ge_20_miles", ge20},
        {"rows_ge_30_miles", ge30},
        {"share_ge_20_miles", double(ge20) / rows},
        {"share_ge_30_miles", double(ge30) / rows}}},
      {"note",
       "synthetic: distributions follow the published facts (BaM dissertation 3.1), not TLC's "
       "data; total_amount = fare + extra + mta_tax + tip + tolls + improvement_surcharge"}};
  w.commit(source);
  source["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  source["threads"] = threads;
  return source;
}

}  // namespace bam::taxi
