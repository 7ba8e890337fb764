// bam/storage/checksum.hpp: API. The checksum of bamkit's on-SSD and on-disk data (manifests,
// regions, the data tools' files): XXH64 with seed 0 (xxHash, Debian's libxxhash-dev), one-shot
// or streamed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace bam {

/// XXH64(data, bytes, seed 0).
std::uint64_t checksum64(const void* data, std::size_t bytes);

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
