// bam/table/column_table.hpp: API. A column table on disk (the data tools write it, the
// applications read it): a directory with one file of little-endian 8-byte doubles per column
// (`<name>.f64`) and a JSON manifest (`table.json`: format, row count, the columns with their
// type, file and XXH64 checksum, and what made the table: import statistics or generator
// parameters). It does not depend on any SSD layout: applications place its columns on SSDs at
// run time (the storage contexts' regions).
#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace bam::table {

/// The manifest's file name inside a table directory.
inline constexpr const char* manifest_name = "table.json";
/// The manifest's "format" value.
inline constexpr const char* format_name = "bamkit-column-table-1";

/// A table directory that is missing, damaged or not what a program needs.
class table_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct column_info {
  std::string name;
  std::string type = "f64";    ///< the only type so far: IEEE-754 binary64, little endian
  std::string file;            ///< relative to the table directory
  std::uint64_t checksum = 0;  ///< XXH64 (bam/storage/checksum.hpp) of the file's bytes
};

struct table_manifest {
  std::uint64_t rows = 0;
  std::vector<column_info> columns;
  nlohmann::json source = nlohmann::json::object();  ///< import statistics or generator inputs

  /// The column named `name`, or nullptr.
  const column_info* find(std::string_view name) const;
  nlohmann::json to_json() const;
  /// Throws table_error naming `where` and what is wrong.
  static table_manifest from_json(const nlohmann::json& j, const std::string& where);
};

/// Reads `dir`/table.json; table_error when it is missing or malformed (a checksum that is not
/// 16 hex digits included), or when a column file is missing or not rows * 8 bytes long.
table_manifest read_manifest(const std::filesystem::path& dir);

/// Recomputes every column's checksum; table_error naming the first column that differs.
void verify_checksums(const std::filesystem::path& dir, const table_manifest& m);

/// A column file mapped read-only (the page cache serves it).
class mapped_column {
 public:
  mapped_column() = default;
  /// Maps column `name` of the table in `dir`; table_error when the manifest lacks it.
  mapped_column(const std::filesystem::path& dir, const table_manifest& m, std::string_view name);
  ~mapped_column();
  mapped_column(mapped_column&& o) noexcept;
  mapped_column& operator=(mapped_column&& o) noexcept;
  mapped_column(const mapped_column&) = delete;
  mapped_column& operator=(const mapped_column&) = delete;

  const double* data() const { return data_; }
  std::uint64_t rows() const { return rows_; }
  std::uint64_t bytes() const { return rows_ * 8; }

 private:
  void release() noexcept;
  const double* data_ = nullptr;
  std::uint64_t rows_ = 0;
  std::uint64_t mapped_ = 0;
};

/// Recomputes column `c`'s checksum over `data` (its mapping); table_error naming the column and
/// its file when it differs from the manifest's.
void verify_checksum(const std::filesystem::path& dir, const column_info& c,
                     const mapped_column& data);

}  // namespace bam::table
