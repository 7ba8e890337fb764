// bam/table/taxi_gen.hpp: API. A synthetic NYC taxi trip table (bam-data taxi-gen) whose
// distributions follow the published facts: 0.47 % of trips are >= 20 miles and 0.03 % >= 30
// miles (BaM dissertation 3.1), about 1 % have distance 0; metered fares (2.50 + 2.50 per mile
// plus time), the TLC surcharges (extra 0/0.50/1/2.50, MTA tax 0.50, improvement surcharge
// 0.30), tolls on some long trips, card tips of 10-25 %; total_amount is the sum of the parts
// (to the cent); passenger_count is missing (NaN) in 1 % of rows, as in TLC's files since 2020.
// Each row is a function of (seed, row index) alone (a counter-based generator), so a table is
// the same for any thread count and chunking.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "bam/table/taxi_columns.hpp"

namespace bam::taxi {

/// Row `row` of the table of seed `seed`, by column (taxi_columns.hpp).
std::array<double, column_count> generate_row(std::uint64_t seed, std::uint64_t row);

struct gen_options {
  std::uint64_t rows = 0;
  std::uint64_t seed = 1;
  std::filesystem::path out;
  unsigned threads = 0;                               ///< 0: one per core
  std::uint64_t chunk_rows = std::uint64_t{1} << 18;  ///< rows one thread makes at a time
};

/// Writes the table atomically (bam/table/table_writer.hpp), streaming chunks of rows; returns
/// its manifest's "source" (inputs, the measured fractions >= 20 and >= 30 miles, seconds).
/// table_error when the output cannot be written (nothing is left behind).
nlohmann::json generate_table(const gen_options& o);

}  // namespace bam::taxi
