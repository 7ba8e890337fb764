// bam/table/taxi_columns.hpp: API. The columns of the NYC taxi trip table (bam-data taxi-import
// and taxi-gen write them, taxi-query reads them): names, and which ones a CSV row must have.
#pragma once
#include <array>
#include <cstddef>

namespace bam::taxi {

/// Column indexes; column_names[c] is the name (in the table and in TLC's CSV header).
enum column : std::size_t {
  trip_distance,
  fare_amount,
  extra,
  mta_tax,
  tip_amount,
  tolls_amount,
  improvement_surcharge,
  total_amount,
  passenger_count,
  pickup_time,  ///< epoch seconds (tpep_pickup_datetime read as UTC)
  column_count
};

inline constexpr std::array<const char*, column_count> column_names = {
    "trip_distance", "fare_amount",           "extra",        "mta_tax",         "tip_amount",
    "tolls_amount",  "improvement_surcharge", "total_amount", "passenger_count", "pickup_time"};

/// The CSV header name of the pickup time column.
inline constexpr const char* pickup_csv_name = "tpep_pickup_datetime";

/// Whether a CSV row is rejected when column c is empty or not a number (the queries need it).
constexpr bool required(column c) {
  return c == trip_distance || c == total_amount || c == extra || c == improvement_surcharge ||
         c == tolls_amount || c == mta_tax;
}

}  // namespace bam::taxi
