// taxi-query's run result, verification, result lines and results file.
#include "taxi_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "bam/storage/storage_context.hpp"

namespace bam::tools {

taxi::query_results results_of(const std::vector<taxi::block_sums>& blocks) {
  return taxi::combine(blocks);
}

std::uint64_t taxi_bytes_needed(std::uint64_t rows, std::uint64_t s_rows, int deepest) {
  return rows * 8 + s_rows * 8 * static_cast<std::uint64_t>(deepest);
}

nlohmann::json cache_json(const cache_stats& s, std::uint64_t line_bytes) {
  std::uint64_t read = 0;
  for (std::uint64_t b : s.bytes_read)
    read += b;
  return {{"line_size", line_bytes},
          {"accesses", s.accesses},
          {"hits", s.hits},
          {"misses", s.misses},
          {"reads", s.reads},
          {"evictions", s.evictions},
          {"bytes_read", read},
          {"io_errors", s.io_errors},
          {"timeouts", s.timeouts},
          {"failed_accesses", s.failed_accesses},
          {"metadata_bytes", s.metadata_bytes},
          {"slot_bytes", s.slot_bytes}};
}

void add_cache_failures(const cache_stats& s, taxi_outcome& o) {
  run_result r;  // the storage layer's naming of statuses (add_cache_errors)
  add_cache_errors(s, r);
  o.failed_reads += r.errors;
  o.timeouts += r.timeouts;
  for (const auto& [status, n] : r.errors_by_status)
    o.failed_reads_by_status[status] += n;
  o.failed_accesses += s.failed_accesses;
}

std::vector<taxi_impl> taxi_impls(const run_config& c) {
  if (c.taxi.impl == taxi_impl::both) return {taxi_impl::bam, taxi_impl::tiled};
  return {c.taxi.impl};
}

namespace {

nlohmann::json outcome_json(const taxi_outcome& o, const taxi::query_set& q, std::uint64_t rows,
                            int deepest) {
  const std::uint64_t needed = taxi_bytes_needed(rows, o.results[0].rows, deepest);
  nlohmann::json j = {
      {"impl", o.impl},
      {"seconds", o.seconds},
      {"bytes_moved", o.bytes_moved},
      {"commands", o.commands},
      {"bytes_needed", needed},
      {"io_amplification", needed == 0 ? 0.0 : double(o.bytes_moved) / double(needed)},
      {"rows_per_s", o.seconds > 0 ? double(rows) / o.seconds : 0.0},
      {"results", taxi::to_json(o.results, q)},
      {"failed_reads", o.failed_reads},
      {"timeouts", o.timeouts},
      {"failed_reads_by_status", o.failed_reads_by_status},
      {"failed_accesses", o.failed_accesses}};
  j.update(o.details);
  return j;
}

bool identical(const taxi::query_results& a, const taxi::query_results& b,
               const taxi::query_set& q) {
  for (int k = 0; k < taxi::query_count; ++k) {
    if (!q.has(k)) continue;
    if (a[k].rows != b[k].rows) return false;
    if (std::memcmp(&a[k].value, &b[k].value, sizeof(double)) != 0 &&
        !(std::isnan(a[k].value) && std::isnan(b[k].value)))
      return false;
  }
  return true;
}

}  // namespace

run_result taxi_result(const run_config& c, const taxi_table& t,
                       const std::vector<taxi_outcome>& outcomes, bool verify) {
  const taxi::query_set q = taxi::parse_queries(c.taxi.queries);
  const int deepest = q.deepest();
  run_result r;
  nlohmann::json impls = nlohmann::json::array();
  double secs = 0;
  std::uint64_t failed_accesses = 0;
  for (const taxi_outcome& o : outcomes) {
    impls.push_back(outcome_json(o, q, t.rows(), deepest));
    r.read.io_bytes += o.bytes_moved;
    r.read.ios += o.commands;
    r.errors += o.failed_reads;
    r.timeouts += o.timeouts;
    for (const auto& [status, n] : o.failed_reads_by_status)
      r.errors_by_status[status] += n;
    failed_accesses += o.failed_accesses;
    secs += o.seconds;
  }
  if (failed_accesses != 0 && r.errors == 0) {
    r.error = fmt::format(
        "{} element accesses got no data without a failed read (no cache slot?): the results "
        "are incomplete",
        failed_accesses);
  }
  r.runtime_ns = static_cast<std::uint64_t>(secs * 1e9);
  r.read.runtime_ns = r.runtime_ns;
  nlohmann::json& st = r.tool_stats["taxi"];
  st = {{"table", t.dir.string()},
        {"rows", t.rows()},
        {"checksum_seconds", t.checksum_seconds},
        {"queries", taxi::to_string(q)},
        {"min_distance", c.taxi.min_distance},
        {"reduction",
         fmt::format("fixed order: blocks of {} rows ({} lanes x {}), lane sums combined by a "
                     "tree, block sums in block order",
                     taxi::block_rows, taxi::lanes, taxi::rows_per_lane)},
        {"impls", impls},
        {"failed_accesses", failed_accesses},
        {"top_level",
         "the report's top-level runtime, bytes, I/Os and errors (failed reads) are sums over "
         "the impls run "
         "(bam timed by CUDA events around its kernel, tiled by wall clock from its first read): "
         "compare impls by their own figures in impls[]"}};
  if (outcomes.size() > 1) {
    bool same = true;
    for (std::size_t i = 1; i < outcomes.size(); ++i)
      same = same && identical(outcomes[0].results, outcomes[i].results, q);
    st["impls_bit_identical"] = same;
  }
  if (verify) {
    const auto t0 = std::chrono::steady_clock::now();
    const taxi::reference_sums ref =
        taxi::reference(t.pointers(), t.rows(), c.taxi.min_distance, deepest);
    nlohmann::json v = nlohmann::json::object();
    double worst = 0;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      for (int k = 0; k < taxi::query_count; ++k) {
        if (!q.has(k)) continue;
        const double e = taxi::relative_error(outcomes[i].results[k], ref, k);
        worst = std::max(worst, e);
        if (!(e <= 1e-12)) {
          ++r.verify_mismatches;
          fmt::print(stderr,
                     "taxi-query: {} q{} differs from the reference: rows {} (reference {}), "
                     "value {:.17g}, relative error {:.3g} > 1e-12\n",
                     outcomes[i].impl, k, outcomes[i].results[k].rows, ref.rows,
                     outcomes[i].results[k].value, e);
        }
      }
    }
    taxi::query_results ref_results{};
    for (int k = 0; k < taxi::query_count; ++k) {
      ref_results[k].rows = ref.rows;
      ref_results[k].value =
          ref.rows == 0 ? std::nan("")
                        : static_cast<double>(ref.sum[k] / static_cast<long double>(ref.rows));
    }
    st["verify"] = {
        {"reference", "rows in order, terms summed in long double"},
        {"reference_results", taxi::to_json(ref_results, q)},
        {"max_relative_error", worst},
        {"tolerance", 1e-12},
        {"mismatches", r.verify_mismatches},
        {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
  }
  if (!outcomes.empty()) {
    std::cout << taxi::format_lines(outcomes.front().results, q) << std::flush;
    if (!c.taxi.results.empty()) {
      std::ofstream out(c.taxi.results);
      out << taxi::to_json(outcomes.front().results, q).dump(2) << "\n";
      if (!out) throw std::runtime_error("cannot write taxi.results file " + c.taxi.results);
    }
  }
  return r;
}

}  // namespace bam::tools
