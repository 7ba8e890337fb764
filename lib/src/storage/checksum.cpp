// XXH64 through xxHash's header (inlined: no library to link).
#include "bam/storage/checksum.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bam {

std::uint64_t checksum64(const void* data, std::size_t bytes) {
  return XXH64(data, bytes, 0);
}

struct checksum64_stream::state {
  XXH64_state_t st;
};

checksum64_stream::checksum64_stream() : s_(std::make_unique<state>()) {
  XXH64_reset(&s_->st, 0);
}
checksum64_stream::~checksum64_stream() = default;

void checksum64_stream::update(const void* data, std::size_t bytes) {
  XXH64_update(&s_->st, data, bytes);
}

std::uint64_t checksum64_stream::digest() const {
  return XXH64_digest(&s_->st);
}

}  // namespace bam
