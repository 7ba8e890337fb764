// GPU storage policy of the cache (bam/cache/gpu_storage.hpp): GPU memory for slots, PRP lists
// and metadata; bus addresses are GPU virtual addresses (what emu::gpu::emulated_drives reads).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bam/cache/gpu_storage.hpp"
#include "bam/cache/slot_prps.hpp"

namespace bam {
namespace {

constexpr std::size_t page = 4096;

std::byte* align_page(std::byte* p) {
  const auto v = reinterpret_cast<std::uintptr_t>(p);
  return reinterpret_cast<std::byte*>((v + page - 1) / page * page);
}

}  // namespace

gpu_cache_storage::gpu_cache_storage(const cache_config& cfg, const emu::gpu::drives_view& drives)
    : cfg_(cfg), drives_(drives) {
  if (drives.drives == 0 || drives.drives > cache_max_ssds)
    throw std::invalid_argument("gpu cache: 1 to 32 drives");
  if (cfg.slots == 0 || cfg.slots > 0xffffffffull)
    throw std::invalid_argument("gpu cache: slots must be in [1, 2^32)");
  const std::uint32_t lba_bytes = 1u << drives.lba_shift;
  check_line_bytes(cfg.line_bytes, lba_bytes);
  map_ = line_map{drives.drives, cfg.line_bytes / lba_bytes, cfg.layout};
  capacity_ = map_.capacity(drives.lbas);

  cudaStream_t s = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "gpu cache: stream");
  stream_ = s;
  slot_bytes_ = cfg.slots * cfg.line_bytes;
  cuda_check(cudaMalloc(&slots_alloc_, slot_bytes_ + page), "gpu cache: slots");
  cuda_check(cudaMemset(slots_alloc_, 0, slot_bytes_ + page), "gpu cache: slots");
  slots_ = align_page(slots_alloc_);

  const std::uint32_t per_slot = slot_list_pages(cfg.line_bytes);
  const std::size_t list_bytes = cfg.slots * per_slot * page;
  std::vector<std::byte> lists_host(list_bytes);
  std::byte* lists = nullptr;
  if (per_slot != 0) {
    cuda_check(cudaMalloc(&lists_alloc_, list_bytes + page), "gpu cache: PRP lists");
    lists = align_page(lists_alloc_);
  }
  const std::vector<nvme::prp_pair> prps = build_slot_prps(
      cfg.slots, cfg.line_bytes,
      [&](std::uint64_t slot, std::uint64_t off) {
        return static_cast<std::uint64_t>(
            reinterpret_cast<std::uintptr_t>(slots_ + slot * cfg.line_bytes + off));
      },
      lists_host.data(), static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(lists)));
  if (per_slot != 0)
    cuda_check(cudaMemcpy(lists, lists_host.data(), list_bytes, cudaMemcpyHostToDevice),
               "gpu cache: PRP lists");
  cuda_check(cudaMalloc(&prps_, prps.size() * sizeof(nvme::prp_pair)), "gpu cache: PRP table");
  cuda_check(
      cudaMemcpy(prps_, prps.data(), prps.size() * sizeof(nvme::prp_pair), cudaMemcpyHostToDevice),
      "gpu cache: PRP table");
  prp_bytes_ = list_bytes + prps.size() * sizeof(nvme::prp_pair);
  cuda_check(cudaMalloc(&errors_, sizeof(unsigned)), "gpu cache: flush errors");
}

gpu_cache_storage::~gpu_cache_storage() {
  cudaFree(errors_);
  cudaFree(prps_);
  cudaFree(lists_alloc_);
  cudaFree(slots_alloc_);
  if (stream_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

gpu_cache_storage::ref_type gpu_cache_storage::ref() const {
  ref_type::params p;
  p.queues = drives_.queues;
  p.queues_per_ssd = drives_.queues_per_drive;
  p.map = map_;
  p.slots = slots_;
  p.line_bytes = cfg_.line_bytes;
  p.prps = prps_;
  p.timeout_ns = cfg_.io_timeout_ns;
  return ref_type(p);
}

void* gpu_cache_storage::allocate_zeroed(std::size_t bytes) const {
  void* p = nullptr;
  cuda_check(cudaMalloc(&p, bytes), "gpu cache: metadata");
  cuda_check(cudaMemset(p, 0, bytes), "gpu cache: metadata");
  return p;
}

void gpu_cache_storage::deallocate(void* p) const noexcept {
  cudaFree(p);
}

void gpu_cache_storage::read_counters(cache_counters& out, const cache_counters* in) const {
  auto s = static_cast<cudaStream_t>(stream_);
  cuda_check(cudaMemcpyAsync(&out, in, sizeof out, cudaMemcpyDeviceToHost, s),
             "gpu cache: counters");
  cuda_check(cudaStreamSynchronize(s), "gpu cache: counters");
}

void gpu_cache_storage::zero_counters(cache_counters* c) const {
  auto s = static_cast<cudaStream_t>(stream_);
  cuda_check(cudaMemsetAsync(c, 0, sizeof(cache_counters), s), "gpu cache: counters");
  cuda_check(cudaStreamSynchronize(s), "gpu cache: counters");
}

}  // namespace bam
