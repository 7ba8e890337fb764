// bam/nvme/spec.hpp: the NVMe wire format (NVM Express Base 2.0 / NVM Command Set 1.0).
// Submission and completion entries, controller registers, Identify data, opcodes and status
// codes, as plain structs whose sizes and offsets are checked at compile time. No logic beyond
// field accessors lives here; usable from host and device code.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam::nvme {

// ---------------------------------------------------------------------------------------------
// Opcodes
// ---------------------------------------------------------------------------------------------

/// Admin command set opcodes (Base spec, Figure "Opcodes for Admin Commands").
enum class admin_opcode : std::uint8_t {
  delete_io_sq = 0x00,
  create_io_sq = 0x01,
  get_log_page = 0x02,
  delete_io_cq = 0x04,
  create_io_cq = 0x05,
  identify = 0x06,
  abort = 0x08,
  set_features = 0x09,
  get_features = 0x0a,
};

/// NVM command set I/O opcodes.
enum class nvm_opcode : std::uint8_t {
  flush = 0x00,
  write = 0x01,
  read = 0x02,
  write_zeroes = 0x08,
  dataset_management = 0x09,
};

/// Identify CNS values used by a driver.
enum class identify_cns : std::uint8_t {
  ns = 0x00,          ///< Identify Namespace (NSID in CDW1)
  controller = 0x01,  ///< Identify Controller
  active_ns_list = 0x02,
};

/// Feature identifiers used by a driver.
enum class feature_id : std::uint8_t {
  arbitration = 0x01,
  power_management = 0x02,
  volatile_write_cache = 0x06,
  number_of_queues = 0x07,
};

/// Log page identifiers.
enum class log_page_id : std::uint8_t {
  error_information = 0x01,
  smart_health = 0x02,
  firmware_slot = 0x03,
};

// ---------------------------------------------------------------------------------------------
// Submission queue entry (64 bytes)
// ---------------------------------------------------------------------------------------------

/// A submission queue entry. CDW0 holds opcode, fused, PSDT and the command identifier.
struct command {
  std::uint8_t opcode;  ///< CDW0[7:0]
  std::uint8_t flags;   ///< CDW0[15:8]: FUSE[1:0], PSDT[7:6] (0 = PRPs)
  std::uint16_t cid;    ///< CDW0[31:16] command identifier
  std::uint32_t nsid;   ///< CDW1 namespace identifier
  std::uint32_t cdw2;   ///< CDW2
  std::uint32_t cdw3;   ///< CDW3
  std::uint64_t mptr;   ///< CDW4-5 metadata pointer
  std::uint64_t prp1;   ///< CDW6-7 data pointer: PRP entry 1
  std::uint64_t prp2;   ///< CDW8-9 data pointer: PRP entry 2 or PRP list pointer
  std::uint32_t cdw10;  ///< command specific
  std::uint32_t cdw11;  ///< command specific
  std::uint32_t cdw12;  ///< command specific
  std::uint32_t cdw13;  ///< command specific
  std::uint32_t cdw14;  ///< command specific
  std::uint32_t cdw15;  ///< command specific

  // Read/Write/Write Zeroes fields (NVM command set).
  BAM_HD constexpr std::uint64_t slba() const { return (std::uint64_t{cdw11} << 32) | cdw10; }
  /// Number of logical blocks, 1-based (the wire field NLB is 0-based).
  BAM_HD constexpr std::uint32_t nlb() const { return (cdw12 & 0xffffu) + 1; }
  BAM_HD constexpr bool fua() const { return (cdw12 >> 30) & 1u; }
  // Queue creation / deletion fields (admin).
  BAM_HD constexpr std::uint16_t qid() const { return static_cast<std::uint16_t>(cdw10 & 0xffffu); }
  /// Queue size in entries, 1-based (the wire field QSIZE is 0-based).
  BAM_HD constexpr std::uint32_t qsize() const { return (cdw10 >> 16) + 1; }
  BAM_HD constexpr bool physically_contiguous() const { return cdw11 & 1u; }
  BAM_HD constexpr std::uint16_t cqid() const { return static_cast<std::uint16_t>(cdw11 >> 16); }
  BAM_HD constexpr std::uint8_t psdt() const { return static_cast<std::uint8_t>(flags >> 6); }
  BAM_HD constexpr std::uint8_t fuse() const { return static_cast<std::uint8_t>(flags & 3u); }
};
static_assert(sizeof(command) == 64);
static_assert(offsetof(command, nsid) == 4);
static_assert(offsetof(command, mptr) == 16);
static_assert(offsetof(command, prp1) == 24);
static_assert(offsetof(command, prp2) == 32);
static_assert(offsetof(command, cdw10) == 40);
static_assert(offsetof(command, cdw15) == 60);

/// log2 of the entry sizes, as CC.IOSQES / CC.IOCQES and Identify SQES/CQES encode them.
inline constexpr std::uint32_t sqe_size_log2 = 6;
inline constexpr std::uint32_t cqe_size_log2 = 4;

// ---------------------------------------------------------------------------------------------
// Status
// ---------------------------------------------------------------------------------------------

/// Status code type (SCT).
enum class status_type : std::uint8_t {
  generic = 0,
  command_specific = 1,
  media = 2,
  path = 3,
  vendor = 7,
};

/// A status field: SCT and SC, plus the DNR and More bits. The value type of every NVMe
/// result in bamkit. `ok()` is true only for Generic / Successful Completion.
struct status {
  std::uint8_t sct = 0;  ///< status code type
  std::uint8_t sc = 0;   ///< status code
  bool dnr = false;      ///< do not retry
  bool more = false;     ///< more information in the error log

  BAM_HD constexpr bool ok() const { return sct == 0 && sc == 0; }
  BAM_HD constexpr bool operator==(const status& o) const { return sct == o.sct && sc == o.sc; }
  BAM_HD constexpr std::uint16_t code() const { return static_cast<std::uint16_t>(sct << 8 | sc); }
};

/// Status codes, named by their specification names. SCT in the high byte, SC in the low byte.
namespace sc {
// Generic command status (SCT 0)
inline constexpr status success{0, 0x00};
inline constexpr status invalid_opcode{0, 0x01};
inline constexpr status invalid_field{0, 0x02};
inline constexpr status command_id_conflict{0, 0x03};
inline constexpr status data_transfer_error{0, 0x04};
inline constexpr status internal_error{0, 0x06};
inline constexpr status abort_requested{0, 0x07};
inline constexpr status aborted_sq_deletion{0, 0x08};
inline constexpr status invalid_namespace{0, 0x0b};
inline constexpr status command_sequence_error{0, 0x0c};
inline constexpr status invalid_sgl_descriptor{0, 0x0d};
inline constexpr status prp_offset_invalid{0, 0x13};
inline constexpr status lba_out_of_range{0, 0x80};
inline constexpr status capacity_exceeded{0, 0x81};
inline constexpr status namespace_not_ready{0, 0x82};
// Command specific status (SCT 1)
inline constexpr status invalid_cq{1, 0x00};
inline constexpr status invalid_queue_id{1, 0x01};
inline constexpr status invalid_queue_size{1, 0x02};
inline constexpr status invalid_log_page{1, 0x09};
inline constexpr status invalid_queue_deletion{1, 0x0c};
inline constexpr status feature_not_changeable{1, 0x0e};
// Media and data integrity errors (SCT 2)
inline constexpr status write_fault{2, 0x80};
inline constexpr status unrecovered_read_error{2, 0x81};
inline constexpr status access_denied{2, 0x86};
inline constexpr status deallocated_or_unwritten{2, 0x87};
// bamkit's own, in the vendor-specific type: never produced by a controller.
inline constexpr status host_timeout{7, 0xf0};  ///< the completion did not arrive in time
/// The queue was failed (a wait or a submission ran past its deadline, or the recovery of a
/// timed-out command did not succeed): the command was not done, or its outcome is unknown.
inline constexpr status host_queue_failed{7, 0xf1};
}  // namespace sc

// ---------------------------------------------------------------------------------------------
// Completion queue entry (16 bytes)
// ---------------------------------------------------------------------------------------------

/// A completion queue entry. DW3 (CID, phase, status) is the word a controller publishes last
/// and a poller reads first.
struct completion {
  std::uint32_t dw0;   ///< command specific result
  std::uint32_t dw1;   ///< reserved / command specific
  std::uint16_t sqhd;  ///< DW2[15:0] SQ head pointer
  std::uint16_t sqid;  ///< DW2[31:16] SQ identifier
  std::uint16_t cid;   ///< DW3[15:0] command identifier
  std::uint16_t sf;    ///< DW3[31:16]: phase tag in bit 0, status field in bits 15:1

  BAM_HD constexpr bool phase() const { return sf & 1u; }
  BAM_HD constexpr nvme::status status() const {
    return nvme::status{static_cast<std::uint8_t>((sf >> 9) & 0x7u),
                        static_cast<std::uint8_t>((sf >> 1) & 0xffu), ((sf >> 15) & 1u) != 0,
                        ((sf >> 14) & 1u) != 0};
  }
  /// DW3 as one word: what a poller loads atomically.
  BAM_HD static constexpr std::uint32_t make_dw3(std::uint16_t cid, bool phase, nvme::status st) {
    const std::uint32_t sf = (phase ? 1u : 0u) | (std::uint32_t{st.sc} << 1) |
                             (std::uint32_t{st.sct & 7u} << 9) | (st.more ? 1u << 14 : 0u) |
                             (st.dnr ? 1u << 15 : 0u);
    return std::uint32_t{cid} | (sf << 16);
  }
  BAM_HD static constexpr std::uint16_t dw3_cid(std::uint32_t dw3) {
    return static_cast<std::uint16_t>(dw3 & 0xffffu);
  }
  BAM_HD static constexpr bool dw3_phase(std::uint32_t dw3) { return (dw3 >> 16) & 1u; }
};
static_assert(sizeof(completion) == 16);
static_assert(offsetof(completion, sqhd) == 8);
static_assert(offsetof(completion, cid) == 12);
static_assert(offsetof(completion, sf) == 14);

/// Offset of completion DW3 in a completion entry, in 32-bit words.
inline constexpr std::size_t completion_dw3_index = 3;

// ---------------------------------------------------------------------------------------------
// Controller registers (BAR0)
// ---------------------------------------------------------------------------------------------

/// Register offsets in BAR0.
namespace reg {
inline constexpr std::uint32_t cap = 0x00;    ///< 64-bit controller capabilities
inline constexpr std::uint32_t vs = 0x08;     ///< version
inline constexpr std::uint32_t intms = 0x0c;  ///< interrupt mask set
inline constexpr std::uint32_t intmc = 0x10;  ///< interrupt mask clear
inline constexpr std::uint32_t cc = 0x14;     ///< controller configuration
inline constexpr std::uint32_t csts = 0x1c;   ///< controller status
inline constexpr std::uint32_t nssr = 0x20;   ///< NVM subsystem reset
inline constexpr std::uint32_t aqa = 0x24;    ///< admin queue attributes
inline constexpr std::uint32_t asq = 0x28;    ///< 64-bit admin SQ base address
inline constexpr std::uint32_t acq = 0x30;    ///< 64-bit admin CQ base address
inline constexpr std::uint32_t doorbell_base = 0x1000;

/// Offset of SQ `qid`'s tail doorbell for doorbell stride CAP.DSTRD.
BAM_HD constexpr std::uint32_t sq_tail_doorbell(std::uint32_t qid, std::uint32_t dstrd) {
  return doorbell_base + (2 * qid) * (4u << dstrd);
}
/// Offset of CQ `qid`'s head doorbell for doorbell stride CAP.DSTRD.
BAM_HD constexpr std::uint32_t cq_head_doorbell(std::uint32_t qid, std::uint32_t dstrd) {
  return doorbell_base + (2 * qid + 1) * (4u << dstrd);
}
}  // namespace reg

/// The fixed part of the register block, as it lies in BAR0.
struct controller_registers {
  std::uint64_t cap;
  std::uint32_t vs;
  std::uint32_t intms;
  std::uint32_t intmc;
  std::uint32_t cc;
  std::uint32_t reserved0;
  std::uint32_t csts;
  std::uint32_t nssr;
  std::uint32_t aqa;
  std::uint64_t asq;
  std::uint64_t acq;
};
static_assert(offsetof(controller_registers, vs) == reg::vs);
static_assert(offsetof(controller_registers, cc) == reg::cc);
static_assert(offsetof(controller_registers, csts) == reg::csts);
static_assert(offsetof(controller_registers, aqa) == reg::aqa);
static_assert(offsetof(controller_registers, asq) == reg::asq);
static_assert(offsetof(controller_registers, acq) == reg::acq);
static_assert(sizeof(controller_registers) == 0x38);

/// CAP: controller capabilities.
struct cap_register {
  std::uint64_t raw = 0;
  /// Maximum queue entries supported, 1-based (the field MQES is 0-based).
  BAM_HD constexpr std::uint32_t max_queue_entries() const { return (raw & 0xffffu) + 1; }
  BAM_HD constexpr bool contiguous_queues_required() const { return (raw >> 16) & 1u; }
  /// Worst-case time to become ready, in milliseconds (the field TO is in 500 ms units).
  BAM_HD constexpr std::uint32_t timeout_ms() const {
    return static_cast<std::uint32_t>((raw >> 24) & 0xffu) * 500u;
  }
  BAM_HD constexpr std::uint32_t dstrd() const { return (raw >> 32) & 0xfu; }
  BAM_HD constexpr bool nvm_command_set() const { return (raw >> 37) & 1u; }
  /// Minimum and maximum memory page size, as log2 of bytes.
  BAM_HD constexpr std::uint32_t mps_min_log2() const { return 12 + ((raw >> 48) & 0xfu); }
  BAM_HD constexpr std::uint32_t mps_max_log2() const { return 12 + ((raw >> 52) & 0xfu); }

  /// Builds a CAP value (what an emulated controller reports).
  BAM_HD static constexpr cap_register make(std::uint32_t max_entries, std::uint32_t to_500ms,
                                            std::uint32_t dstrd, std::uint32_t mps_min_log2,
                                            std::uint32_t mps_max_log2, bool contiguous) {
    std::uint64_t v = (max_entries - 1) & 0xffffu;
    v |= std::uint64_t{contiguous} << 16;
    v |= std::uint64_t{to_500ms & 0xffu} << 24;
    v |= std::uint64_t{dstrd & 0xfu} << 32;
    v |= std::uint64_t{1} << 37;  // CSS: NVM command set
    v |= std::uint64_t{(mps_min_log2 - 12) & 0xfu} << 48;
    v |= std::uint64_t{(mps_max_log2 - 12) & 0xfu} << 52;
    return cap_register{v};
  }
};

/// CC: controller configuration.
struct cc_register {
  std::uint32_t raw = 0;
  BAM_HD constexpr bool enable() const { return raw & 1u; }
  BAM_HD constexpr std::uint32_t css() const { return (raw >> 4) & 0x7u; }
  /// Memory page size as log2 of bytes (the field MPS encodes 2^(12+MPS)).
  BAM_HD constexpr std::uint32_t mps_log2() const { return 12 + ((raw >> 7) & 0xfu); }
  BAM_HD constexpr std::uint32_t shn() const { return (raw >> 14) & 0x3u; }
  BAM_HD constexpr std::uint32_t iosqes() const { return (raw >> 16) & 0xfu; }
  BAM_HD constexpr std::uint32_t iocqes() const { return (raw >> 20) & 0xfu; }

  BAM_HD static constexpr cc_register make(bool enable, std::uint32_t mps_log2) {
    std::uint32_t v = enable ? 1u : 0u;
    v |= ((mps_log2 - 12) & 0xfu) << 7;
    v |= sqe_size_log2 << 16;
    v |= cqe_size_log2 << 20;
    return cc_register{v};
  }
};

/// CSTS: controller status.
struct csts_register {
  std::uint32_t raw = 0;
  BAM_HD constexpr bool ready() const { return raw & 1u; }
  BAM_HD constexpr bool fatal() const { return (raw >> 1) & 1u; }
  BAM_HD constexpr std::uint32_t shst() const { return (raw >> 2) & 0x3u; }
};

/// AQA: admin queue attributes (sizes are 1-based here, 0-based on the wire).
struct aqa_register {
  std::uint32_t raw = 0;
  BAM_HD constexpr std::uint32_t asqs() const { return (raw & 0xfffu) + 1; }
  BAM_HD constexpr std::uint32_t acqs() const { return ((raw >> 16) & 0xfffu) + 1; }
  BAM_HD static constexpr aqa_register make(std::uint32_t sq_entries, std::uint32_t cq_entries) {
    return aqa_register{((sq_entries - 1) & 0xfffu) | (((cq_entries - 1) & 0xfffu) << 16)};
  }
};

/// VS: version.
BAM_HD constexpr std::uint32_t make_version(std::uint32_t major, std::uint32_t minor,
                                            std::uint32_t tertiary = 0) {
  return (major << 16) | (minor << 8) | tertiary;
}

// ---------------------------------------------------------------------------------------------
// Identify data structures (4096 bytes each)
// ---------------------------------------------------------------------------------------------

/// Power state descriptor (32 bytes).
struct power_state_descriptor {
  std::uint8_t raw[32];
};

/// Identify Controller data structure (CNS 01h), the fields a driver needs.
struct identify_controller {
  std::uint16_t vid;     ///< 0: PCI vendor ID
  std::uint16_t ssvid;   ///< 2: PCI subsystem vendor ID
  char sn[20];           ///< 4: serial number (ASCII, space padded)
  char mn[40];           ///< 24: model number
  char fr[8];            ///< 64: firmware revision
  std::uint8_t rab;      ///< 72: recommended arbitration burst
  std::uint8_t ieee[3];  ///< 73: IEEE OUI
  std::uint8_t cmic;     ///< 76
  std::uint8_t mdts;     ///< 77: max data transfer size, 2^MDTS units of CAP.MPSMIN; 0 = none
  std::uint16_t cntlid;  ///< 78: controller ID
  std::uint32_t ver;     ///< 80: version
  std::uint32_t rtd3r;   ///< 84
  std::uint32_t rtd3e;   ///< 88
  std::uint32_t oaes;    ///< 92
  std::uint32_t ctratt;  ///< 96
  std::uint8_t reserved100[156];  ///< 100..255
  std::uint16_t oacs;             ///< 256: optional admin command support
  std::uint8_t acl;               ///< 258: abort command limit
  std::uint8_t aerl;              ///< 259
  std::uint8_t frmw;              ///< 260
  std::uint8_t lpa;               ///< 261
  std::uint8_t elpe;              ///< 262
  std::uint8_t npss;              ///< 263
  std::uint8_t reserved264[248];  ///< 264..511
  std::uint8_t sqes;              ///< 512: [3:0] required, [7:4] maximum SQ entry size (log2)
  std::uint8_t cqes;              ///< 513: [3:0] required, [7:4] maximum CQ entry size (log2)
  std::uint16_t maxcmd;           ///< 514
  std::uint32_t nn;               ///< 516: number of namespaces
  std::uint16_t oncs;             ///< 520: optional NVM command support
  std::uint16_t fuses;            ///< 522
  std::uint8_t fna;               ///< 524
  std::uint8_t vwc;               ///< 525: volatile write cache present
  std::uint16_t awun;             ///< 526
  std::uint16_t awupf;            ///< 528
  std::uint8_t nvscc;             ///< 530
  std::uint8_t nwpc;              ///< 531
  std::uint16_t acwu;             ///< 532
  std::uint16_t reserved534;
  std::uint32_t sgls;               ///< 536
  std::uint32_t mnan;               ///< 540
  std::uint8_t reserved544[224];    ///< 544..767
  char subnqn[256];                 ///< 768
  std::uint8_t reserved1024[1024];  ///< 1024..2047
  power_state_descriptor psd[32];   ///< 2048
  std::uint8_t vs[1024];            ///< 3072: vendor specific

  /// ONCS bits.
  static constexpr std::uint16_t oncs_write_zeroes = 1u << 3;
  static constexpr std::uint16_t oncs_dsm = 1u << 2;
};
static_assert(sizeof(identify_controller) == 4096);
static_assert(offsetof(identify_controller, mn) == 24);
static_assert(offsetof(identify_controller, mdts) == 77);
static_assert(offsetof(identify_controller, ver) == 80);
static_assert(offsetof(identify_controller, oacs) == 256);
static_assert(offsetof(identify_controller, sqes) == 512);
static_assert(offsetof(identify_controller, cqes) == 513);
static_assert(offsetof(identify_controller, nn) == 516);
static_assert(offsetof(identify_controller, oncs) == 520);
static_assert(offsetof(identify_controller, vwc) == 525);
static_assert(offsetof(identify_controller, sgls) == 536);
static_assert(offsetof(identify_controller, subnqn) == 768);
static_assert(offsetof(identify_controller, psd) == 2048);
static_assert(offsetof(identify_controller, vs) == 3072);

/// LBA format descriptor.
struct lba_format {
  std::uint16_t ms;    ///< metadata size
  std::uint8_t lbads;  ///< LBA data size, log2 of bytes
  std::uint8_t rp;     ///< [1:0] relative performance
};
static_assert(sizeof(lba_format) == 4);

/// Identify Namespace data structure (CNS 00h), NVM command set.
struct identify_namespace {
  std::uint64_t nsze;           ///< 0: namespace size in logical blocks
  std::uint64_t ncap;           ///< 8: namespace capacity
  std::uint64_t nuse;           ///< 16: namespace utilization
  std::uint8_t nsfeat;          ///< 24
  std::uint8_t nlbaf;           ///< 25: number of LBA formats, 0-based
  std::uint8_t flbas;           ///< 26: [3:0] index of the formatted LBA format
  std::uint8_t mc;              ///< 27
  std::uint8_t dpc;             ///< 28
  std::uint8_t dps;             ///< 29
  std::uint8_t nmic;            ///< 30
  std::uint8_t rescap;          ///< 31
  std::uint8_t fpi;             ///< 32
  std::uint8_t dlfeat;          ///< 33
  std::uint16_t nawun;          ///< 34
  std::uint16_t nawupf;         ///< 36
  std::uint16_t nacwu;          ///< 38
  std::uint16_t nabsn;          ///< 40
  std::uint16_t nabo;           ///< 42
  std::uint16_t nabspf;         ///< 44
  std::uint16_t noiob;          ///< 46
  std::uint8_t nvmcap[16];      ///< 48
  std::uint16_t npwg;           ///< 64
  std::uint16_t npwa;           ///< 66
  std::uint16_t npdg;           ///< 68
  std::uint16_t npda;           ///< 70
  std::uint16_t nows;           ///< 72
  std::uint8_t reserved74[18];  ///< 74..91
  std::uint32_t anagrpid;       ///< 92
  std::uint8_t reserved96[3];
  std::uint8_t nsattr;            ///< 99
  std::uint16_t nvmsetid;         ///< 100
  std::uint16_t endgid;           ///< 102
  std::uint8_t nguid[16];         ///< 104
  std::uint8_t eui64[8];          ///< 120
  lba_format lbaf[16];            ///< 128
  std::uint8_t reserved192[192];  ///< 192..383
  std::uint8_t vs[3712];          ///< 384: vendor specific

  /// The formatted LBA format, and its data size in bytes.
  BAM_HD constexpr const lba_format& current_format() const { return lbaf[flbas & 0xfu]; }
  BAM_HD constexpr std::uint32_t lba_size() const { return 1u << current_format().lbads; }
};
static_assert(sizeof(identify_namespace) == 4096);
static_assert(offsetof(identify_namespace, nlbaf) == 25);
static_assert(offsetof(identify_namespace, flbas) == 26);
static_assert(offsetof(identify_namespace, anagrpid) == 92);
static_assert(offsetof(identify_namespace, nguid) == 104);
static_assert(offsetof(identify_namespace, lbaf) == 128);
static_assert(offsetof(identify_namespace, vs) == 384);

/// Dataset Management range (16 bytes).
struct dsm_range {
  std::uint32_t cattr;  ///< context attributes
  std::uint32_t nlb;    ///< length in logical blocks (1-based)
  std::uint64_t slba;   ///< starting LBA
};
static_assert(sizeof(dsm_range) == 16);

}  // namespace bam::nvme
