// bam/io/ssd_copy.hpp: API, putting a file's bytes onto an SSD at an LBA offset and reading them
// back (host mode: the calling thread drives one queue pair; emulated or real controllers).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "bam/dma.hpp"
#include "bam/queue/doorbell.hpp"
#include "bam/queue/queue_pair_ref.hpp"

namespace bam {

/// Where and how to copy. The copy runs in chunks of at most chunk_bytes (rounded down to a
/// multiple of the LBA size and capped by max_transfer_bytes), each one command.
struct ssd_copy_options {
  std::uint32_t nsid = 1;
  std::uint32_t lba_size = 512;               ///< bytes per LBA of the namespace
  std::uint64_t namespace_lbas = 0;           ///< size of the namespace; 0 = not checked
  std::uint64_t max_transfer_bytes = 0;       ///< controller's MDTS in bytes; 0 = no limit
  std::uint64_t chunk_bytes = 256 * 1024;     ///< at most 2 MiB (one PRP list page per command)
  std::uint64_t timeout_ns = 30'000'000'000;  ///< per command; then ssd_io_error (Host Timeout)
};

/// A command of a copy failed: the SSD completed it with an error status, or it timed out
/// (sc::host_timeout).
class ssd_io_error : public std::runtime_error {
 public:
  ssd_io_error(const std::string& what, nvme::status st) : std::runtime_error(what), status_(st) {}
  nvme::status status() const { return status_; }

 private:
  nvme::status status_;
};

/// What a copy did. A file whose size is not a multiple of the LBA size ends in a partial LBA:
/// write_file_to_ssd pads that LBA with zeros (padding_bytes of them are written after the
/// file's bytes); read_ssd_to_file writes only the requested bytes.
struct ssd_copy_result {
  std::uint64_t bytes = 0;          ///< file bytes copied
  std::uint64_t lbas = 0;           ///< LBAs written or read
  std::uint64_t padding_bytes = 0;  ///< zeros written after the data (write only)
  std::uint64_t commands = 0;
};

/// Writes the whole file at `path` to LBAs start_lba.. of `q`'s controller, buffers from
/// `alloc` (memory that controller can DMA from). Throws ssd_io_error naming a failed command's
/// status, std::runtime_error naming a file that cannot be read, and std::invalid_argument when
/// the data would not fit.
template <class Doorbell>
ssd_copy_result write_file_to_ssd(const queue_pair_ref<Doorbell>& q, dma_allocator& alloc,
                                  const std::string& path, std::uint64_t start_lba,
                                  const ssd_copy_options& opts = {});

/// Reads `bytes` bytes from LBAs start_lba.. into the file at `path` (created or truncated).
template <class Doorbell>
ssd_copy_result read_ssd_to_file(const queue_pair_ref<Doorbell>& q, dma_allocator& alloc,
                                 std::uint64_t start_lba, std::uint64_t bytes,
                                 const std::string& path, const ssd_copy_options& opts = {});

}  // namespace bam
