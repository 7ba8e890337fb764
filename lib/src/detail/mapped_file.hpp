// detail/mapped_file.hpp: internal. A whole input file mapped read-only (sequential access
// advised), for the library's parsers (graph loaders, the taxi CSV importer). A file that cannot
// be opened or mapped is an input_error (bam/io/input_error.hpp) "FILE: cannot open: why" or
// "FILE: cannot map: why".
#pragma once
#include <cstddef>
#include <filesystem>

namespace bam::detail {

class mapped_file {
 public:
  /// Maps `file`; input_error when it cannot be opened, is not a regular file or cannot be
  /// mapped. An empty file maps to data() == nullptr, size() == 0.
  explicit mapped_file(const std::filesystem::path& file);
  ~mapped_file();
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace bam::detail
