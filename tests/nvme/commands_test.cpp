// Command builders (bam/nvme/commands.hpp): every encoding checked against the spec.hpp accessors,
// the decode:: helpers and the raw dwords of the 64-byte entry.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"  // prints statuses in failure messages

namespace {
using namespace bam::nvme;

std::array<std::uint32_t, 16> dwords(const command& c) {
  std::array<std::uint32_t, 16> d{};
  std::memcpy(d.data(), &c, sizeof c);
  return d;
}

/// Expected raw dwords: opcode in CDW0 (CID 0, no fuse, PSDT 0), the rest as given.
void expect_dwords(const command& c, std::uint8_t opcode, std::uint32_t nsid, std::uint64_t prp1,
                   std::uint64_t prp2, std::uint32_t cdw10, std::uint32_t cdw11 = 0,
                   std::uint32_t cdw12 = 0, std::uint32_t cdw13 = 0) {
  const auto d = dwords(c);
  EXPECT_EQ(d[0], opcode);
  EXPECT_EQ(d[1], nsid);
  EXPECT_EQ(d[2], 0u);
  EXPECT_EQ(d[3], 0u);
  EXPECT_EQ(d[4], 0u);  // MPTR
  EXPECT_EQ(d[5], 0u);
  EXPECT_EQ(d[6], static_cast<std::uint32_t>(prp1));
  EXPECT_EQ(d[7], static_cast<std::uint32_t>(prp1 >> 32));
  EXPECT_EQ(d[8], static_cast<std::uint32_t>(prp2));
  EXPECT_EQ(d[9], static_cast<std::uint32_t>(prp2 >> 32));
  EXPECT_EQ(d[10], cdw10);
  EXPECT_EQ(d[11], cdw11);
  EXPECT_EQ(d[12], cdw12);
  EXPECT_EQ(d[13], cdw13);
  EXPECT_EQ(d[14], 0u);
  EXPECT_EQ(d[15], 0u);
  EXPECT_EQ(c.cid, 0u);
  EXPECT_EQ(c.psdt(), 0u);
  EXPECT_EQ(c.fuse(), 0u);
}

TEST(NvmeCommands, Read) {
  const prp_pair p{0x1234'5678'9000ull, 0xabc'0000'1000ull};
  const command c = read(7, 0x1'2345'6789ull, 8, p);
  expect_dwords(c, 0x02, 7, p.prp1, p.prp2, 0x2345'6789u, 0x1u, 7u);
  EXPECT_EQ(c.slba(), 0x1'2345'6789ull);
  EXPECT_EQ(c.nlb(), 8u);
  EXPECT_FALSE(c.fua());
  const command f = read(1, 0, 65536, p, true);
  expect_dwords(f, 0x02, 1, p.prp1, p.prp2, 0, 0, 0xffffu | 1u << 30);
  EXPECT_EQ(f.nlb(), 65536u);
  EXPECT_TRUE(f.fua());
}

TEST(NvmeCommands, Write) {
  const prp_pair p{0x2000, 0};
  const command c = write(1, 0xffff'ffff'ffff'fff0ull, 1, p, true);
  expect_dwords(c, 0x01, 1, 0x2000, 0, 0xffff'fff0u, 0xffff'ffffu, 1u << 30);
  EXPECT_EQ(c.slba(), 0xffff'ffff'ffff'fff0ull);
  EXPECT_EQ(c.nlb(), 1u);
  EXPECT_TRUE(c.fua());
  static_assert(write(1, 5, 2, prp_pair{}).cdw12 == 1u);
}

TEST(NvmeCommands, WriteZeroes) {
  const command c = write_zeroes(3, 100, 16);
  expect_dwords(c, 0x08, 3, 0, 0, 100, 0, 15);
  EXPECT_EQ(c.nlb(), 16u);
  EXPECT_FALSE(decode::write_zeroes_deallocate(c));
  const command d = write_zeroes(3, 100, 16, true, true);
  expect_dwords(d, 0x08, 3, 0, 0, 100, 0, 15u | 1u << 30 | 1u << 25);
  EXPECT_TRUE(d.fua());
  EXPECT_TRUE(decode::write_zeroes_deallocate(d));
}

TEST(NvmeCommands, Flush) {
  expect_dwords(flush(0xffff'ffffu), 0x00, 0xffff'ffffu, 0, 0, 0);
  expect_dwords(flush(2), 0x00, 2, 0, 0, 0);
}

TEST(NvmeCommands, DatasetManagement) {
  const prp_pair p{0x5000, 0};
  const command c = dataset_management(1, 256, p, true);
  expect_dwords(c, 0x09, 1, 0x5000, 0, 0xffu, 1u << 2);
  EXPECT_EQ(decode::dsm_ranges(c), 256u);
  EXPECT_TRUE(decode::dsm_deallocate(c));
  const command one = dataset_management(1, 1, p, false);
  expect_dwords(one, 0x09, 1, 0x5000, 0, 0, 0);
  EXPECT_EQ(decode::dsm_ranges(one), 1u);
  EXPECT_FALSE(decode::dsm_deallocate(one));
}

TEST(NvmeCommands, Identify) {
  const command c = identify(identify_cns::controller, 0, 0x8000);
  expect_dwords(c, 0x06, 0, 0x8000, 0, 0x01);
  EXPECT_EQ(decode::cns(c), identify_cns::controller);
  const command n = identify(identify_cns::ns, 1, 0x9000);
  expect_dwords(n, 0x06, 1, 0x9000, 0, 0x00);
  EXPECT_EQ(decode::cns(n), identify_cns::ns);
  expect_dwords(identify(identify_cns::active_ns_list, 0, 0xa000), 0x06, 0, 0xa000, 0, 0x02);
}

TEST(NvmeCommands, CreateIoCq) {
  const command c = create_io_cq(5, 1024, 0x10'0000, true);
  expect_dwords(c, 0x05, 0, 0x10'0000, 0, 5u | (1023u << 16), 1u);
  EXPECT_EQ(c.qid(), 5u);
  EXPECT_EQ(c.qsize(), 1024u);
  EXPECT_TRUE(c.physically_contiguous());
  EXPECT_FALSE(decode::cq_interrupts_enabled(c));
  const command v = create_io_cq(65535, 65536, 0x20'0000, false, 3);
  expect_dwords(v, 0x05, 0, 0x20'0000, 0, 0xffffu | (0xffffu << 16), 2u | (3u << 16));
  EXPECT_EQ(v.qid(), 65535u);
  EXPECT_EQ(v.qsize(), 65536u);
  EXPECT_FALSE(v.physically_contiguous());
  EXPECT_TRUE(decode::cq_interrupts_enabled(v));
  EXPECT_EQ(decode::cq_interrupt_vector(v), 3u);
}

TEST(NvmeCommands, CreateIoSq) {
  const command c = create_io_sq(4, 256, 9, 0x30'0000, true);
  expect_dwords(c, 0x01, 0, 0x30'0000, 0, 4u | (255u << 16), 1u | (9u << 16));
  EXPECT_EQ(c.qid(), 4u);
  EXPECT_EQ(c.qsize(), 256u);
  EXPECT_EQ(c.cqid(), 9u);
  EXPECT_TRUE(c.physically_contiguous());
  EXPECT_EQ(decode::sq_priority(c), 0u);
  const command p = create_io_sq(1, 2, 1, 0x40'0000, false, 2);
  expect_dwords(p, 0x01, 0, 0x40'0000, 0, 1u | (1u << 16), (2u << 1) | (1u << 16));
  EXPECT_FALSE(p.physically_contiguous());
  EXPECT_EQ(decode::sq_priority(p), 2u);
}

TEST(NvmeCommands, DeleteQueues) {
  const command s = delete_io_sq(12);
  expect_dwords(s, 0x00, 0, 0, 0, 12);
  EXPECT_EQ(s.qid(), 12u);
  const command c = delete_io_cq(13);
  expect_dwords(c, 0x04, 0, 0, 0, 13);
  EXPECT_EQ(c.qid(), 13u);
}

TEST(NvmeCommands, SetFeaturesNumberOfQueues) {
  const command c = set_features_num_queues(16, 8);
  expect_dwords(c, 0x09, 0, 0, 0, 0x07, 15u | (7u << 16));
  EXPECT_EQ(decode::fid(c), feature_id::number_of_queues);
  EXPECT_EQ(decode::num_sq_requested(c), 16u);
  EXPECT_EQ(decode::num_cq_requested(c), 8u);
  const command m = set_features_num_queues(65535, 65535);
  EXPECT_EQ(m.cdw11, 0xfffeu | (0xfffeu << 16));
  EXPECT_EQ(decode::num_sq_requested(m), 65535u);
  const std::uint32_t dw0 = decode::num_queues_dw0(31, 64);
  EXPECT_EQ(dw0, 30u | (63u << 16));
  EXPECT_EQ(decode::num_sq_allocated(dw0), 31u);
  EXPECT_EQ(decode::num_cq_allocated(dw0), 64u);
}

TEST(NvmeCommands, GetFeatures) {
  const command c = get_features(feature_id::volatile_write_cache);
  expect_dwords(c, 0x0a, 0, 0, 0, 0x06);
  EXPECT_EQ(decode::fid(c), feature_id::volatile_write_cache);
  EXPECT_EQ(decode::features_select(c), 0u);
}

TEST(NvmeCommands, GetLogPage) {
  const prp_pair p{0x6000, 0x7000};
  const command c = get_log_page(log_page_id::smart_health, 0xffff'ffffu, 512, p);
  expect_dwords(c, 0x02, 0xffff'ffffu, 0x6000, 0x7000, 0x02u | (127u << 16), 0);
  EXPECT_EQ(decode::log_id(c), log_page_id::smart_health);
  EXPECT_EQ(decode::log_bytes(c), 512u);
  EXPECT_EQ(decode::log_offset(c), 0u);
  // 1 MiB: NUMD = 262143 = 0x3ffff -> NUMDL 0xffff, NUMDU 0x3; offset split over CDW12/13.
  const command big =
      get_log_page(log_page_id::error_information, 0, 1u << 20, p, 0x1'0000'0040ull);
  expect_dwords(big, 0x02, 0, 0x6000, 0x7000, 0x01u | (0xffffu << 16), 0x3u, 0x40u, 0x1u);
  EXPECT_EQ(decode::log_bytes(big), 1u << 20);
  EXPECT_EQ(decode::log_offset(big), 0x1'0000'0040ull);
  const command small = get_log_page(log_page_id::firmware_slot, 0, 4, p);
  EXPECT_EQ(small.cdw10, 0x03u);
  EXPECT_EQ(decode::log_bytes(small), 4u);
}

}  // namespace
