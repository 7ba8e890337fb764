// bam/emu/nvm_processor.hpp: API. Validation and execution of NVM command set I/O commands (Read,
// Write, Flush, Write Zeroes, Dataset Management) for emulated controllers, written once for the
// host engine and a GPU engine. Templated on a media view and a DMA policy
// (bam/emu/dma_transfer.hpp):
//   Media: BAM_HD std::uint8_t* data() const;  // logical block 0, nsze blocks follow
//          void flush();                       // makes written data durable (BAM_HD for GPU)
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/emu/dma_transfer.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::emu {

/// What the processor needs to know about the namespace and the controller configuration.
struct nvm_config {
  std::uint64_t nsze = 0;                ///< namespace size in logical blocks
  std::uint32_t lba_log2 = 9;            ///< logical block size, log2 of bytes
  std::uint32_t mps_log2 = 12;           ///< CC.MPS, log2 of bytes
  std::uint64_t max_transfer_bytes = 0;  ///< MDTS in bytes; 0 = no limit
};

/// The namespace this processor serves.
inline constexpr std::uint32_t emulated_nsid = 1;

namespace detail {
/// sc::success when [slba, slba+nlb) lies inside the namespace.
BAM_HD constexpr nvme::status check_range(const nvm_config& cfg, std::uint64_t slba,
                                          std::uint64_t nlb) {
  if (slba >= cfg.nsze || nlb > cfg.nsze - slba) return nvme::sc::lba_out_of_range;
  return nvme::sc::success;
}

/// Streams the Dataset Management ranges of `cmd` to fn(const dsm_range&), without a buffer of
/// all ranges (GPU friendly): pieces are gathered into one 16-byte range at a time.
template <class Dma, class Fn>
BAM_HD nvme::status for_each_dsm_range(const nvme::command& cmd, const nvm_config& cfg,
                                       const Dma& dma, Fn&& fn) {
  const std::uint64_t ranges = (cmd.cdw10 & 0xffu) + 1;
  nvme::dsm_range cur{};
  auto* cur_bytes = reinterpret_cast<std::uint8_t*>(&cur);
  std::uint64_t filled = 0;
  return for_each_dma_piece(dma, cmd.prp1, cmd.prp2, ranges * sizeof(nvme::dsm_range), cfg.mps_log2,
                            [&](std::uint8_t* host, std::uint64_t len, std::uint64_t) {
                              while (len > 0) {
                                std::uint64_t n = sizeof(nvme::dsm_range) - filled;
                                if (n > len) n = len;
                                dma.copy(cur_bytes + filled, host, n);
                                filled += n;
                                host += n;
                                len -= n;
                                if (filled == sizeof(nvme::dsm_range)) {
                                  fn(cur);
                                  filled = 0;
                                }
                              }
                            });
}
}  // namespace detail

/// Validates and executes one NVM I/O command against `media`, moving data through `dma`.
/// Returns the completion status (the result DW0 of these commands is 0):
/// sc::invalid_opcode, sc::invalid_field (fused, SGL, transfer > MDTS), sc::invalid_namespace,
/// sc::lba_out_of_range, sc::prp_offset_invalid, sc::data_transfer_error.
template <class Media, class Dma>
BAM_HD nvme::status process_nvm(const nvme::command& cmd, const nvm_config& cfg, Media& media,
                                const Dma& dma) {
  using nvme::nvm_opcode;
  namespace sc = nvme::sc;
  const auto op = static_cast<nvm_opcode>(cmd.opcode);
  switch (op) {
    case nvm_opcode::read:
    case nvm_opcode::write:
    case nvm_opcode::write_zeroes:
    case nvm_opcode::dataset_management:
    case nvm_opcode::flush:
      break;
    default:
      return sc::invalid_opcode;
  }
  if (cmd.fuse() != 0 || cmd.psdt() != 0) return sc::invalid_field;

  if (op == nvm_opcode::flush) {
    if (cmd.nsid != emulated_nsid && cmd.nsid != 0xffffffffu) return sc::invalid_namespace;
    media.flush();
    return sc::success;
  }
  if (cmd.nsid != emulated_nsid) return sc::invalid_namespace;

  if (op == nvm_opcode::dataset_management) {
    const bool deallocate = (cmd.cdw11 >> 2) & 1u;
    nvme::status range_status = sc::success;
    nvme::status st = detail::for_each_dsm_range(cmd, cfg, dma, [&](const nvme::dsm_range& r) {
      if (range_status.ok()) range_status = detail::check_range(cfg, r.slba, r.nlb);
    });
    if (!st.ok()) return st;
    if (!range_status.ok()) return range_status;
    if (!deallocate) return sc::success;  // attributes only: a hint
    // Deallocated blocks read back as zeroes.
    return detail::for_each_dsm_range(cmd, cfg, dma, [&](const nvme::dsm_range& r) {
      dma.zero(media.data() + (r.slba << cfg.lba_log2), std::uint64_t{r.nlb} << cfg.lba_log2);
    });
  }

  const std::uint64_t slba = cmd.slba();
  const std::uint64_t nlb = cmd.nlb();
  const nvme::status range = detail::check_range(cfg, slba, nlb);
  if (!range.ok()) return range;
  std::uint8_t* blocks = media.data() + (slba << cfg.lba_log2);
  const std::uint64_t bytes = nlb << cfg.lba_log2;

  if (op == nvm_opcode::write_zeroes) {
    dma.zero(blocks, bytes);
    return sc::success;
  }
  if (cfg.max_transfer_bytes != 0 && bytes > cfg.max_transfer_bytes) return sc::invalid_field;
  return dma_transfer(dma, cmd.prp1, cmd.prp2, bytes, cfg.mps_log2, blocks,
                      op == nvm_opcode::read ? dma_direction::to_host : dma_direction::from_host);
}

}  // namespace bam::emu
