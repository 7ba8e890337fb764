// bam/nvme/commands.hpp: API. Builders for the submission queue entries bamkit issues (NVM I/O
// and admin commands), and decoders of the command-specific fields a controller reads back.
// Host and device; the CID is left 0 (the queue assigns it); PSDT is 0 (PRPs).
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/nvme/prp.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::nvme {

namespace detail {
BAM_HD constexpr command make_command(std::uint8_t opcode, std::uint32_t nsid) {
  command c{};
  c.opcode = opcode;
  c.nsid = nsid;
  return c;
}
BAM_HD constexpr command make_io(nvm_opcode op, std::uint32_t nsid) {
  return make_command(static_cast<std::uint8_t>(op), nsid);
}
BAM_HD constexpr command make_admin(admin_opcode op, std::uint32_t nsid = 0) {
  return make_command(static_cast<std::uint8_t>(op), nsid);
}
/// CDW10-12 of Read / Write / Write Zeroes: SLBA, NLB (0-based on the wire), FUA.
BAM_HD constexpr void set_lba_range(command& c, std::uint64_t slba, std::uint32_t nlb, bool fua) {
  c.cdw10 = static_cast<std::uint32_t>(slba);
  c.cdw11 = static_cast<std::uint32_t>(slba >> 32);
  c.cdw12 = ((nlb - 1) & 0xffffu) | (fua ? 1u << 30 : 0u);
}
}  // namespace detail

// ---- NVM command set -------------------------------------------------------------------------

/// Read `nlb` (1-based, at most 65536) logical blocks from `slba` into the buffer of `prp`.
BAM_HD constexpr command read(std::uint32_t nsid, std::uint64_t slba, std::uint32_t nlb,
                              prp_pair prp, bool fua = false) {
  command c = detail::make_io(nvm_opcode::read, nsid);
  detail::set_lba_range(c, slba, nlb, fua);
  c.prp1 = prp.prp1;
  c.prp2 = prp.prp2;
  return c;
}

/// Write `nlb` (1-based, at most 65536) logical blocks at `slba` from the buffer of `prp`.
BAM_HD constexpr command write(std::uint32_t nsid, std::uint64_t slba, std::uint32_t nlb,
                               prp_pair prp, bool fua = false) {
  command c = detail::make_io(nvm_opcode::write, nsid);
  detail::set_lba_range(c, slba, nlb, fua);
  c.prp1 = prp.prp1;
  c.prp2 = prp.prp2;
  return c;
}

/// Write Zeroes over `nlb` (1-based) blocks at `slba`. No data pointer (the command has none);
/// `deallocate` sets DEAC (CDW12 bit 25).
BAM_HD constexpr command write_zeroes(std::uint32_t nsid, std::uint64_t slba, std::uint32_t nlb,
                                      bool fua = false, bool deallocate = false) {
  command c = detail::make_io(nvm_opcode::write_zeroes, nsid);
  detail::set_lba_range(c, slba, nlb, fua);
  if (deallocate) c.cdw12 |= 1u << 25;
  return c;
}

/// Flush the volatile write cache of namespace `nsid` (0xffffffff: all namespaces).
BAM_HD constexpr command flush(std::uint32_t nsid) {
  return detail::make_io(nvm_opcode::flush, nsid);
}

/// Dataset Management over `nranges` (1-based, 1..256) dsm_range entries in the buffer of `prp`;
/// `deallocate` sets AD (CDW11 bit 2).
BAM_HD constexpr command dataset_management(std::uint32_t nsid, std::uint32_t nranges, prp_pair prp,
                                            bool deallocate) {
  command c = detail::make_io(nvm_opcode::dataset_management, nsid);
  c.cdw10 = (nranges - 1) & 0xffu;
  c.cdw11 = deallocate ? 1u << 2 : 0u;
  c.prp1 = prp.prp1;
  c.prp2 = prp.prp2;
  return c;
}

// ---- Admin command set -----------------------------------------------------------------------

/// Identify: the 4096-byte structure `cns` (for namespace `nsid` where it applies) into `prp1`
/// (page aligned, so that the data fits in one controller page of at least 4 KiB).
BAM_HD constexpr command identify(identify_cns cns, std::uint32_t nsid, std::uint64_t prp1) {
  command c = detail::make_admin(admin_opcode::identify, nsid);
  c.cdw10 = static_cast<std::uint32_t>(cns);
  c.prp1 = prp1;
  return c;
}

/// Create I/O Completion Queue `qid` of `entries` (1-based) at `prp1` (physically contiguous
/// queue) or at the PRP list `prp1` (non-contiguous). Interrupts off unless `interrupt_vector`
/// is given (>= 0): bamkit polls.
BAM_HD constexpr command create_io_cq(std::uint16_t qid, std::uint32_t entries, std::uint64_t prp1,
                                      bool contiguous, std::int32_t interrupt_vector = -1) {
  command c = detail::make_admin(admin_opcode::create_io_cq);
  c.cdw10 = std::uint32_t{qid} | (((entries - 1) & 0xffffu) << 16);
  c.cdw11 = contiguous ? 1u : 0u;
  if (interrupt_vector >= 0) {
    c.cdw11 |= 1u << 1 | ((static_cast<std::uint32_t>(interrupt_vector) & 0xffffu) << 16);
  }
  c.prp1 = prp1;
  return c;
}

/// Create I/O Submission Queue `qid` of `entries` (1-based) completing into CQ `cqid`, at `prp1`
/// (contiguous) or at the PRP list `prp1`. Priority: urgent/high/medium/low = 0..3 (QPRIO,
/// used only with weighted round robin arbitration).
BAM_HD constexpr command create_io_sq(std::uint16_t qid, std::uint32_t entries, std::uint16_t cqid,
                                      std::uint64_t prp1, bool contiguous,
                                      std::uint32_t priority = 0) {
  command c = detail::make_admin(admin_opcode::create_io_sq);
  c.cdw10 = std::uint32_t{qid} | (((entries - 1) & 0xffffu) << 16);
  c.cdw11 = (contiguous ? 1u : 0u) | ((priority & 3u) << 1) | (std::uint32_t{cqid} << 16);
  c.prp1 = prp1;
  return c;
}

/// Delete I/O Submission Queue `qid`.
BAM_HD constexpr command delete_io_sq(std::uint16_t qid) {
  command c = detail::make_admin(admin_opcode::delete_io_sq);
  c.cdw10 = qid;
  return c;
}

/// Delete I/O Completion Queue `qid`.
BAM_HD constexpr command delete_io_cq(std::uint16_t qid) {
  command c = detail::make_admin(admin_opcode::delete_io_cq);
  c.cdw10 = qid;
  return c;
}

/// Abort the command `cid` of submission queue `sqid` (CDW10: SQID in [15:0], CID in [31:16]).
/// The completion's DW0 bit 0 says whether it was aborted (decode::abort_not_aborted).
BAM_HD constexpr command abort(std::uint16_t sqid, std::uint16_t cid) {
  command c = detail::make_admin(admin_opcode::abort);
  c.cdw10 = std::uint32_t{sqid} | (std::uint32_t{cid} << 16);
  return c;
}

/// Set Features / Number of Queues: ask for `nsq` I/O SQs and `ncq` I/O CQs (1-based, 1..65535;
/// 0-based on the wire). The completion's DW0 carries what was allocated (num_queues_allocated).
BAM_HD constexpr command set_features_num_queues(std::uint32_t nsq, std::uint32_t ncq) {
  command c = detail::make_admin(admin_opcode::set_features);
  c.cdw10 = static_cast<std::uint32_t>(feature_id::number_of_queues);
  c.cdw11 = ((nsq - 1) & 0xffffu) | (((ncq - 1) & 0xffffu) << 16);
  return c;
}

/// Get Features `fid`, current value (SEL 0); the value comes back in the completion's DW0.
BAM_HD constexpr command get_features(feature_id fid) {
  command c = detail::make_admin(admin_opcode::get_features);
  c.cdw10 = static_cast<std::uint32_t>(fid);
  return c;
}

/// Get Log Page `lid` (for `nsid`; 0xffffffff: controller-wide), `bytes` (a multiple of 4, at
/// least 4) from byte `offset` of the log (a multiple of 4) into the buffer of `prp`.
BAM_HD constexpr command get_log_page(log_page_id lid, std::uint32_t nsid, std::uint32_t bytes,
                                      prp_pair prp, std::uint64_t offset = 0) {
  command c = detail::make_admin(admin_opcode::get_log_page, nsid);
  const std::uint32_t numd = bytes / 4 - 1;  // 0-based dword count
  c.cdw10 = static_cast<std::uint32_t>(lid) | ((numd & 0xffffu) << 16);
  c.cdw11 = numd >> 16;
  c.cdw12 = static_cast<std::uint32_t>(offset);
  c.cdw13 = static_cast<std::uint32_t>(offset >> 32);
  c.prp1 = prp.prp1;
  c.prp2 = prp.prp2;
  return c;
}

// ---- Decoding (controller side) --------------------------------------------------------------

/// Command-specific fields as a controller reads them; counts are 1-based.
namespace decode {
/// Identify: CNS (CDW10[7:0]).
BAM_HD constexpr identify_cns cns(const command& c) {
  return static_cast<identify_cns>(c.cdw10 & 0xffu);
}
/// Set/Get Features: feature identifier (CDW10[7:0]).
BAM_HD constexpr feature_id fid(const command& c) {
  return static_cast<feature_id>(c.cdw10 & 0xffu);
}
/// Get Features: select (CDW10[10:8]).
BAM_HD constexpr std::uint32_t features_select(const command& c) {
  return (c.cdw10 >> 8) & 7u;
}
/// Set Features / Number of Queues: SQs and CQs requested.
BAM_HD constexpr std::uint32_t num_sq_requested(const command& c) {
  return (c.cdw11 & 0xffffu) + 1;
}
BAM_HD constexpr std::uint32_t num_cq_requested(const command& c) {
  return (c.cdw11 >> 16) + 1;
}
/// Abort: the submission queue and command ID it names.
BAM_HD constexpr std::uint16_t abort_sqid(const command& c) {
  return static_cast<std::uint16_t>(c.cdw10 & 0xffffu);
}
BAM_HD constexpr std::uint16_t abort_cid(const command& c) {
  return static_cast<std::uint16_t>(c.cdw10 >> 16);
}
/// Abort completion DW0 bit 0: 0 when the command was aborted, 1 when it was not (not found,
/// already completed, or past the point of aborting).
BAM_HD constexpr bool abort_not_aborted(std::uint32_t dw0) {
  return (dw0 & 1u) != 0;
}
/// Number of Queues completion DW0 (0-based NSQA in [15:0], NCQA in [31:16]).
BAM_HD constexpr std::uint32_t num_queues_dw0(std::uint32_t nsq, std::uint32_t ncq) {
  return ((nsq - 1) & 0xffffu) | (((ncq - 1) & 0xffffu) << 16);
}
BAM_HD constexpr std::uint32_t num_sq_allocated(std::uint32_t dw0) {
  return (dw0 & 0xffffu) + 1;
}
BAM_HD constexpr std::uint32_t num_cq_allocated(std::uint32_t dw0) {
  return (dw0 >> 16) + 1;
}
/// Create I/O CQ: interrupts enabled (CDW11 bit 1) and vector (CDW11[31:16]).
BAM_HD constexpr bool cq_interrupts_enabled(const command& c) {
  return (c.cdw11 >> 1) & 1u;
}
BAM_HD constexpr std::uint16_t cq_interrupt_vector(const command& c) {
  return static_cast<std::uint16_t>(c.cdw11 >> 16);
}
/// Create I/O SQ: priority (CDW11[2:1]).
BAM_HD constexpr std::uint32_t sq_priority(const command& c) {
  return (c.cdw11 >> 1) & 3u;
}
/// Write Zeroes: DEAC (CDW12 bit 25).
BAM_HD constexpr bool write_zeroes_deallocate(const command& c) {
  return (c.cdw12 >> 25) & 1u;
}
/// Dataset Management: number of ranges (CDW10[7:0], 0-based on the wire) and AD (CDW11 bit 2).
BAM_HD constexpr std::uint32_t dsm_ranges(const command& c) {
  return (c.cdw10 & 0xffu) + 1;
}
BAM_HD constexpr bool dsm_deallocate(const command& c) {
  return (c.cdw11 >> 2) & 1u;
}
/// Get Log Page: log identifier, length in bytes (NUMDU:NUMDL, 0-based dwords), offset.
BAM_HD constexpr log_page_id log_id(const command& c) {
  return static_cast<log_page_id>(c.cdw10 & 0xffu);
}
BAM_HD constexpr std::uint64_t log_bytes(const command& c) {
  const std::uint64_t numd = (std::uint64_t{c.cdw11 & 0xffffu} << 16) | (c.cdw10 >> 16);
  return (numd + 1) * 4;
}
BAM_HD constexpr std::uint64_t log_offset(const command& c) {
  return (std::uint64_t{c.cdw13} << 32) | c.cdw12;
}
}  // namespace decode

}  // namespace bam::nvme
