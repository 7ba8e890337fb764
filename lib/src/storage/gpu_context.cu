// The GPU-thread storage context (bam/storage/gpu_context.hpp). No fmt here: nvcc does not take
// fmt's consteval format strings.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bam/detail/cuda.hpp"
#include "bam/emu/gpu/drives_of_config.hpp"
#include "bam/emu/gpu/engine_report.hpp"
#include "bam/emu/gpu/real_hardware_notes.hpp"
#include "bam/nvme/prp.hpp"
#include "bam/queue/block_io.hpp"
#include "bam/storage/checksum.hpp"
#include "bam/storage/gpu_context.hpp"
#include "bam/storage/stripes.hpp"

namespace bam {
namespace {

/// One NVMe write of the queue route: `nlb` LBAs at `lba` of `ssd` from the staging buffer at
/// byte `from`.
struct piece_command {
  std::uint64_t lba;
  std::uint64_t from;
  std::uint32_t ssd;
  std::uint32_t nlb;
};

constexpr std::uint64_t page = 4096;
/// Staging buffer of the queue route: written a chunk at a time.
constexpr std::uint64_t staging_bytes = std::uint64_t{64} << 20;
constexpr std::uint64_t staging_pieces = staging_bytes / stripe_bytes + 1;

/// Thread i writes piece i (a stripe unit's share at most: 16 pages, one PRP list page), over the
/// context's queue set (its protocol).
template <class QueueSet>
__global__ void write_pieces_kernel(QueueSet set, const piece_command* cmds, std::uint32_t n,
                                    const std::byte* staging, std::uint64_t* lists,
                                    unsigned long long* failed, std::uint64_t timeout_ns) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const piece_command c = cmds[i];
  const auto base = reinterpret_cast<std::uintptr_t>(staging + c.from);
  std::uint64_t* list = lists + std::uint64_t{i} * (page / 8);
  nvme::prp_pair prp{};
  nvme::build_prps(
      std::uint64_t{c.nlb} << set.lba_shift(), 12,
      [&](std::uint64_t off) { return std::uint64_t{base} + off; },
      [&](std::uint32_t) {
        return nvme::prp_list_page{list, reinterpret_cast<std::uintptr_t>(list)};
      },
      prp);
  const nvme::completion done =
      block_io(set, c.ssd, i % set.queues_per_ssd(), true, c.lba, c.nlb, prp, timeout_ns);
  if (!done.status().ok()) atomicAdd(failed, 1ull);
}

emu::gpu::emulated_drives* open_drives(const run_config& c, storage_protocol p) {
  validate(c);
  if (c.storage.backend != backend_kind::emulated) {
    throw config_error("storage.backend",
                       std::string("\"") + to_string(c.storage.backend) +
                           "\" is not one a gpu_context drives, allowed emulated (GPU threads "
                           "over real controllers need kmod_gpu_queues, built but untested; CPU "
                           "threads over host or nvme: host_context)");
  }
  if (c.storage.protocol != p) {
    throw config_error(
        "storage.protocol",
        std::string("\"") + to_string(c.storage.protocol) +
            "\" for a context of "
            "protocol " +
            to_string(p) + " (the protocol is the context's type: " +
            (p == storage_protocol::hardware ? "bam::emulator_gpu_context" : "bam::gpu_context") +
            " speaks it)");
  }
  std::string why;
  if (!cuda_device_usable(why)) {
    throw config_error("storage.backend",
                       "\"emulated\" needs a CUDA GPU and none is usable (" + why + ")");
  }
  try {
    return new emu::gpu::emulated_drives(emu::gpu::drives_config_of(c));
  } catch (const std::invalid_argument& e) {
    throw config_error("storage", e.what());
  }
}

}  // namespace

/// Device memory of the queue route (allocated with the engine stopped).
template <storage_protocol P>
struct basic_gpu_context<P>::staging {
  dma_buffer data;   ///< from the drives' DMA memory
  dma_buffer lists;  ///< one PRP list page per piece
  piece_command* cmds = nullptr;
  unsigned long long* failed = nullptr;
  staging(dma_allocator& mem) : data(mem, staging_bytes), lists(mem, staging_pieces * page) {
    cuda_check(cudaMalloc(&cmds, staging_pieces * sizeof(piece_command)), "gpu_context: staging");
    cuda_check(cudaMalloc(&failed, sizeof(unsigned long long)), "gpu_context: staging");
  }
  ~staging() {
    cudaFree(cmds);
    cudaFree(failed);
  }
};

template <storage_protocol P>
basic_gpu_context<P>::basic_gpu_context(const run_config& c, const layout_options& layout)
    : base(c), drives_(open_drives(c, P)) {
  this->data_.emplace(dataset::of(drives_->ref(), layout));
  cuda_check(preload_kernel(write_pieces_kernel<queue_set_type>), "gpu_context: preload");
  cudaStream_t s = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "gpu_context: stream");
  stream_ = s;
}

template <storage_protocol P>
basic_gpu_context<P>::~basic_gpu_context() {
  try {
    close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_context: close at destruction failed: %s\n", e.what());
  }
  if (stream_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

template <storage_protocol P>
void basic_gpu_context<P>::check_open(const char* what) const {
  if (closed_) throw std::logic_error(std::string("gpu_context: ") + what + " after close");
}

template <storage_protocol P>
write_result basic_gpu_context<P>::write_data(const region& r, const void* data,
                                              std::uint64_t bytes, write_route route) {
  if (drives_->running()) throw std::logic_error("gpu_context: write_region while the engine runs");
  if (!emu::gpu::timing_of(this->cfg_.storage.model).moves_data) {
    throw config_error("storage.model",
                       "a model that moves no data (\"null\") cannot hold a region's contents "
                       "(reads would return zeros), allowed any other model");
  }
  return route == write_route::queues ? write_through_queues(r, data, bytes)
                                      : write_to_media(r, data, bytes);
}

template <storage_protocol P>
write_result basic_gpu_context<P>::write_to_media(const region& r, const void* data,
                                                  std::uint64_t bytes) {
  const auto* src = static_cast<const std::byte*>(data);
  const auto s = static_cast<cudaStream_t>(stream_);
  for_each_stripe_piece(r.offset, bytes, this->data_->geometry().ssds, [&](const stripe_piece& p) {
    if (std::byte* host = drives_->host_media(p.ssd)) {
      std::memcpy(host + p.ssd_offset, src + p.range_offset, p.bytes);
    } else {
      cuda_check(cudaMemcpyAsync(drives_->media(p.ssd) + p.ssd_offset, src + p.range_offset,
                                 p.bytes, cudaMemcpyHostToDevice, s),
                 "gpu_context: write to media");
    }
  });
  cuda_check(cudaStreamSynchronize(s), "gpu_context: write to media");
  write_result out;
  out.region = r.name;
  out.bytes = bytes;
  out.route = "media";
  return out;
}

template <storage_protocol P>
write_result basic_gpu_context<P>::write_through_queues(const region& r, const void* data,
                                                        std::uint64_t bytes) {
  const auto s = static_cast<cudaStream_t>(stream_);
  const dataset& set = *this->data_;
  const std::uint32_t lba = set.geometry().lba_bytes;
  staging st(drives_->dma_memory());
  write_result out;
  out.region = r.name;
  out.bytes = bytes;
  out.route = "queues";
  drives_->start();
  try {
    const auto* src = static_cast<const std::byte*>(data);
    // A chunk at a time: the stripe pieces of region bytes [done, done + staging_bytes).
    for (std::uint64_t done = 0; done < bytes;) {
      const std::uint64_t n = std::min(staging_bytes - stripe_bytes, bytes - done);
      std::vector<piece_command> cmds;
      std::uint64_t staged = 0;
      for_each_stripe_piece(r.offset + done, n, set.geometry().ssds, [&](const stripe_piece& p) {
        const std::uint64_t padded = round_up(p.bytes, lba);
        cmds.push_back(
            {p.ssd_offset / lba, staged, p.ssd, static_cast<std::uint32_t>(padded / lba)});
        staged += stripe_bytes;  // every piece at its own stripe-unit slot: page aligned
      });
      std::vector<std::byte> pieces(staged);
      std::uint64_t at = 0;
      for_each_stripe_piece(r.offset + done, n, set.geometry().ssds, [&](const stripe_piece& p) {
        std::memcpy(pieces.data() + at, src + done + p.range_offset, p.bytes);
        at += stripe_bytes;
      });
      cuda_check(cudaMemcpyAsync(st.data.data(), pieces.data(), staged, cudaMemcpyHostToDevice, s),
                 "gpu_context: staging");
      cuda_check(cudaMemcpyAsync(st.cmds, cmds.data(), cmds.size() * sizeof(piece_command),
                                 cudaMemcpyHostToDevice, s),
                 "gpu_context: staging");
      cuda_check(cudaMemsetAsync(st.failed, 0, sizeof(unsigned long long), s),
                 "gpu_context: staging");
      const auto count = static_cast<std::uint32_t>(cmds.size());
      write_pieces_kernel<queue_set_type><<<(count + 127) / 128, 128, 0, s>>>(
          drives_->template ref_for<P>(), st.cmds, count, st.data.template as<std::byte>(),
          st.lists.template as<std::uint64_t>(), st.failed, command_timeout_ns(this->config()));
      cuda_check(cudaGetLastError(), "gpu_context: write kernel");
      unsigned long long failed = 0;
      cuda_check(cudaMemcpyAsync(&failed, st.failed, sizeof failed, cudaMemcpyDeviceToHost, s),
                 "gpu_context: write kernel");
      cuda_check(cudaStreamSynchronize(s), "gpu_context: write kernel");
      if (failed != 0) {
        throw std::runtime_error("write_region \"" + r.name + "\": " + std::to_string(failed) +
                                 " of " + std::to_string(count) + " NVMe writes failed");
      }
      out.commands += count;
      done += n;
    }
  } catch (...) {
    drives_->stop();
    throw;
  }
  drives_->stop();
  return out;
}

template <storage_protocol P>
std::uint64_t basic_gpu_context<P>::store_manifest(const std::vector<std::byte>& m) {
  if (std::byte* host = drives_->host_media(0)) {
    std::memcpy(host, m.data(), m.size());
    return 0;
  }
  const auto s = static_cast<cudaStream_t>(stream_);
  cuda_check(cudaMemcpyAsync(drives_->media(0), m.data(), m.size(), cudaMemcpyHostToDevice, s),
             "gpu_context: manifest");
  cuda_check(cudaStreamSynchronize(s), "gpu_context: manifest");
  return 0;
}

template <storage_protocol P>
std::vector<std::byte> basic_gpu_context<P>::fetch_manifest() {
  std::vector<std::byte> m(manifest_bytes);
  if (const std::byte* host = drives_->host_media(0)) {
    std::memcpy(m.data(), host, m.size());
    return m;
  }
  const auto s = static_cast<cudaStream_t>(stream_);
  cuda_check(cudaMemcpyAsync(m.data(), drives_->media(0), m.size(), cudaMemcpyDeviceToHost, s),
             "gpu_context: manifest");
  cuda_check(cudaStreamSynchronize(s), "gpu_context: manifest");
  return m;
}

template <storage_protocol P>
typename basic_gpu_context<P>::cache_type& basic_gpu_context<P>::build_cache(cache_config cc) {
  check_open("build_cache");
  this->flush_before_replacing();
  // cudaFree of the old cache and cudaMalloc of the new one wait for the whole device: never
  // while the engine runs.
  stop();
  this->cache_.reset();
  try {
    this->cache_.emplace(this->lines_filled(cc), drives_->template ref_for<P>(),
                         drives_->dma_memory());
  } catch (const std::invalid_argument& e) {
    throw config_error("cache.capacity", e.what());
  }
  cache_type::preload();
  return *this->cache_;
}

template <storage_protocol P>
void basic_gpu_context<P>::start() {
  check_open("start");
  if (!drives_->running()) drives_->start();
}

template <storage_protocol P>
void basic_gpu_context<P>::stop() {
  if (drives_->running()) drives_->stop();
}

template <storage_protocol P>
bool basic_gpu_context<P>::flush() {
  cache_type& c = this->cache();  // throws when there is none, before the engine starts
  const bool was_running = drives_->running();
  start();
  const bool ok = c.flush();
  if (!was_running) stop();
  return ok;
}

template <storage_protocol P>
nlohmann::json basic_gpu_context<P>::describe() const {
  nlohmann::json writes = nlohmann::json::array();
  for (const write_result& w : this->writes_)
    writes.push_back(w.to_json());
  const bool pinned = this->cfg_.storage.media.kind == media_kind::host;
  std::uint64_t ordering = 0;
  for (const emu::gpu::drive_stats& s : drives_->stats())
    ordering += s.ordering_reads;
  nlohmann::json out = {
      {"backend", "emulated"},
      {"threads", "GPU threads"},
      {"protocol", to_string(P)},
      {"ordering_reads", ordering},
      {"dataset", this->data_->to_json()},
      {"writes", writes},
      {"real_hardware",
       "GPU-emulated SSDs: the controller is a persistent kernel on this GPU, paced by the "
       "timing model storage.model; " +
           emu::gpu::emulated_media_note(pinned) +
           "; writes by route \"media\" went straight into the media (no NVMe command); " +
           emu::gpu::protocol_note(P)}};
  out.update(emu::gpu::engine_report(*drives_));
  return out;
}

template <storage_protocol P>
void basic_gpu_context<P>::close() {
  if (closed_) return;
  bool ok = true;
  std::string error;
  if (this->cache_) {
    try {
      ok = flush();
    } catch (const std::exception& e) {
      ok = false;
      error = e.what();
    }
  }
  // The engine stops and the cache goes before the drives, whose memory its slots are, whatever
  // the write-back did.
  stop();
  this->cache_.reset();
  closed_ = true;
  if (!ok) {
    throw std::runtime_error("gpu_context: the cache's last write-back or flush failed" +
                             (error.empty() ? std::string() : ": " + error));
  }
}

template class basic_gpu_context<storage_protocol::hardware>;
template class basic_gpu_context<storage_protocol::emulator>;

}  // namespace bam
