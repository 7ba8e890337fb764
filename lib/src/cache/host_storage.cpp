// Host storage policy of the cache (bam/cache/host_storage.hpp).
#include "bam/cache/host_storage.hpp"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "bam/cache/slot_prps.hpp"
#include "bam/detail/atomic.hpp"
#include "bam/detail/expects.hpp"

namespace bam {

host_queue_table::host_queue_table(const std::vector<host_ssd>& ssds) {
  if (ssds.empty()) throw std::invalid_argument("host cache: no SSDs");
  const std::uint32_t lba_bytes = ssds[0].lba_bytes;
  const auto per_ssd = static_cast<std::uint32_t>(ssds[0].queues.size());
  std::uint64_t min_lbas = ssds[0].lbas;
  for (const host_ssd& s : ssds) {
    if (s.lba_bytes != lba_bytes) throw std::invalid_argument("host cache: mixed LBA sizes");
    if (s.queues.size() != per_ssd || per_ssd == 0)
      throw std::invalid_argument("host cache: every SSD needs the same number (>= 1) of queues");
    if (s.lbas < min_lbas) min_lbas = s.lbas;
    queues_.insert(queues_.end(), s.queues.begin(), s.queues.end());
  }
  if (lba_bytes == 0 || (lba_bytes & (lba_bytes - 1)) != 0)
    throw std::invalid_argument("host cache: LBA size is not a power of two");
  p_.ssds = static_cast<std::uint32_t>(ssds.size());
  p_.queues_per_ssd = per_ssd;
  p_.lba_shift = static_cast<std::uint32_t>(std::countr_zero(lba_bytes));
  p_.lbas = min_lbas;
}

host_queue_set host_queue_table::ref() const {
  host_queue_set::params p = p_;
  p.queues = queues_.data();
  return host_queue_set(p);
}

host_cache_storage::host_cache_storage(const cache_config& cfg, const std::vector<host_ssd>& ssds,
                                       dma_allocator& slot_memory)
    : cfg_(cfg), own_table_(std::make_unique<host_queue_table>(ssds)) {
  init(own_table_->ref(), slot_memory);
}

host_cache_storage::host_cache_storage(const cache_config& cfg, const host_queue_set& queues,
                                       dma_allocator& slot_memory)
    : cfg_(cfg) {
  init(queues, slot_memory);
}

void host_cache_storage::init(const host_queue_set& queues, dma_allocator& slot_memory) {
  const cache_config& cfg = cfg_;
  queues_ = queues;
  BAM_EXPECTS(queues.ssds() >= 1 && queues.ssds() <= cache_max_ssds, "host cache: SSDs");
  if (queues.queues_per_ssd() == 0) throw std::invalid_argument("host cache: no queues");
  if (cfg.slots == 0 || cfg.slots > 0xffffffffull)
    throw std::invalid_argument("host cache: slots must be in [1, 2^32)");
  check_line_bytes(cfg.line_bytes, queues.lba_bytes());
  map_ = make_line_map(queues.ssds(), cfg.line_bytes, queues.lba_shift(), cfg.layout);
  capacity_ = map_.capacity(queues.lbas());

  slots_ = dma_buffer(slot_memory, cfg.slots * cfg.line_bytes);
  const std::size_t list_bytes = slot_list_bytes(cfg.slots, cfg.line_bytes);
  if (list_bytes != 0) lists_ = dma_buffer(slot_memory, list_bytes * slot_memory.devices());
  slot_tables t = build_slot_tables(cfg.slots, cfg.line_bytes, slot_memory, slots_.region(),
                                    lists_.region(), queues.ssds());
  if (!t.lists.empty()) std::memcpy(lists_.data(), t.lists.data(), t.lists.size());
  prps_ = std::move(t.prps);
  tables_ = t.tables;
}

host_cache_storage::ref_type host_cache_storage::ref() const {
  ref_type::params p;
  p.queues = queues_;
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
