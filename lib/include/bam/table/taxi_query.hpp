// bam/table/taxi_query.hpp: API. The taxi queries (issue 16; BaM paper 5.3, Figure 12) and the
// one fixed-order reduction every implementation runs, on host and device threads alike.
//
// With distance bound D and S = the rows with trip_distance >= D: Q0 is |S| and the mean
// trip_distance over S; Qk (k = 1..5) is the mean over S of numerator_k / trip_distance, with
// numerator_1 = total_amount and each next one subtracting one more column: extra,
// improvement_surcharge, tolls_amount, mta_tax (Q5: what the driver makes per mile).
//
// Reduction order (why every implementation is bit-identical run to run, and to each other):
// the rows form blocks of block_rows = lanes * rows_per_lane; in block b, lane l sums rows
// b * block_rows + l + k * lanes for k = 0, 1, ... in order; the lanes' sums are combined by a
// tree (stride lanes/2, lanes/4, ..., 1: sum[l] += sum[l + stride]); the block sums are then
// added in block order. A CPU thread does exactly this for a block (sum_block); a GPU block of
// `lanes` threads does it with its lanes in shared memory. The per-row terms are the same IEEE
// double expressions on both.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/detail/macros.hpp"
#include "bam/table/taxi_columns.hpp"

namespace bam::taxi {

inline constexpr int query_count = 6;
inline constexpr unsigned lanes = 256;
inline constexpr unsigned rows_per_lane = 16;
inline constexpr std::uint64_t block_rows = std::uint64_t{lanes} * rows_per_lane;

/// The columns a query set reads, in order: distance, then the numerator's columns.
inline constexpr std::array<column, query_count> query_columns = {
    trip_distance, total_amount, extra, improvement_surcharge, tolls_amount, mta_tax};

/// Which queries to run (bit k: Qk) and the deepest one (which columns the scan needs).
struct query_set {
  unsigned mask = 0;
  BAM_HD bool has(int k) const { return (mask >> k) & 1u; }
  /// The highest query asked for (columns query_columns[0 .. deepest()] are read).
  BAM_HD int deepest() const {
    int d = 0;
    for (int k = 0; k < query_count; ++k)
      if (has(k)) d = k;
    return d;
  }
};

/// Parses "all" or a comma list of q0..q5 (case-insensitive); std::invalid_argument naming
/// what is wrong.
query_set parse_queries(const std::string& text);
/// "q0,q1,..." for a set.
std::string to_string(const query_set& q);

/// One lane's or one block's sums: the rows of S, the sum of trip_distance (sum[0]) and of each
/// ratio numerator_k / trip_distance (sum[k]).
struct block_sums {
  std::uint64_t rows = 0;
  double sum[query_count] = {};
};

/// Adds row `i`'s contribution when its distance is >= d: `col(c, i)` reads column c
/// (query_columns) of row i, only for columns 1..deepest and only for rows of S.
template <class Col>
BAM_HD inline void add_row(block_sums& s, double dist, std::uint64_t i, double d, int deepest,
                           const Col& col) {
  if (!(dist >= d)) return;
  s.rows += 1;
  s.sum[0] += dist;
  if (deepest < 1) return;
  double num = col(1, i);  // total_amount
  s.sum[1] += num / dist;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int k = 2; k < query_count; ++k) {  // unrolled on the GPU: k a constant, no local memory
    if (k > deepest) break;
    num = num - col(k, i);
    s.sum[k] += num / dist;
  }
}

/// Lane `l`'s sums over block `b` of a table of `rows` rows: dist(i) reads trip_distance.
template <class Dist, class Col>
BAM_HD inline block_sums lane_sums(std::uint64_t b, unsigned l, std::uint64_t rows, double d,
                                   int deepest, const Dist& dist, const Col& col) {
  block_sums s;
  const std::uint64_t first = b * block_rows + l;
  for (unsigned k = 0; k < rows_per_lane; ++k) {
    const std::uint64_t i = first + std::uint64_t{k} * lanes;
    if (i >= rows) break;
    add_row(s, dist(i), i, d, deepest, col);
  }
  return s;
}

/// a += b (one step of the tree).
BAM_HD inline void add_into(block_sums& a, const block_sums& b) {
  a.rows += b.rows;
  for (int k = 0; k < query_count; ++k)
    a.sum[k] += b.sum[k];
}

/// Block `b`'s sums on one CPU thread: every lane in turn, then the tree.
template <class Dist, class Col>
inline block_sums sum_block(std::uint64_t b, std::uint64_t rows, double d, int deepest,
                            const Dist& dist, const Col& col) {
  std::array<block_sums, lanes> s;
  for (unsigned l = 0; l < lanes; ++l)
    s[l] = lane_sums(b, l, rows, d, deepest, dist, col);
  for (unsigned stride = lanes / 2; stride > 0; stride /= 2) {
    for (unsigned l = 0; l < stride; ++l)
      add_into(s[l], s[l + stride]);
  }
  return s[0];
}

/// Blocks of a table of `rows` rows.
BAM_HD inline std::uint64_t blocks_of(std::uint64_t rows) {
  return (rows + block_rows - 1) / block_rows;
}

/// One query's result: |S| and the mean (NaN when S is empty: null in JSON).
struct query_result {
  std::uint64_t rows = 0;
  double value = 0;
};
using query_results = std::array<query_result, query_count>;

/// The block sums combined in block order, as means.
query_results combine(const std::vector<block_sums>& blocks);

/// The CPU reference: the same per-row terms, summed row by row in long double.
struct reference_sums {
  std::uint64_t rows = 0;
  long double sum[query_count] = {};
  long double abs_sum[query_count] = {};  ///< of |term|: the scale of the relative error
};
/// Rows [0, rows) of columns `cols` (pointers by query_columns position; only 0..deepest read).
reference_sums reference(const std::array<const double*, query_count>& cols, std::uint64_t rows,
                         double d, int deepest);

/// |value - ref| / max(|ref|, mean |term|) for query k (0 when both are empty or equal).
double relative_error(const query_result& r, const reference_sums& ref, int k);

/// `qN rows value` lines (17 significant digits; "null" when S is empty) of the set's queries.
std::string format_lines(const query_results& r, const query_set& q);
/// {"q0": {"rows": N, "value": x}, ...} of the set's queries (value null when S is empty).
nlohmann::json to_json(const query_results& r, const query_set& q);

}  // namespace bam::taxi
