// XXH64 through xxHash's header (inlined: no library to link).
#include "bam/storage/checksum.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bam {

std::uint64_t checksum64(const void* data, std::size_t bytes) {
  return XXH64(data, bytes, 0);
}

std::string checksum_hex(std::uint64_t checksum) {
  return fmt::format("{:016x}", checksum);
}

std::optional<std::uint64_t> parse_checksum_hex(std::string_view text) {
  const bool digits = std::all_of(text.begin(), text.end(), [](char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
  });
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  if (text.size() != 16 || !digits || std::from_chars(text.data(), end, v, 16).ptr != end)
    return std::nullopt;
  return v;
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
