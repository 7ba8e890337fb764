// Test helpers for the graph tests: files written and read back, graphs compared, small graphs
// built by hand.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bam/graph/csr.hpp"
#include "tool_runner.hpp"

namespace bam::test {

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

inline std::vector<char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<char>& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(b.data(), static_cast<std::streamsize>(b.size()));
}

/// The names of the files in `dir`, but the tool runner's stdout.txt / stderr.txt.
inline std::set<std::string> files_in(const std::filesystem::path& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n != "stdout.txt" && n != "stderr.txt") out.insert(n);
  }
  return out;
}

/// The graph's edges (u, v) in CSR order.
inline std::vector<std::pair<std::uint64_t, std::uint64_t>> edges_of(const graph::csr_graph& g) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (std::uint64_t u = 0; u < g.vertex_count; ++u) {
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i)
      out.emplace_back(u, g.neighbour(i));
  }
  return out;
}

/// A CSR with the given rows (each row's neighbours as listed).
inline graph::csr_graph graph_of(const std::vector<std::vector<std::uint32_t>>& rows,
                                 std::vector<float> weights = {}) {
  graph::csr_graph g;
  g.vertex_count = rows.size();
  g.offsets.push_back(0);
  for (const auto& r : rows) {
    g.neighbours32.insert(g.neighbours32.end(), r.begin(), r.end());
    g.offsets.push_back(g.neighbours32.size());
  }
  g.weights = std::move(weights);
  return g;
}

/// Same vertices, offsets, neighbours and weights.
inline void expect_same_graph(const graph::csr_graph& a, const graph::csr_graph& b) {
  EXPECT_EQ(a.vertex_count, b.vertex_count);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.neighbours32, b.neighbours32);
  EXPECT_EQ(a.neighbours64, b.neighbours64);
  EXPECT_EQ(a.weights, b.weights);
}

/// Runs f and returns the input_error's message ("" and a test failure when none is thrown).
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const graph::input_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no input_error thrown";
  return {};
}

}  // namespace bam::test
