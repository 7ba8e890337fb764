// graph/files.hpp: internal. The graph loaders' files: the read-only input mapping (the
// library's, detail/mapped_file.hpp), an output file that is written under a temporary name in
// the same directory and renamed over its name only once it is complete and synced (so no
// half-written output is ever left under the name asked for), and the error of a binary input at
// a byte offset.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "../detail/mapped_file.hpp"

namespace bam::graph::detail {

using bam::detail::mapped_file;

class output_file {
 public:
  /// Creates the temporary file beside `target`; throws std::runtime_error naming `target`.
  explicit output_file(std::filesystem::path target);
  ~output_file();  ///< removes the temporary file unless commit() succeeded
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  void write(const void* data, std::size_t bytes);  ///< appends
  void write_at(const void* data, std::size_t bytes, std::uint64_t offset);
  void resize(std::uint64_t bytes);
  /// Syncs, closes and renames the file to its target.
  void commit();
  const std::filesystem::path& target() const { return target_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::filesystem::path target_;
  std::string temp_;
  int fd_ = -1;
  bool committed_ = false;
};

/// Throws input_error "FILE: byte OFFSET: what".
[[noreturn]] void fail_at_byte(const std::filesystem::path& file, std::uint64_t byte,
                               const std::string& what);

/// Reads exactly `bytes` at `offset` of the open descriptor `fd`; false when the file ends first.
bool read_exact(int fd, void* data, std::size_t bytes, std::uint64_t offset);

}  // namespace bam::graph::detail
