// bam/table/taxi_csv.hpp: API. Imports NYC TLC yellow-taxi trip CSV files (bam-data
// taxi-import) into a column table (bam/table/column_table.hpp). The header row names the
// columns (post-2015 names, matched case-insensitively, in any order; other columns are
// ignored) and must name every column of taxi_columns.hpp (the pickup time as
// tpep_pickup_datetime). A row whose required value (taxi::required) is empty or not a number
// is rejected and counted, with its line; any other empty or non-numeric value is stored as
// NaN and counted. Quoted fields ("" inside quotes is a quote), CRLF line ends and empty lines
// are accepted. A malformed file (no header, a missing column, a row with another number of
// fields than the header, an unterminated quote, a pickup time that cannot exist such as
// 2021-02-31) is refused with its line number, and nothing is written. Files are parsed in chunks
// by several threads; rows keep their file order.
#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bam/io/input_error.hpp"

namespace bam::taxi {

/// A malformed input file: what() is "FILE:LINE: what is wrong" (an input_error; a file that
/// cannot be opened is an input_error "FILE: cannot open: why").
class csv_error : public input_error {
 public:
  csv_error(const std::string& file, std::uint64_t line, const std::string& what);
  std::string file;
  std::uint64_t line = 0;
};

struct import_options {
  std::vector<std::filesystem::path> csv;  ///< imported in this order
  std::filesystem::path out;
  unsigned threads = 0;                                 ///< 0: one per core
  std::uint64_t chunk_bytes = std::uint64_t{32} << 20;  ///< CSV bytes one thread parses at a time
  unsigned reported_lines = 10;  ///< rejected rows whose FILE:LINE the report lists
};

/// Imports the files into a table at o.out (written atomically); returns the import statistics
/// (the manifest's "source": rows, rejected rows with the first lines, NaN counts per column,
/// per file). csv_error for a malformed file, input_error for one that cannot be opened or
/// mapped, table_error when the output cannot be written; nothing is left behind either way.
nlohmann::json import_csv(const import_options& o);

/// What parse_datetime made of a text.
enum class datetime_parse {
  ok,          ///< a time: `out` holds it
  not_a_time,  ///< not of the form YYYY-MM-DD HH:MM:SS (the importer stores NaN and counts it)
  impossible,  ///< of that form, but no such time: month 13, hour 24, a day its month lacks
               ///< (2021-02-31; February 29 outside leap years); `why` says which
};

/// Seconds since 1970-01-01 of "YYYY-MM-DD HH:MM:SS" (or with 'T'; a fraction of a second and a
/// trailing Z are accepted, the fraction dropped), read as UTC (Gregorian calendar, second 60
/// allowed for a leap second). The importer refuses a file with an impossible time (its
/// FILE:LINE and the field named).
datetime_parse parse_datetime(std::string_view text, double& out, std::string& why);

}  // namespace bam::taxi
