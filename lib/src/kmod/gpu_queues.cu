// kmod_gpu_queues (bam/kmod/gpu_queues.hpp): I/O queue pairs of a real controller with rings
// and bookkeeping in GPU memory. Built, never run on hardware (no NVMe controller and GPU on one
// machine here). (No fmt here: nvcc does not take fmt's consteval format strings.)
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "bam/detail/cuda.hpp"
#include "bam/detail/expects.hpp"
#include "bam/kmod/gpu_queues.hpp"

namespace bam {
namespace {

constexpr std::size_t round128(std::size_t n) {
  return (n + 127) / 128 * 128;
}

}  // namespace

kmod_gpu_queues::kmod_gpu_queues(kmod_controller& ctrl, const kmod_gpu_queue_options& opts)
    : bar_(ctrl.device()), rings_(ctrl.device()) {
  const controller_info& info = ctrl.info();
  if (opts.pairs == 0 || opts.pairs > info.io_queue_pairs)
    throw std::invalid_argument("kmod_gpu_queues: " + std::to_string(opts.pairs) +
                                " queue pairs asked, the controller grants " +
                                std::to_string(info.io_queue_pairs));
  if (opts.entries < min_queue_entries || opts.entries > info.max_queue_entries)
    throw std::invalid_argument("kmod_gpu_queues: " + std::to_string(opts.entries) +
                                " entries outside [" + std::to_string(min_queue_entries) + ", " +
                                std::to_string(info.max_queue_entries) + "] (CAP.MQES + 1)");
  // command_timeout_ns(c), never 0 (queues.timeout_ms 0 is resolved to a value).
  BAM_EXPECTS(!opts.ordering_read || opts.ordering_timeout_ns > 0,
              "kmod_gpu_queues: ordering_timeout_ns with ordering_read");
  const bool own_ordering_pair = opts.ordering_read && opts.pairs < info.io_queue_pairs;
  const std::uint32_t ordering_entries =
      std::min(std::max(opts.ordering_entries, 2u), info.max_queue_entries);

  // Rings in GPU memory mapped for the controller; the driver tells the controller their bus
  // addresses. The admin queue stays in the host memory the driver was made with.
  controller_driver& drv = ctrl.driver();
  for (std::uint32_t i = 0; i < opts.pairs; ++i)
    pairs_.push_back(drv.create_io_queue_pair(opts.entries, rings_));
  if (own_ordering_pair) pairs_.push_back(drv.create_io_queue_pair(ordering_entries, rings_));
  if (opts.ordering_read) scratch_ = dma_buffer(rings_, info.lba_size);

  // Bookkeeping of every pair, the pointer array and the ordering state: one zeroed block.
  const auto n = static_cast<std::uint32_t>(pairs_.size());
  std::vector<std::size_t> offsets;
  std::size_t at = 0;
  for (const io_queue_pair& p : pairs_) {
    offsets.push_back(at);
    at += round128(queue_state_layout(p.entries(), p.entries()).bytes);
  }
  const std::size_t pointers_at = at;
  at += round128(n * sizeof(queue_pointers));
  const std::size_t ordering_at = at;
  at += sizeof(ordering_state);
  cuda_check(cudaMalloc(&state_block_, at), "cudaMalloc(queue bookkeeping)");
  try {
    cuda_check(cudaMemset(state_block_, 0, at), "cudaMemset(queue bookkeeping)");
    auto* base = static_cast<std::byte*>(state_block_);
    std::vector<queue_pointers> host(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const io_queue_pair& p = pairs_[i];
      queue_pointers& q = host[i];
      const queue_pointers& rings = p.queue().pointers();  // GPU addresses of the rings
      q.sq = rings.sq;
      q.cq = rings.cq;
      q.sq_entries = p.entries();
      q.cq_entries = p.entries();
      q.qid = p.qid();
      q.sq_doorbell = bar_.sq_doorbell(p.qid(), info.doorbell_stride);
      q.cq_doorbell = bar_.cq_doorbell(p.qid(), info.doorbell_stride);
      queue_state_layout(p.entries(), p.entries()).place(base + offsets[i], q);
    }
    auto* pointers = reinterpret_cast<queue_pointers*>(base + pointers_at);
    cuda_check(
        cudaMemcpy(pointers, host.data(), n * sizeof(queue_pointers), cudaMemcpyHostToDevice),
        "cudaMemcpy(queue pointers)");
    kmod_gpu_queue_set::params sp;
    sp.queues = pointers;
    sp.ssds = 1;
    sp.queues_per_ssd = opts.pairs;
    sp.lba_shift = static_cast<std::uint32_t>(std::countr_zero(info.lba_size));
    sp.lbas = info.namespace_lbas;
    set_ = kmod_gpu_queue_set(sp);
    if (opts.ordering_read) {
      ordering_state_ = reinterpret_cast<ordering_state*>(base + ordering_at);
      const queue_pointers& q = own_ordering_pair ? host[opts.pairs] : host[0];
      ordering_ = kmod_gpu_ordering(ordering_state_, kmod_gpu_queue(q), scratch_.bus_address(), 1,
                                    0, 1, opts.ordering_timeout_ns);
    }
  } catch (...) {
    cudaFree(state_block_);
    state_block_ = nullptr;
    throw;
  }
}

kmod_gpu_queues::~kmod_gpu_queues() {
  // The pairs (declared after the rings' allocator) are deleted on the controller before the
  // allocator unmaps and frees their rings; the bookkeeping goes first.
  cudaFree(state_block_);
}

ordering_state kmod_gpu_queues::ordering_snapshot() const {
  ordering_state st{};
  if (ordering_state_ != nullptr)
    cuda_check(cudaMemcpy(&st, ordering_state_, sizeof st, cudaMemcpyDeviceToHost),
               "cudaMemcpy(ordering state)");
  return st;
}

}  // namespace bam
