// Host storage policy of the cache (bam/cache/host_storage.hpp).
#include "bam/cache/host_storage.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "bam/cache/slot_prps.hpp"
#include "bam/detail/atomic.hpp"

namespace bam {
namespace {

/// Whether every one of `devices` sees each page of `r` at device 0's bus address.
bool same_bus_addresses(const dma_allocator& a, const dma_region& r, std::uint32_t devices) {
  for (std::size_t off = 0; off < r.size; off += 4096) {
    for (std::uint32_t d = 1; d < devices; ++d) {
      if (a.device_bus_address(r, off, d) != a.device_bus_address(r, off, 0)) return false;
    }
  }
  return true;
}

}  // namespace

host_cache_storage::host_cache_storage(const cache_config& cfg, std::vector<host_ssd> ssds,
                                       dma_allocator& slot_memory)
    : cfg_(cfg), ssds_(std::move(ssds)) {
  if (ssds_.empty() || ssds_.size() > cache_max_ssds)
    throw std::invalid_argument("host cache: 1 to 32 SSDs");
  if (cfg.slots == 0 || cfg.slots > 0xffffffffull)
    throw std::invalid_argument("host cache: slots must be in [1, 2^32)");
  const std::uint32_t lba_bytes = ssds_[0].lba_bytes;
  check_line_bytes(cfg.line_bytes, lba_bytes);
  queues_per_ssd_ = static_cast<std::uint32_t>(ssds_[0].queues.size());
  std::uint64_t min_lbas = ssds_[0].lbas;
  for (const host_ssd& s : ssds_) {
    if (s.lba_bytes != lba_bytes) throw std::invalid_argument("host cache: mixed LBA sizes");
    if (s.queues.size() != queues_per_ssd_ || queues_per_ssd_ == 0)
      throw std::invalid_argument("host cache: every SSD needs the same number (>= 1) of queues");
    if (s.lbas < min_lbas) min_lbas = s.lbas;
    queues_.insert(queues_.end(), s.queues.begin(), s.queues.end());
  }
  map_ = line_map{static_cast<std::uint32_t>(ssds_.size()), cfg.line_bytes / lba_bytes, cfg.layout};
  capacity_ = map_.capacity(min_lbas);

  // An allocator that maps its regions for several controllers (one per SSD, in order) may give
  // each its own bus addresses (IOMMU): then every SSD gets its own PRP table and list pages.
  std::uint32_t views = slot_memory.devices();
  if (views != 1 && views != ssds_.size())
    throw std::invalid_argument("host cache: slot memory mapped for a different number of SSDs");
  slots_ = dma_buffer(slot_memory, cfg.slots * cfg.line_bytes);
  const std::uint32_t per_slot = slot_list_pages(cfg.line_bytes);
  const std::size_t list_bytes = std::size_t{cfg.slots} * per_slot * 4096;
  if (per_slot != 0) lists_ = dma_buffer(slot_memory, list_bytes * views);
  if (views > 1 && same_bus_addresses(slot_memory, slots_.region(), views) &&
      same_bus_addresses(slot_memory, lists_.region(), views)) {
    views = 1;  // no IOMMU (or a shared domain): one table serves every SSD
  }
  for (std::uint32_t d = 0; d < views; ++d) {
    const std::vector<nvme::prp_pair> table = build_slot_prps(
        cfg.slots, cfg.line_bytes,
        [&](std::uint64_t s, std::uint64_t off) {
          return slot_memory.device_bus_address(slots_.region(), s * cfg.line_bytes + off, d);
        },
        per_slot != 0 ? lists_.as<std::byte>() + d * list_bytes : nullptr,
        [&](std::uint64_t off) {  // each list page is used on its own: no contiguity needed
          return slot_memory.device_bus_address(lists_.region(), d * list_bytes + off, d);
        });
    prps_.insert(prps_.end(), table.begin(), table.end());
  }
  tables_ = views;
}

host_cache_storage::ref_type host_cache_storage::ref() const {
  ref_type::params p;
  p.queues = queues_.data();
  p.queues_per_ssd = queues_per_ssd_;
  p.map = map_;
  p.slots = slots_.as<std::byte>();
  p.line_bytes = cfg_.line_bytes;
  p.prps = prps_.data();
  p.prps_per_ssd = tables_ == 1 ? 0 : cfg_.slots;
  p.timeout_ns = cfg_.io_timeout_ns;
  return ref_type(p);
}

void* host_cache_storage::allocate_zeroed(std::size_t bytes) const {
  const std::size_t size = (bytes + 127) / 128 * 128;
  void* p = std::aligned_alloc(128, size);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, size);
  return p;
}

void host_cache_storage::deallocate(void* p) const noexcept {
  std::free(p);
}

void host_cache_storage::read_counters(cache_counters& out, const cache_counters* in) const {
  auto* src = reinterpret_cast<std::uint64_t*>(const_cast<cache_counters*>(in));
  auto* dst = reinterpret_cast<std::uint64_t*>(&out);
  for (std::size_t i = 0; i < sizeof(cache_counters) / 8; ++i)
    dst[i] = device_atomic_ref<std::uint64_t>(src[i]).load(relaxed);
}

void host_cache_storage::zero_counters(cache_counters* c) const {
  auto* w = reinterpret_cast<std::uint64_t*>(c);
  for (std::size_t i = 0; i < sizeof(cache_counters) / 8; ++i)
    device_atomic_ref<std::uint64_t>(w[i]).store(0, relaxed);
}

}  // namespace bam
