// File <-> SSD copies through one queue pair (bam/io/ssd_copy.hpp).
#include "bam/io/ssd_copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "bam/io/dma_chunk.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"

namespace bam {
namespace {

constexpr std::uint64_t max_chunk = dma_chunk::max_bytes;

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

file_ptr open_file(const std::string& path, const char* mode) {
  file_ptr f(std::fopen(path.c_str(), mode));
  if (!f) throw std::runtime_error(fmt::format("open {}: {}", path, std::strerror(errno)));
  return f;
}

std::uint64_t chunk_size(const ssd_copy_options& o) {
  if (o.lba_size == 0 || o.lba_size % 4 != 0 || (o.lba_size & (o.lba_size - 1)) != 0) {
    throw std::invalid_argument(fmt::format("LBA size {} is not a power of two", o.lba_size));
  }
  std::uint64_t c = std::min(o.chunk_bytes, max_chunk);
  if (o.max_transfer_bytes != 0) c = std::min(c, o.max_transfer_bytes);
  c = c / o.lba_size * o.lba_size;
  if (c == 0) throw std::invalid_argument("chunk smaller than one LBA");
  return c;
}

void check_range(const ssd_copy_options& o, std::uint64_t start_lba, std::uint64_t lbas) {
  if (o.namespace_lbas != 0 &&
      (start_lba > o.namespace_lbas || lbas > o.namespace_lbas - start_lba)) {
    throw std::invalid_argument(fmt::format("LBAs {}..{} are beyond the namespace's {} LBAs",
                                            start_lba, start_lba + lbas, o.namespace_lbas));
  }
}

template <class Doorbell>
void run_io(const queue_pair_ref<Doorbell>& q, nvme::command cmd, const char* what,
            std::uint64_t slba, std::uint64_t timeout_ns) {
  const nvme::completion c = q.submit_and_wait(cmd, timeout_ns);
  if (!c.status().ok()) {
    throw ssd_io_error(
        fmt::format("{} at LBA {} failed: {}", what, slba, nvme::describe(c.status())), c.status());
  }
}

}  // namespace

template <class Doorbell>
ssd_copy_result write_file_to_ssd(const queue_pair_ref<Doorbell>& q, dma_allocator& alloc,
                                  const std::string& path, std::uint64_t start_lba,
                                  const ssd_copy_options& opts) {
  const std::uint64_t chunk = chunk_size(opts);
  file_ptr f = open_file(path, "rb");
  if (std::fseek(f.get(), 0, SEEK_END) != 0) throw std::runtime_error("seek " + path);
  const long size = std::ftell(f.get());
  if (size < 0) throw std::runtime_error("size of " + path);
  std::rewind(f.get());
  const auto total = static_cast<std::uint64_t>(size);
  const std::uint64_t lbas = (total + opts.lba_size - 1) / opts.lba_size;
  check_range(opts, start_lba, lbas);

  dma_chunk buf(alloc, chunk);
  ssd_copy_result r;
  std::uint64_t done = 0;
  while (done < total) {
    const std::uint64_t n = std::min(chunk, total - done);
    if (std::fread(buf.data(), 1, n, f.get()) != n) {
      throw std::runtime_error(fmt::format("read {}: short read at byte {}", path, done));
    }
    const std::uint64_t padded = (n + opts.lba_size - 1) / opts.lba_size * opts.lba_size;
    std::memset(buf.data() + n, 0, padded - n);
    const std::uint64_t slba = start_lba + done / opts.lba_size;
    const auto nlb = static_cast<std::uint32_t>(padded / opts.lba_size);
    run_io(q, nvme::write(opts.nsid, slba, nlb, buf.prps(padded)), "write", slba, opts.timeout_ns);
    r.padding_bytes += padded - n;
    r.lbas += nlb;
    ++r.commands;
    done += n;
  }
  r.bytes = total;
  return r;
}

template <class Doorbell>
ssd_copy_result read_ssd_to_file(const queue_pair_ref<Doorbell>& q, dma_allocator& alloc,
                                 std::uint64_t start_lba, std::uint64_t bytes,
                                 const std::string& path, const ssd_copy_options& opts) {
  const std::uint64_t chunk = chunk_size(opts);
  const std::uint64_t lbas = (bytes + opts.lba_size - 1) / opts.lba_size;
  check_range(opts, start_lba, lbas);
  file_ptr f = open_file(path, "wb");
  dma_chunk buf(alloc, chunk);
  ssd_copy_result r;
  std::uint64_t done = 0;
  while (done < bytes) {
    const std::uint64_t n = std::min(chunk, bytes - done);
    const std::uint64_t padded = (n + opts.lba_size - 1) / opts.lba_size * opts.lba_size;
    const std::uint64_t slba = start_lba + done / opts.lba_size;
    const auto nlb = static_cast<std::uint32_t>(padded / opts.lba_size);
    run_io(q, nvme::read(opts.nsid, slba, nlb, buf.prps(padded)), "read", slba, opts.timeout_ns);
    if (std::fwrite(buf.data(), 1, n, f.get()) != n) {
      throw std::runtime_error(fmt::format("write {}: {}", path, std::strerror(errno)));
    }
    r.lbas += nlb;
    ++r.commands;
    done += n;
  }
  if (std::fflush(f.get()) != 0) {
    throw std::runtime_error(fmt::format("write {}: {}", path, std::strerror(errno)));
  }
  r.bytes = bytes;
  return r;
}

template ssd_copy_result write_file_to_ssd(const queue_pair_ref<memory_doorbell>&, dma_allocator&,
                                           const std::string&, std::uint64_t,
                                           const ssd_copy_options&);
template ssd_copy_result write_file_to_ssd(const queue_pair_ref<mmio_doorbell>&, dma_allocator&,
                                           const std::string&, std::uint64_t,
                                           const ssd_copy_options&);
template ssd_copy_result read_ssd_to_file(const queue_pair_ref<memory_doorbell>&, dma_allocator&,
                                          std::uint64_t, std::uint64_t, const std::string&,
                                          const ssd_copy_options&);
template ssd_copy_result read_ssd_to_file(const queue_pair_ref<mmio_doorbell>&, dma_allocator&,
                                          std::uint64_t, std::uint64_t, const std::string&,
                                          const ssd_copy_options&);

}  // namespace bam
