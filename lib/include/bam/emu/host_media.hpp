// bam/emu/host_media.hpp: API. The blocks of a host emulated controller's namespace: anonymous
// memory, or a file mapped MAP_SHARED (flush = msync), so a file's data persists across
// controller instances. Serves as the Media view of bam/emu/nvm_processor.hpp.
#pragma once
#include <cstdint>
#include <string>

#include "bam/emu/options.hpp"

namespace bam::emu {

class host_media {
 public:
  /// Maps `bytes` of media; a file is created or grown to `bytes` (never shrunk).
  host_media(media_kind kind, const std::string& path, std::uint64_t bytes);
  ~host_media();
  host_media(const host_media&) = delete;
  host_media& operator=(const host_media&) = delete;

  std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  /// Makes written blocks durable (msync for a file; nothing for memory).
  void flush();

 private:
  media_kind kind_;
  std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
  int fd_ = -1;
};

}  // namespace bam::emu
