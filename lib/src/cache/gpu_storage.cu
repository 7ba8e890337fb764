// GPU storage policy of the cache (bam/cache/gpu_storage.hpp): slots and PRP lists from the
// SSDs' DMA memory, the PRP table, metadata and counters in GPU memory.
#include <cuda_runtime.h>

#include <stdexcept>
#include <vector>

#include "bam/cache/gpu_storage.hpp"
#include "bam/cache/slot_prps.hpp"
#include "bam/detail/cuda.hpp"
#include "bam/detail/expects.hpp"

namespace bam {

gpu_slot_storage::gpu_slot_storage(const cache_config& cfg, std::uint32_t ssds,
                                   std::uint32_t lba_shift, std::uint64_t lbas,
                                   dma_allocator& slot_memory)
    : cfg_(cfg) {
  BAM_EXPECTS(ssds >= 1 && ssds <= cache_max_ssds, "gpu cache: SSDs");
  if (cfg.slots == 0 || cfg.slots > 0xffffffffull)
    throw std::invalid_argument("gpu cache: slots must be in [1, 2^32)");
  check_line_bytes(cfg.line_bytes, 1u << lba_shift);
  map_ = make_line_map(ssds, cfg.line_bytes, lba_shift, cfg.layout);
  capacity_ = map_.capacity(lbas);

  cudaStream_t s = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "gpu cache: stream");
  stream_ = s;
  slots_ = dma_buffer(slot_memory, cfg.slots * cfg.line_bytes);
  const std::size_t list_bytes = slot_list_bytes(cfg.slots, cfg.line_bytes);
  if (list_bytes != 0) lists_ = dma_buffer(slot_memory, list_bytes * slot_memory.devices());
  const slot_tables t = build_slot_tables(cfg.slots, cfg.line_bytes, slot_memory, slots_.region(),
                                          lists_.region(), ssds);
  if (!t.lists.empty())
    cuda_check(cudaMemcpy(lists_.data(), t.lists.data(), t.lists.size(), cudaMemcpyHostToDevice),
               "gpu cache: PRP lists");
  const std::size_t table_bytes = t.prps.size() * sizeof(nvme::prp_pair);
  cuda_check(cudaMalloc(&prps_, table_bytes), "gpu cache: PRP table");
  cuda_check(cudaMemcpy(prps_, t.prps.data(), table_bytes, cudaMemcpyHostToDevice),
             "gpu cache: PRP table");
  tables_ = t.tables;
  prp_bytes_ = lists_.size() + table_bytes;
  cuda_check(cudaMalloc(&errors_, sizeof(unsigned)), "gpu cache: flush errors");
}

gpu_slot_storage::~gpu_slot_storage() {
  cudaFree(errors_);
  cudaFree(prps_);
  if (stream_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void* gpu_slot_storage::allocate_zeroed(std::size_t bytes) const {
  void* p = nullptr;
  cuda_check(cudaMalloc(&p, bytes), "gpu cache: metadata");
  cuda_check(cudaMemset(p, 0, bytes), "gpu cache: metadata");
  return p;
}

void gpu_slot_storage::deallocate(void* p) const noexcept {
  cudaFree(p);
}

void gpu_slot_storage::read_counters(cache_counters& out, const cache_counters* in) const {
  auto s = static_cast<cudaStream_t>(stream_);
  cuda_check(cudaMemcpyAsync(&out, in, sizeof out, cudaMemcpyDeviceToHost, s),
             "gpu cache: counters");
  cuda_check(cudaStreamSynchronize(s), "gpu cache: counters");
}

void gpu_slot_storage::zero_counters(cache_counters* c) const {
  auto s = static_cast<cudaStream_t>(stream_);
  cuda_check(cudaMemsetAsync(c, 0, sizeof(cache_counters), s), "gpu cache: counters");
  cuda_check(cudaStreamSynchronize(s), "gpu cache: counters");
}

}  // namespace bam
