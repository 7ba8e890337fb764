// The taxi queries' reduction: block sums equal the long-double reference within 1e-12, are
// independent of the order blocks are computed in, and the result formats.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bam/table/taxi_query.hpp"

namespace {

using namespace bam::taxi;

TEST(TaxiQuery, ParsesQueryLists) {
  EXPECT_EQ(parse_queries("all").mask, 63u);
  EXPECT_EQ(parse_queries("Q0,q5").mask, 33u);
  EXPECT_EQ(parse_queries("q3").deepest(), 3);
  EXPECT_EQ(to_string(parse_queries("q5,q1")), "q1,q5");
  for (const char* bad : {"", "q6", "q1,", "x", "q1,q", "all,q1"})
    EXPECT_THROW(parse_queries(bad), std::invalid_argument) << bad;
}

TEST(TaxiQuery, BlockSumsMatchTheReferenceAndAHandComputedCase) {
  // Three rows by hand: D = 10 selects rows 0 and 2.
  const std::vector<double> dist = {10, 5, 20}, total = {30, 99, 50}, ex = {1, 9, 2},
                            imp = {0.3, 9, 0.3}, toll = {5, 9, 0}, mta = {0.5, 9, 0.5};
  const std::array<const double*, query_count> cols = {dist.data(), total.data(), ex.data(),
                                                       imp.data(),  toll.data(),  mta.data()};
  auto d = [&](std::uint64_t i) { return cols[0][i]; };
  auto c = [&](int k, std::uint64_t i) { return cols[static_cast<std::size_t>(k)][i]; };
  const query_results r = combine({sum_block(0, 3, 10.0, 5, d, c)});
  EXPECT_EQ(r[0].rows, 2u);
  EXPECT_DOUBLE_EQ(r[0].value, 15.0);
  EXPECT_DOUBLE_EQ(r[1].value, (30.0 / 10 + 50.0 / 20) / 2);
  EXPECT_DOUBLE_EQ(r[5].value,
                   ((30 - 1 - 0.3 - 5 - 0.5) / 10.0 + (50 - 2 - 0.3 - 0 - 0.5) / 20.0) / 2);
  EXPECT_EQ(format_lines(r, parse_queries("q0,q1")), "q0 2 15\nq1 2 2.75\n");

  // Many rows of random data: every query within 1e-12 of the reference; S empty gives null.
  std::mt19937_64 g(3);
  std::uniform_real_distribution<double> u(0, 40), m(-5, 200);
  const std::uint64_t n = 3 * block_rows + 123;
  std::vector<std::vector<double>> v(query_count, std::vector<double>(n));
  for (auto& col : v)
    for (double& x : col)
      x = &col == &v[0] ? u(g) : m(g);
  std::array<const double*, query_count> p{};
  for (int k = 0; k < query_count; ++k)
    p[k] = v[k].data();
  auto d2 = [&](std::uint64_t i) { return p[0][i]; };
  auto c2 = [&](int k, std::uint64_t i) { return p[static_cast<std::size_t>(k)][i]; };
  std::vector<block_sums> blocks(blocks_of(n));
  for (std::uint64_t b = blocks.size(); b-- > 0;)  // any order: each block has its own slot
    blocks[b] = sum_block(b, n, 20.0, 5, d2, c2);
  const query_results res = combine(blocks);
  const reference_sums ref = reference(p, n, 20.0, 5);
  EXPECT_GT(ref.rows, n / 3);
  for (int k = 0; k < query_count; ++k) {
    EXPECT_EQ(res[k].rows, ref.rows);
    EXPECT_LE(relative_error(res[k], ref, k), 1e-12) << k;
  }
  const query_results none = combine({sum_block(0, n, 100.0, 5, d2, c2)});
  EXPECT_EQ(none[3].rows, 0u);
  EXPECT_TRUE(std::isnan(none[3].value));
  EXPECT_EQ(relative_error(none[3], reference(p, n, 100.0, 5), 3), 0.0);
  EXPECT_EQ(to_json(none, parse_queries("q3")).dump(), R"({"q3":{"rows":0,"value":null}})");
}

}  // namespace
