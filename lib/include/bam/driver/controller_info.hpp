// bam/driver/controller_info.hpp: API. What the controller driver learned at bring-up (CAP,
// Identify Controller / Namespace, Number of Queues) and the options it brings a controller up
// with.
#pragma once
#include <cstdint>
#include <string>

namespace bam {

struct driver_options {
  std::uint32_t admin_queue_entries = 32;  ///< capped by CAP.MQES and 4096
  std::uint32_t io_queue_pairs = 65535;    ///< asked for with Set Features / Number of Queues
  /// Doorbell writes of the admin queue: false = release store (an emulated controller reading
  /// its doorbells from memory), true = system fence + volatile store (a real BAR).
  bool mmio_doorbells = false;
  /// How long an admin command may go without its completion before the driver gives up on it
  /// (Host Timeout; the call throws, see controller_driver); 0: CAP.TO (at least 500 ms).
  std::uint32_t admin_timeout_ms = 0;
};

struct controller_info {
  // From CAP.
  std::uint32_t max_queue_entries = 0;  ///< CAP.MQES + 1
  bool contiguous_queues_required = false;
  std::uint32_t doorbell_stride = 0;  ///< CAP.DSTRD
  std::uint32_t timeout_ms = 0;       ///< CAP.TO in milliseconds
  std::uint32_t page_size = 4096;     ///< the memory page size CC.MPS was set to
  std::uint32_t version = 0;          ///< VS
  // From Identify Controller.
  std::uint16_t vid = 0;
  std::string model, serial, firmware;   ///< trailing spaces removed
  std::uint64_t max_transfer_bytes = 0;  ///< MDTS in bytes; 0 = no limit
  std::uint32_t namespaces = 0;          ///< NN
  std::uint16_t oncs = 0;
  bool volatile_write_cache = false;
  // From Identify Namespace 1.
  std::uint32_t nsid = 1;
  std::uint32_t lba_size = 0;        ///< bytes
  std::uint64_t namespace_lbas = 0;  ///< NSZE
  // From Set Features / Number of Queues.
  std::uint32_t io_queue_pairs = 0;  ///< min(allocated SQs, allocated CQs)
};

}  // namespace bam
