// Emulated controller: CAP/VS contents and the CC/CSTS handshake (enable, invalid configuration,
// disable, shutdown, re-enable).
#include <gtest/gtest.h>

#include "bam/emu/emulated_controller.hpp"
#include "raw_host.hpp"

namespace {
using namespace bam;
using bam::test::raw_host;

TEST(EmuHandshake, CapabilitiesReflectOptions) {
  emu::controller_options o;
  o.max_queue_entries = 65536;
  o.doorbell_stride = 2;
  o.timeout_500ms = 7;
  o.max_io_queue_pairs = 5;
  emu::emulated_controller c(o);
  const nvme::cap_register cap{c.bar().read64(nvme::reg::cap)};
  EXPECT_EQ(cap.max_queue_entries(), 65536u);
  EXPECT_TRUE(cap.contiguous_queues_required());
  EXPECT_EQ(cap.dstrd(), 2u);
  EXPECT_EQ(cap.timeout_ms(), 3500u);
  EXPECT_TRUE(cap.nvm_command_set());
  EXPECT_EQ(cap.mps_min_log2(), 12u);
  EXPECT_GE(cap.mps_max_log2(), 12u);
  EXPECT_EQ(c.bar().read32(nvme::reg::vs), nvme::make_version(1, 4));
  EXPECT_EQ(c.bar().size(), bar_size_for(5, 2));
  EXPECT_EQ(c.bar().read32(nvme::reg::csts), 0u);
}

TEST(EmuHandshake, RejectsBadOptions) {
  emu::controller_options o;
  o.lba_size = 1024;
  EXPECT_THROW(emu::emulated_controller{o}, std::invalid_argument);
  o = {};
  o.max_queue_entries = 65537;
  EXPECT_THROW(emu::emulated_controller{o}, std::invalid_argument);
  o = {};
  o.worker_threads = 0;
  EXPECT_THROW(emu::emulated_controller{o}, std::invalid_argument);
}

TEST(EmuHandshake, EnableDisableReenable) {
  emu::emulated_controller c;
  c.start();
  raw_host h(c);
  const auto s = h.enable();
  EXPECT_TRUE(s.ready());
  EXPECT_FALSE(s.fatal());
  // The admin queue works.
  nvme::command gf = test::admin_cmd(nvme::admin_opcode::get_features);
  gf.cdw10 = static_cast<std::uint32_t>(nvme::feature_id::number_of_queues);
  EXPECT_TRUE(h.admin(gf).status().ok());
  // EN 1 -> 0: RDY drops, doorbells reset.
  h.bar().write32(nvme::reg::cc, 0);
  h.wait_csts([](nvme::csts_register r) { return !r.ready(); });
  EXPECT_EQ(h.bar().read32(nvme::reg::sq_tail_doorbell(0, 0)), 0u);
  // Re-enable with fresh admin rings: the first command completes with phase 1 again.
  raw_host h2(c);
  EXPECT_TRUE(h2.enable().ready());
  const auto done = h2.admin(gf);
  EXPECT_TRUE(done.status().ok());
  EXPECT_TRUE(done.phase());
  EXPECT_EQ(done.sqhd, 1u);
}

TEST(EmuHandshake, InvalidEntrySizesGiveFatalStatus) {
  emu::emulated_controller c;
  c.start();
  raw_host h(c);
  nvme::cc_register cc = nvme::cc_register::make(true, 12);
  cc.raw = (cc.raw & ~(0xfu << 16)) | (7u << 16);  // IOSQES = 7 (128 bytes): unsupported
  const auto s = h.enable(cc);
  EXPECT_TRUE(s.fatal());
  EXPECT_FALSE(s.ready());
  // Reset clears CFS; a valid configuration then comes up.
  h.bar().write32(nvme::reg::cc, 0);
  h.wait_csts([](nvme::csts_register r) { return !r.fatal(); });
  raw_host h2(c);
  EXPECT_TRUE(h2.enable().ready());
}

TEST(EmuHandshake, PageSizeOutsideCapIsFatal) {
  emu::emulated_controller c;
  c.start();
  raw_host h(c);
  const auto s = h.enable(nvme::cc_register::make(true, 17));  // 128 KiB > MPSMAX 64 KiB
  EXPECT_TRUE(s.fatal());
  EXPECT_FALSE(s.ready());
}

TEST(EmuHandshake, AdminQueueOutsideDmaWindowIsFatal) {
  emu::emulated_controller c;
  c.start();
  const bar_ref bar = c.bar();
  alignas(4096) static nvme::command foreign[4];  // not allocated through c.allocator()
  test::raw_queue cq(c.allocator(), bar, 0, 0, 4, 4);
  bar.write32(nvme::reg::aqa, nvme::aqa_register::make(4, 4).raw);
  bar.write64(nvme::reg::asq, reinterpret_cast<std::uintptr_t>(foreign));
  bar.write64(nvme::reg::acq, cq.cq_bus());
  bar.write32(nvme::reg::cc, nvme::cc_register::make(true, 12).raw);
  raw_host h(c);
  const auto s = h.wait_csts([](nvme::csts_register r) { return r.ready() || r.fatal(); });
  EXPECT_TRUE(s.fatal());
}

TEST(EmuHandshake, ShutdownReportsComplete) {
  emu::emulated_controller c;
  c.start();
  raw_host h(c);
  ASSERT_TRUE(h.enable().ready());
  nvme::cc_register cc = nvme::cc_register::make(true, 12);
  cc.raw |= 1u << 14;  // SHN = normal
  h.bar().write32(nvme::reg::cc, cc.raw);
  const auto s = h.wait_csts([](nvme::csts_register r) { return r.shst() == 2; });
  EXPECT_EQ(s.shst(), 2u);
}

TEST(EmuHandshake, StopAndRestartKeepState) {
  emu::emulated_controller c;
  c.start();
  raw_host h(c);
  ASSERT_TRUE(h.enable().ready());
  c.stop();
  EXPECT_FALSE(c.running());
  c.start();
  nvme::command gf = test::admin_cmd(nvme::admin_opcode::get_features);
  gf.cdw10 = static_cast<std::uint32_t>(nvme::feature_id::number_of_queues);
  EXPECT_TRUE(h.admin(gf).status().ok());
}
}  // namespace
