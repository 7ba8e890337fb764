// media_file.hpp: the media file of the file baselines (uring, cufile): created or extended to
// the configured size, the new part filled with the data pattern (bam/harness/data_pattern.hpp).
#pragma once
#include <cstdint>
#include <string>

namespace bam::tools {

/// Makes `path` at least `bytes` long, the new part filled with the data pattern in blocks of
/// file_pattern_block. Returns whether it wrote anything. Throws std::runtime_error (with errno).
bool prepare_media_file(const std::string& path, std::uint64_t bytes);

/// Throws std::runtime_error "`what`: strerror(err)".
[[noreturn]] void fail_errno(const std::string& what, int err);

}  // namespace bam::tools
