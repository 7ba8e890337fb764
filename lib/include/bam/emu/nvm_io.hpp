// bam/emu/nvm_io.hpp: API. Decoding and checking of an NVM I/O command by an emulated
// controller, host and device: what to move where, or the status that refuses the command.
// The data movement itself is the executor's (host threads or GPU warps).
#pragma once
#include <cstdint>

#include "bam/config.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::emu {

/// The one namespace of an emulated drive.
struct namespace_geometry {
  std::uint32_t nsid = 1;
  std::uint32_t lba_shift = 9;  ///< log2 of the LBA size (9: 512 B, 12: 4 KiB)
  std::uint64_t lbas = 0;       ///< capacity in LBAs
};

/// Largest transfer an emulated drive accepts (MDTS): 2 MiB.
inline constexpr std::uint64_t max_transfer_bytes = 2u << 20;

/// A decoded I/O command.
struct io_request {
  nvme::status status = nvme::sc::success;  ///< not ok(): complete with it, move nothing
  bool write = false;                       ///< data flows host buffer -> media
  bool moves_data = false;                  ///< false for flush
  std::uint64_t media_offset = 0;           ///< byte offset of SLBA in the media
  std::uint64_t bytes = 0;                  ///< transfer length
};

/// Checks `c` against the namespace: opcode (read, write, flush), NSID, PSDT (PRPs only),
/// LBA range and transfer size.
BAM_HD constexpr io_request decode_io(const nvme::command& c, const namespace_geometry& ns) {
  io_request r;
  const auto op = static_cast<nvme::nvm_opcode>(c.opcode);
  if (op != nvme::nvm_opcode::read && op != nvme::nvm_opcode::write &&
      op != nvme::nvm_opcode::flush) {
    r.status = nvme::sc::invalid_opcode;
    return r;
  }
  if (op == nvme::nvm_opcode::flush) {  // NSID 0xffffffff: all namespaces
    if (c.nsid != ns.nsid && c.nsid != 0xffffffffu) r.status = nvme::sc::invalid_namespace;
    return r;
  }
  if (c.nsid != ns.nsid) {
    r.status = nvme::sc::invalid_namespace;
    return r;
  }
  if (c.psdt() != 0 || c.fuse() != 0) {
    r.status = nvme::sc::invalid_field;
    return r;
  }
  const std::uint64_t slba = c.slba();
  const std::uint64_t nlb = c.nlb();
  if (slba >= ns.lbas || nlb > ns.lbas - slba) {
    r.status = nvme::sc::lba_out_of_range;
    return r;
  }
  r.bytes = nlb << ns.lba_shift;
  if (r.bytes > max_transfer_bytes) {
    r.status = nvme::sc::invalid_field;
    r.bytes = 0;
    return r;
  }
  r.write = op == nvme::nvm_opcode::write;
  r.moves_data = true;
  r.media_offset = slba << ns.lba_shift;
  return r;
}

}  // namespace bam::emu
