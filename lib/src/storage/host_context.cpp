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
#include "bam/driver/queue_recovery.hpp"
#include "bam/io/dma_chunk.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"
#include "bam/queue/block_io.hpp"
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
    // Commands whose wait gives up, in the cache or the region writes: Abort, else the queue
    // is recreated (bam/driver/queue_recovery.hpp).
    recovery = std::make_unique<queue_recovery>(recovery_options{command_timeout_ns(c)});
    for (std::uint32_t d = 0; d < size(); ++d) {
      for (io_queue_pair& p : pairs[d])
        recovery->watch(driver(d), p);
    }
    recovery->start();
  }
  /// The watchdog, then the queues, then the controllers (the pairs free DMA memory the
  /// controllers own).
  void drop_queues() {
    if (recovery) recovery->stop();
    table.reset();
    pairs.clear();
  }

  std::vector<std::vector<io_queue_pair>> pairs;  ///< [ssd][q]
  std::unique_ptr<host_queue_table> table;
  std::unique_ptr<queue_recovery> recovery;  ///< watches `pairs`
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

/// Dataset bytes [offset, offset + bytes) as NVMe commands: the stripe-unit pieces, split at
/// `most` bytes (the SSDs' MDTS; a multiple of the LBA size).
std::vector<stripe_piece> command_pieces(std::uint64_t offset, std::uint64_t bytes,
                                         std::uint32_t ssds, std::uint64_t most) {
  std::vector<stripe_piece> out;
  for_each_stripe_piece(offset, bytes, ssds, [&](stripe_piece p) {
    for (std::uint64_t at = 0; at < p.bytes; at += most) {
      stripe_piece q = p;
      q.ssd_offset += at;
      q.range_offset += at;
      q.bytes = std::min(most, p.bytes - at);
      out.push_back(q);
    }
  });
  return out;
}

/// One NVMe write or read of piece `p` (padded to whole LBAs) from or into `buf`, through
/// queue `q` of its SSD, waiting up to `timeout_ns` (command_timeout_ns). std::runtime_error
/// naming what failed.
void piece_io(const host_queue_set& set, std::uint32_t q, bool write, const stripe_piece& p,
              const dma_chunk& buf, std::uint64_t timeout_ns) {
  const std::uint32_t lba = set.lba_bytes();
  const std::uint64_t padded = round_up(p.bytes, lba);
  const nvme::completion c =
      block_io(set, p.ssd, q, write, p.ssd_offset >> set.lba_shift(),
               static_cast<std::uint32_t>(padded >> set.lba_shift()), buf.prps(padded), timeout_ns);
  if (!c.status().ok()) {
    throw std::runtime_error(
        fmt::format("{} of {} B at LBA {} of SSD {} failed: {}", write ? "write" : "read", padded,
                    p.ssd_offset >> set.lba_shift(), p.ssd, nvme::describe(c.status())));
  }
}

/// Writes piece `p` of `src` (its bytes at src + range_offset; the last LBA padded with zeros).
void write_piece(const host_queue_set& set, std::uint32_t q, const stripe_piece& p,
                 const std::byte* src, const dma_chunk& buf, std::uint64_t timeout_ns) {
  const std::uint32_t lba = set.lba_bytes();
  std::memcpy(buf.data(), src + p.range_offset, p.bytes);
  std::memset(buf.data() + p.bytes, 0, round_up(p.bytes, lba) - p.bytes);
  piece_io(set, q, true, p, buf, timeout_ns);
}

/// Reads piece `p` into dst + range_offset.
void read_piece(const host_queue_set& set, std::uint32_t q, const stripe_piece& p, std::byte* dst,
                const dma_chunk& buf, std::uint64_t timeout_ns) {
  piece_io(set, q, false, p, buf, timeout_ns);
  std::memcpy(dst + p.range_offset, buf.data(), p.bytes);
}

/// An NVMe Flush of every SSD of the set (what the writes before it wrote is durable after).
void flush_ssds(const host_queue_set& set, std::uint64_t timeout_ns) {
  for (std::uint32_t d = 0; d < set.ssds(); ++d) {
    const nvme::completion c = set.queue(d, 0).submit_and_wait(nvme::flush(1), timeout_ns);
    if (!c.status().ok()) {
      throw std::runtime_error(
          fmt::format("flush of SSD {} failed: {}", d, nvme::describe(c.status())));
    }
  }
}

}  // namespace

host_context::host_context(const run_config& c, const layout_options& layout)
    : storage_context(c), ctrls_(open_controllers(c)) {
  data_.emplace(dataset::of(ctrls_->table->ref(), layout));
}

host_context::~host_context() {
  try {
    close();
  } catch (const std::exception& e) {
    fmt::print(stderr, "host_context: close at destruction failed: {}\n", e.what());
  }
}

void host_context::check_open(const char* what) const {
  if (!ctrls_) throw std::logic_error(fmt::format("host_context: {} after close", what));
}

/// The largest command of the SSDs (their MDTS, at most a stripe unit).
std::uint64_t host_context::command_bytes() const {
  const std::uint64_t mdts = ctrls_->caps().max_transfer_bytes;
  return mdts != 0 ? std::min<std::uint64_t>(mdts, stripe_bytes) : stripe_bytes;
}

write_result host_context::write_data(const region& r, const void* data, std::uint64_t bytes,
                                      write_route route) {
  if (route == write_route::media) {
    throw std::invalid_argument(fmt::format(
        "write_region \"{}\": route media: host_context writes through the SSDs' queues", r.name));
  }
  const host_queue_set set = ctrls_->table->ref();
  const std::uint64_t timeout = command_timeout_ns(config());
  const std::vector<stripe_piece> pieces =
      command_pieces(r.offset, bytes, set.ssds(), command_bytes());
  const auto* src = static_cast<const std::byte*>(data);
  const unsigned workers = static_cast<unsigned>(std::clamp<std::size_t>(
      std::min<std::size_t>(pieces.size(), std::thread::hardware_concurrency()), 1, 16));
  // The buffers come from this thread: allocators of DMA memory need not be thread-safe.
  std::vector<dma_chunk> bufs;
  for (unsigned w = 0; w < workers; ++w)
    bufs.emplace_back(ctrls_->shared_memory(), stripe_bytes);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::string error;
  std::mutex error_mu;
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      try {
        for (std::size_t i; !failed && (i = next.fetch_add(1)) < pieces.size();)
          write_piece(set, w % set.queues_per_ssd(), pieces[i], src, bufs[w], timeout);
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
  flush_ssds(set, timeout);
  write_result out;
  out.region = r.name;
  out.bytes = bytes;
  out.commands = pieces.size() + set.ssds();  // the writes and a Flush per SSD
  out.route = "queues";
  return out;
}

host_context::read_result host_context::read_region(std::string_view name, std::uint64_t offset,
                                                    void* dst, std::uint64_t bytes,
                                                    unsigned threads) {
  check_open("read_region");
  const region r = data_->regions().at(name);
  if (offset > r.bytes || bytes > r.bytes - offset) {
    std::string what = "read_region \"";
    what += r.name;
    what += "\": bytes [";
    what += std::to_string(offset);
    what += ", ";
    what += std::to_string(offset + bytes);
    what += ") past its ";
    what += std::to_string(r.bytes);
    what += " B";
    throw std::out_of_range(what);
  }
  const host_queue_set set = ctrls_->table->ref();
  const std::uint64_t timeout = command_timeout_ns(config());
  const std::vector<stripe_piece> pieces =
      command_pieces(r.offset + offset, bytes, set.ssds(), command_bytes());
  const unsigned most =
      threads != 0 ? threads : std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, 16);
  const unsigned workers = static_cast<unsigned>(
      std::clamp<std::size_t>(std::min<std::size_t>(pieces.size(), most), 1, most));
  std::vector<dma_chunk> bufs;  // from this thread (see write_data)
  for (unsigned w = 0; w < workers; ++w)
    bufs.emplace_back(ctrls_->shared_memory(), stripe_bytes);
  auto* out = static_cast<std::byte*>(dst);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::string error;
  std::mutex error_mu;
  auto work = [&](unsigned w) {
    try {
      for (std::size_t i; !failed && (i = next.fetch_add(1)) < pieces.size();)
        read_piece(set, w % set.queues_per_ssd(), pieces[i], out, bufs[w], timeout);
    } catch (const std::exception& e) {
      std::lock_guard lock(error_mu);
      if (error.empty()) error = e.what();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w)
    pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool)
    t.join();
  if (failed) throw std::runtime_error(fmt::format("read_region \"{}\": {}", r.name, error));
  read_result res;
  res.commands = pieces.size();
  for (const stripe_piece& p : pieces)
    res.bytes += round_up(p.bytes, set.lba_bytes());
  return res;
}

std::uint64_t host_context::store_manifest(const std::vector<std::byte>& m) {
  const host_queue_set set = ctrls_->table->ref();
  const std::vector<stripe_piece> pieces = command_pieces(0, m.size(), set.ssds(), command_bytes());
  const dma_chunk buf(ctrls_->shared_memory(), stripe_bytes);
  const std::uint64_t timeout = command_timeout_ns(config());
  for (const stripe_piece& p : pieces)
    write_piece(set, 0, p, m.data(), buf, timeout);
  flush_ssds(set, timeout);
  return pieces.size() + set.ssds();
}

std::vector<std::byte> host_context::fetch_manifest() {
  const host_queue_set set = ctrls_->table->ref();
  std::vector<std::byte> m(manifest_bytes);
  const dma_chunk buf(ctrls_->shared_memory(), stripe_bytes);
  for (const stripe_piece& p : command_pieces(0, manifest_bytes, set.ssds(), command_bytes()))
    read_piece(set, 0, p, m.data(), buf, command_timeout_ns(config()));
  return m;
}

host_context::cache_type& host_context::build_cache(cache_config cc) {
  check_open("build_cache");
  flush_before_replacing();
  cache_.reset();
  cache_.emplace(lines_filled(cc), ctrls_->table->ref(), ctrls_->shared_memory());
  return *cache_;
}

bool host_context::flush() {
  return cache().flush();
}

recovery_counts host_context::recovery() const {
  check_open("recovery");
  return ctrls_->recovery->counts();
}

backend_caps host_context::caps() const {
  check_open("caps");
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
          ? "host-emulated controllers: media in host memory, commands served by emulator threads "
            "at the pace of storage.model (its IOPS and bandwidth caps and latency, as the GPU "
            "engine books them); data crosses no PCIe link"
          : "real NVMe controllers (bamkit.ko), host memory buffers";
  return out;
}

void host_context::close() {
  if (!ctrls_) return;
  bool ok = true;
  std::string error;
  if (cache_) {
    try {
      ok = cache_->flush();
    } catch (const std::exception& e) {
      ok = false;
      error = e.what();
    }
    cache_.reset();  // before the controllers, whose memory its slots are, whatever happened
  }
  ctrls_.reset();
  if (!ok) {
    throw std::runtime_error("host_context: the cache's last write-back or flush failed" +
                             (error.empty() ? std::string() : ": " + error));
  }
}

}  // namespace bam
