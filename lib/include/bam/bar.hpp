// bam/bar.hpp: access to a controller's register block (BAR0).
// The same accessor serves a real controller (BAR0 mapped uncached through the kernel module)
// and an emulated one (a register block in ordinary memory that engine threads poll): every
// access is a single 32-bit load or store, acquire/release at system scope. 64-bit registers are
// accessed as two 32-bit halves, low first, as the specification permits.
#pragma once
#include <cstdint>

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"
#include "bam/nvme/spec.hpp"

namespace bam {

/// Non-owning view of a register block. Trivially copyable.
class bar_ref {
 public:
  bar_ref() = default;
  BAM_HD explicit bar_ref(void* base, std::uint64_t size)
      : base_(static_cast<std::uint8_t*>(base)), size_(size) {}

  BAM_HD std::uint32_t read32(std::uint32_t offset) const {
    return system_atomic_ref<std::uint32_t>(*word(offset)).load(acquire);
  }
  BAM_HD void write32(std::uint32_t offset, std::uint32_t value) const {
    system_atomic_ref<std::uint32_t>(*word(offset)).store(value, release);
  }
  BAM_HD std::uint64_t read64(std::uint32_t offset) const {
    const std::uint64_t lo = read32(offset);
    const std::uint64_t hi = read32(offset + 4);
    return lo | (hi << 32);
  }
  BAM_HD void write64(std::uint32_t offset, std::uint64_t value) const {
    write32(offset, static_cast<std::uint32_t>(value));
    write32(offset + 4, static_cast<std::uint32_t>(value >> 32));
  }
  /// Address of a 32-bit register (e.g. a doorbell, to hand to a queue).
  BAM_HD std::uint32_t* word(std::uint32_t offset) const {
    return reinterpret_cast<std::uint32_t*>(base_ + offset);
  }
  BAM_HD void* base() const { return base_; }
  BAM_HD std::uint64_t size() const { return size_; }

 private:
  std::uint8_t* base_ = nullptr;
  std::uint64_t size_ = 0;
};

/// Bytes a register block needs for `queue_pairs` I/O queue pairs plus the admin pair at
/// doorbell stride `dstrd`.
BAM_HD constexpr std::uint64_t bar_size_for(std::uint32_t queue_pairs, std::uint32_t dstrd) {
  return nvme::reg::cq_head_doorbell(queue_pairs, dstrd) + (4u << dstrd);
}

}  // namespace bam
