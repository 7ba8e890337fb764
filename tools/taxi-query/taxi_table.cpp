// taxi-query's table: opened from taxi.data, the query columns mapped.
#include "taxi_table.hpp"

#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace bam::tools {

std::string taxi_region(int k) {
  std::string out = "taxi.";
  out += taxi::column_names[taxi::query_columns[static_cast<std::size_t>(k)]];
  return out;
}

std::array<const double*, taxi::query_count> taxi_table::pointers() const {
  std::array<const double*, taxi::query_count> p{};
  for (int k = 0; k < taxi::query_count; ++k)
    p[k] = cols[k].data();
  return p;
}

namespace {

/// Recomputes the query columns' checksums, a thread per column; table_error for the first
/// (in query order) that differs from the manifest.
void verify_columns(const taxi_table& t) {
  std::array<std::string, taxi::query_count> errors;
  std::vector<std::thread> pool;
  for (int k = 0; k < taxi::query_count; ++k) {
    pool.emplace_back([&t, &errors, k] {
      try {
        const char* name = taxi::column_names[taxi::query_columns[static_cast<std::size_t>(k)]];
        table::verify_checksum(t.dir, *t.manifest.find(name), t.cols[k]);
      } catch (const std::exception& e) {
        errors[k] = e.what();
      }
    });
  }
  for (auto& th : pool)
    th.join();
  for (const std::string& e : errors) {
    if (!e.empty()) throw table::table_error(e);
  }
}

}  // namespace

taxi_table open_taxi_table(const run_config& c, column_check check) {
  if (c.taxi.data.empty()) {
    throw config_error("taxi.data",
                       "required: the table directory (--data DIR; bam-data "
                       "taxi-import or taxi-gen makes one)");
  }
  taxi_table t;
  t.dir = c.taxi.data;
  try {
    t.manifest = table::read_manifest(t.dir);
    for (int k = 0; k < taxi::query_count; ++k)
      t.cols[k] = table::mapped_column(
          t.dir, t.manifest, taxi::column_names[taxi::query_columns[static_cast<std::size_t>(k)]]);
    if (check == column_check::checksum) {
      const auto t0 = std::chrono::steady_clock::now();
      verify_columns(t);
      t.checksum_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  } catch (const table::table_error& e) {
    throw config_error("taxi.data", e.what());
  }
  return t;
}

}  // namespace bam::tools
