// bam/storage/checksum.hpp: API. The checksum of bamkit's on-SSD and on-disk data (manifests,
// regions, the data tools' files): XXH64 with seed 0 (xxHash, Debian's libxxhash-dev), one-shot
// or streamed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace bam {

/// XXH64(data, bytes, seed 0).
std::uint64_t checksum64(const void* data, std::size_t bytes);

/// The one text form of a checksum (manifests, reports, the data tools' output): exactly 16
/// lower-case hex digits.
std::string checksum_hex(std::uint64_t checksum);
/// checksum_hex's form back; nullopt for anything else (other lengths, upper case, a sign,
/// spaces).
std::optional<std::uint64_t> parse_checksum_hex(std::string_view text);

/// The same over data given in pieces, in order.
class checksum64_stream {
 public:
  checksum64_stream();
  ~checksum64_stream();
  checksum64_stream(const checksum64_stream&) = delete;
  checksum64_stream& operator=(const checksum64_stream&) = delete;
  void update(const void* data, std::size_t bytes);
  std::uint64_t digest() const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace bam
