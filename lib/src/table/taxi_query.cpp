// The taxi queries' host parts: parsing a query list, combining block sums, the long-double
// reference, the relative error and the result formats.
#include "bam/table/taxi_query.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bam::taxi {

query_set parse_queries(const std::string& text) {
  std::string t;
  for (char ch : text)
    t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (t == "all") return query_set{(1u << query_count) - 1};
  query_set q;
  std::size_t at = 0;
  while (true) {
    const std::size_t comma = t.find(',', at);
    const std::string item =
        t.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (item.size() != 2 || item[0] != 'q' || item[1] < '0' || item[1] >= '0' + query_count) {
      throw std::invalid_argument(
          fmt::format("\"{}\": \"{}\" is not a query, allowed all or a comma list of q0..q{}", text,
                      item, query_count - 1));
    }
    q.mask |= 1u << (item[1] - '0');
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return q;
}

std::string to_string(const query_set& q) {
  std::string out;
  for (int k = 0; k < query_count; ++k) {
    if (!q.has(k)) continue;
    if (!out.empty()) out += ',';
    out += 'q';
    out += static_cast<char>('0' + k);
  }
  return out;
}

query_results combine(const std::vector<block_sums>& blocks) {
  block_sums total;
  for (const block_sums& b : blocks) {
    total.rows += b.rows;
    for (int k = 0; k < query_count; ++k)
      total.sum[k] += b.sum[k];
  }
  query_results r;
  for (int k = 0; k < query_count; ++k) {
    r[k].rows = total.rows;
    r[k].value = total.rows == 0 ? std::numeric_limits<double>::quiet_NaN()
                                 : total.sum[k] / static_cast<double>(total.rows);
  }
  return r;
}

reference_sums reference(const std::array<const double*, query_count>& cols, std::uint64_t rows,
                         double d, int deepest) {
  reference_sums s;
  for (std::uint64_t i = 0; i < rows; ++i) {
    const double dist = cols[0][i];
    if (!(dist >= d)) continue;
    s.rows += 1;
    s.sum[0] += dist;
    s.abs_sum[0] += std::fabs(dist);
    if (deepest < 1) continue;
    double num = cols[1][i];
    double term = num / dist;
    s.sum[1] += term;
    s.abs_sum[1] += std::fabs(term);
    for (int k = 2; k <= deepest; ++k) {
      num = num - cols[k][i];
      term = num / dist;
      s.sum[k] += term;
      s.abs_sum[k] += std::fabs(term);
    }
  }
  return s;
}

double relative_error(const query_result& r, const reference_sums& ref, int k) {
  if (r.rows != ref.rows) return std::numeric_limits<double>::infinity();
  if (ref.rows == 0) return std::isnan(r.value) ? 0.0 : std::numeric_limits<double>::infinity();
  const long double n = static_cast<long double>(ref.rows);
  const long double mean = ref.sum[k] / n;
  const long double scale = std::max(std::fabs(mean), ref.abs_sum[k] / n);
  const long double diff = std::fabs(static_cast<long double>(r.value) - mean);
  if (diff == 0) return 0.0;
  return static_cast<double>(diff / scale);
}

std::string format_lines(const query_results& r, const query_set& q) {
  std::string out;
  for (int k = 0; k < query_count; ++k) {
    if (!q.has(k)) continue;
    if (r[k].rows == 0)
      out += fmt::format("q{} 0 null\n", k);
    else
      out += fmt::format("q{} {} {:.17g}\n", k, r[k].rows, r[k].value);
  }
  return out;
}

nlohmann::json to_json(const query_results& r, const query_set& q) {
  nlohmann::json out = nlohmann::json::object();
  for (int k = 0; k < query_count; ++k) {
    if (!q.has(k)) continue;
    nlohmann::json v = nullptr;
    if (r[k].rows != 0) v = r[k].value;
    out[fmt::format("q{}", k)] = {{"rows", r[k].rows}, {"value", v}};
  }
  return out;
}

}  // namespace bam::taxi
