// The CPU-thread storage context (bam/storage/host_context.hpp).
#include "bam/storage/host_context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "bam/driver/controller_driver.hpp"
#include "bam/io/dma_chunk.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"
#include "bam/storage/checksum.hpp"
#include "bam/storage/host_controllers.hpp"
#include "bam/storage/kmod_controllers.hpp"
#include "bam/storage/stripes.hpp"

namespace bam {

/// The SSDs of a host context: host-emulated or bamkit.ko controllers, their I/O queue pairs
/// and the queue table the cache and the writers use.
struct host_context::controllers {
  virtual ~controllers() = default;
  virtual std::uint32_t size() = 0;
  virtual controller_driver& driver(std::uint32_t i) = 0;
  /// Memory every controller reaches (cache slots, write buffers).
  virtual dma_allocator& shared_memory() = 0;
  virtual backend_caps caps() const = 0;
  virtual void describe(const run_config& c, nlohmann::json& out) const = 0;

  void create_queues(const run_config& c) {
    std::vector<host_ssd> ssds;
    for (std::uint32_t d = 0; d < size(); ++d) {
      host_ssd s;
      s.lba_bytes = driver(d).info().lba_size;
      s.lbas = driver(d).info().namespace_lbas;
      pairs.emplace_back();
      for (std::uint32_t q = 0; q < c.queues.pairs_per_ssd; ++q) {
        pairs.back().push_back(driver(d).create_io_queue_pair(c.queues.depth));
        s.queues.push_back(pairs.back().back().queue().pointers());
      }
      ssds.push_back(std::move(s));
    }
    table = std::make_unique<host_queue_table>(ssds);
  }
  /// Queues first, then the controllers (the pairs free DMA memory the controllers own).
  void drop_queues() {
    table.reset();
    pairs.clear();
  }

  std::vector<std::vector<io_queue_pair>> pairs;  ///< [ssd][q]
  std::unique_ptr<host_queue_table> table;
};

namespace {

template <class C>
struct controllers_of final : host_context::controllers {
  explicit controllers_of(const run_config& c) : set(c) {}
  ~controllers_of() override { drop_queues(); }
  std::uint32_t size() override { return set.size(); }
  controller_driver& driver(std::uint32_t i) override { return set.driver(i); }
  dma_allocator& shared_memory() override { return set.shared_memory(); }
  backend_caps caps() const override { return set.caps(); }
  void describe(const run_config& c, nlohmann::json& out) const override {
    if constexpr (std::is_same_v<C, kmod_controllers>) set.describe(c, out);
  }
  C set;
};

std::unique_ptr<host_context::controllers> open_controllers(const run_config& c) {
  validate(c);
  std::unique_ptr<host_context::controllers> out;
  if (c.storage.backend == backend_kind::host) {
    out = std::make_unique<controllers_of<host_controllers>>(c);
  } else if (c.storage.backend == backend_kind::nvme) {
    out = std::make_unique<controllers_of<kmod_controllers>>(c);
  } else {
    throw config_error("storage.backend",
                       fmt::format("\"{}\" is not one a host_context drives (CPU threads over "
                                   "BaM queues), allowed host|nvme; GPU threads: gpu_context",
                                   to_string(c.storage.backend)));
  }
  validate_against(c, out->caps());
  out->create_queues(c);
  return out;
}

dataset dataset_of(host_context::controllers& ctrls, const layout_options& layout) {
  const host_queue_set q = ctrls.table->ref();
  return dataset(dataset_geometry{q.ssds(), q.lba_bytes()},
                 striped_capacity_bytes(q.lbas() << q.lba_shift(), q.ssds()), layout);
}

/// One NVMe write or read of `bytes` (a multiple of the LBA size) at byte `ssd_offset` of `ssd`,
/// through queue `q` of it, from or into `buf`; std::runtime_error naming what failed.
void block_transfer(const host_queue_set& set, std::uint32_t ssd, std::uint32_t q, bool write,
                    std::uint64_t ssd_offset, std::uint64_t bytes, const dma_chunk& buf) {
  const std::uint64_t lba = ssd_offset >> set.lba_shift();
  const auto nlb = static_cast<std::uint32_t>(bytes >> set.lba_shift());
  const nvme::prp_pair prp = buf.prps(bytes);
  const nvme::command cmd = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
  const nvme::completion c = set.queue(ssd, q).submit_and_wait(cmd);
  if (!c.status().ok()) {
    throw std::runtime_error(fmt::format("{} of {} LBAs at LBA {} of SSD {} failed: {}",
                                         write ? "write" : "read", nlb, lba, ssd,
                                         nvme::describe(c.status())));
  }
}

}  // namespace

host_context::host_context(const run_config& c, const layout_options& layout)
    : storage_context(c), ctrls_(open_controllers(c)) {
  data_.emplace(dataset_of(*ctrls_, layout));
}

host_context::~host_context() {
  try {
    close();
  } catch (const std::exception& e) {
    fmt::print(stderr, "host_context: close at destruction failed: {}\n", e.what());
  }
}

write_result host_context::write_region(std::string_view name, const void* data,
                                        std::uint64_t bytes) {
  if (cache_) throw std::logic_error("host_context: write_region after build_cache");
  if (!ctrls_) throw std::logic_error("host_context: write_region after close");
  const region& r = data_->regions().at(name);
  if (bytes > r.bytes) {
    throw std::invalid_argument(fmt::format(
        "write_region \"{}\": {} B of data for a region of {} B", r.name, bytes, r.bytes));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const host_queue_set set = ctrls_->table->ref();
  // Each piece is one stripe unit's share (at most 64 KiB), split further by the MDTS.
  std::vector<stripe_piece> pieces;
  const std::uint64_t mdts = ctrls_->caps().max_transfer_bytes;
  const std::uint64_t most = mdts != 0 ? std::min<std::uint64_t>(mdts, stripe_bytes) : stripe_bytes;
  for_each_stripe_piece(r.offset, bytes, set.ssds(), [&](stripe_piece p) {
    for (std::uint64_t at = 0; at < p.bytes; at += most) {
      stripe_piece q = p;
      q.ssd_offset += at;
      q.range_offset += at;
      q.bytes = std::min(most, p.bytes - at);
      pieces.push_back(q);
    }
  });
  const auto* src = static_cast<const std::uint8_t*>(data);
  const std::uint32_t lba = set.lba_bytes();
  const unsigned workers = static_cast<unsigned>(std::clamp<std::size_t>(
      std::min<std::size_t>(pieces.size(), std::thread::hardware_concurrency()), 1, 16));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::string error;
  std::mutex error_mu;
  // The buffers come from this thread: allocators of DMA memory need not be thread-safe.
  std::vector<dma_chunk> bufs;
  for (unsigned w = 0; w < workers; ++w)
    bufs.emplace_back(ctrls_->shared_memory(), stripe_bytes);
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      try {
        const dma_chunk& buf = bufs[w];
        for (std::size_t i; !failed && (i = next.fetch_add(1)) < pieces.size();) {
          const stripe_piece& p = pieces[i];
          const std::uint64_t padded = (p.bytes + lba - 1) / lba * lba;
          std::memcpy(buf.data(), src + p.range_offset, p.bytes);
          std::memset(buf.data() + p.bytes, 0, padded - p.bytes);
          block_transfer(set, p.ssd, w % set.queues_per_ssd(), true, p.ssd_offset, padded, buf);
        }
      } catch (const std::exception& e) {
        std::lock_guard lock(error_mu);
        if (error.empty()) error = e.what();
        failed = true;
      }
    });
  }
  for (std::thread& t : pool)
    t.join();
  if (failed) throw std::runtime_error(fmt::format("write_region \"{}\": {}", r.name, error));
  data_->table().mark_written(r.name, checksum64(data, bytes));
  write_result out;
  out.region = r.name;
  out.bytes = bytes;
  out.commands = pieces.size();
  out.route = "queues";
  if (data_->keeps_manifest()) {
    write_manifest();
    ++out.commands;
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  writes_.push_back(out);
  return out;
}

void host_context::write_manifest() {
  const std::vector<std::byte> m = data_->regions().encode(data_->geometry());
  const host_queue_set set = ctrls_->table->ref();
  const std::uint32_t lba = set.lba_bytes();
  const std::uint64_t padded = (m.size() + lba - 1) / lba * lba;
  dma_chunk buf(ctrls_->shared_memory(), manifest_bytes);
  std::memcpy(buf.data(), m.data(), m.size());
  std::memset(buf.data() + m.size(), 0, padded - m.size());
  block_transfer(set, 0, 0, true, 0, padded, buf);
}

bool host_context::load_manifest() {
  if (!data_->keeps_manifest())
    throw std::logic_error("host_context: load_manifest on a layout without a manifest");
  if (cache_) throw std::logic_error("host_context: load_manifest after build_cache");
  dma_chunk buf(ctrls_->shared_memory(), manifest_bytes);
  block_transfer(ctrls_->table->ref(), 0, 0, false, 0, manifest_bytes, buf);
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(buf.data()),
                                         manifest_bytes);
  if (!region_table::has_manifest(bytes)) return false;
  data_->adopt(region_table::decode(bytes, data_->geometry()));
  return true;
}

host_context::cache_type& host_context::build_cache(cache_config cc) {
  if (!ctrls_) throw std::logic_error("host_context: build_cache after close");
  if (cache_) {
    cache_->flush();
    cache_.reset();
  }
  cache_.emplace(lines_filled(cc), ctrls_->table->ref(), ctrls_->shared_memory());
  return *cache_;
}

bool host_context::flush() {
  return cache().flush();
}

backend_caps host_context::caps() const {
  if (!ctrls_) throw std::logic_error("host_context: caps after close");
  return ctrls_->caps();
}

nlohmann::json host_context::describe() const {
  nlohmann::json out = {{"backend", to_string(cfg_.storage.backend)},
                        {"threads", "CPU threads (host mode)"},
                        {"dataset", data_->to_json()}};
  nlohmann::json writes = nlohmann::json::array();
  for (const write_result& w : writes_)
    writes.push_back(w.to_json());
  out["writes"] = writes;
  if (ctrls_) ctrls_->describe(cfg_, out);
  out["real_hardware"] =
      cfg_.storage.backend == backend_kind::host
          ? "host-emulated controllers: media in host memory, commands served by emulator threads; "
            "data crosses no PCIe link"
          : "real NVMe controllers (bamkit.ko), host memory buffers";
  return out;
}

void host_context::close() {
  if (!ctrls_) return;
  bool ok = true;
  if (cache_) {
    ok = cache_->flush();
    cache_.reset();
  }
  ctrls_.reset();
  if (!ok) throw std::runtime_error("host_context: the cache's last write-back or flush failed");
}

}  // namespace bam
