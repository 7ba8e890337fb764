// bam/table/table_writer.hpp: API. Writes a column table (bam/table/column_table.hpp)
// atomically: the columns stream into a temporary directory beside the destination, checksummed
// as they go; commit() writes the manifest, syncs, and renames the directory into place (an
// earlier table there is replaced only then). A writer destroyed without commit() removes its
// temporary directory: a failed run leaves nothing behind.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bam::table {

/// Whether a table_writer may write to `out`: it does not exist, or is an empty directory or a
/// column table (which the commit replaces).
bool writable_destination(const std::filesystem::path& out);

class table_writer {
 public:
  /// Prepares a table of `columns` (names) at `out`. table_error when `out` exists and is not a
  /// column table or an empty directory (nothing of the user's is ever replaced), or when the
  /// temporary directory cannot be made.
  table_writer(std::filesystem::path out, std::vector<std::string> columns);
  ~table_writer();  ///< removes the temporary directory unless committed
  table_writer(const table_writer&) = delete;
  table_writer& operator=(const table_writer&) = delete;

  std::size_t columns() const;
  /// Appends `n` values to column `c`. Different columns may be appended from different
  /// threads at once; one column from one thread at a time. table_error on a write error.
  void append(std::size_t c, const double* values, std::size_t n);
  /// Rows appended to column `c` so far.
  std::uint64_t rows(std::size_t c) const;
  /// Checks that every column has the same number of rows, writes the manifest with `source`,
  /// syncs and renames into place. table_error otherwise (the temporary directory is removed).
  void commit(nlohmann::json source);
  /// The temporary directory (for messages and tests).
  const std::filesystem::path& temp_dir() const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace bam::table
