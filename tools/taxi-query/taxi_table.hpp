// taxi-query's view of a table directory: the manifest, the query columns mapped read-only, and
// the regions the backends place them in on their SSDs.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "bam/config/config_io.hpp"
#include "bam/table/column_table.hpp"
#include "bam/table/taxi_query.hpp"

namespace bam::tools {

/// The region of query column k (taxi::query_columns[k]) on the SSDs.
std::string taxi_region(int k);

struct taxi_table {
  std::filesystem::path dir;
  table::table_manifest manifest;
  std::array<table::mapped_column, taxi::query_count> cols;  ///< by query_columns position
  double checksum_seconds = 0;  ///< recomputing the query columns' checksums (0: not checked)

  std::uint64_t rows() const { return manifest.rows; }
  /// Bytes of each column's region (at least 8: a region is never empty).
  std::uint64_t region_bytes() const { return rows() == 0 ? 8 : rows() * 8; }
  std::array<const double*, taxi::query_count> pointers() const;
};

/// What open_taxi_table checks of the query columns' files.
enum class column_check {
  size,      ///< rows * 8 bytes (read_manifest): enough to validate a config
  checksum,  ///< also each column's XXH64 against the manifest (before a backend loads them)
};

/// Opens the table of taxi.data and maps its query columns; config_error (taxi.data) when it is
/// missing, damaged or lacks a query column, or (column_check::checksum) when a query column's
/// file differs from its checksum (the column and the file named).
taxi_table open_taxi_table(const run_config& c, column_check check);

/// Places the query columns on a storage context's SSDs: a region each, written from the
/// mapped files. Returns the seconds it took.
template <class Ctx>
double place_taxi_columns(Ctx& ctx, const taxi_table& t) {
  double secs = 0;
  for (int k = 0; k < taxi::query_count; ++k)
    ctx.add_region(taxi_region(k), t.region_bytes());
  for (int k = 0; k < taxi::query_count; ++k) {
    const double zero = 0;
    const void* src = t.rows() == 0 ? &zero : static_cast<const void*>(t.cols[k].data());
    secs += ctx.write_region(taxi_region(k), src, t.region_bytes()).seconds;
  }
  return secs;
}

}  // namespace bam::tools
