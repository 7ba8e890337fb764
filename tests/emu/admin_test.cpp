// Emulated controller: admin commands (Identify, Features, Log Pages, queue creation/deletion and
// their exact error statuses).
#include <gtest/gtest.h>

#include <string>

#include "bam/emu/emulated_controller.hpp"
#include "raw_host.hpp"

namespace {
using namespace bam;
using test::admin_cmd;
using test::create_cq_cmd;
using test::create_sq_cmd;
using test::delete_cmd;
using test::raw_host;
using test::raw_queue;
namespace sc = nvme::sc;
using op = nvme::admin_opcode;

struct EmuAdmin : ::testing::Test {
  emu::controller_options opts() {
    emu::controller_options o;
    o.max_queue_entries = 64;
    o.max_io_queue_pairs = 8;
    o.lba_size = 4096;
    o.namespace_lbas = 1000;
    o.mdts = 3;
    o.model = "test model";
    o.serial = "SN123";
    o.firmware = "fw1";
    return o;
  }
  emu::emulated_controller ctrl{opts()};
  std::unique_ptr<raw_host> host;
  void SetUp() override {
    ctrl.start();
    host = std::make_unique<raw_host>(ctrl);
    ASSERT_TRUE(host->enable().ready());
  }
  nvme::status run(const nvme::command& c) { return host->admin(c).status(); }
  dma_buffer buffer(std::size_t bytes) { return dma_buffer(ctrl.allocator(), bytes); }
};

std::string trimmed(const char* p, std::size_t n) {
  std::string s(p, n);
  return s.substr(0, s.find_last_not_of(' ') + 1);
}

TEST_F(EmuAdmin, IdentifyController) {
  dma_buffer buf = buffer(4096);
  nvme::command c = admin_cmd(op::identify);
  c.cdw10 = static_cast<std::uint32_t>(nvme::identify_cns::controller);
  c.prp1 = buf.bus_address();
  ASSERT_EQ(run(c), sc::success);
  const auto& id = *buf.as<nvme::identify_controller>();
  EXPECT_EQ(trimmed(id.mn, sizeof(id.mn)), "test model");
  EXPECT_EQ(trimmed(id.sn, sizeof(id.sn)), "SN123");
  EXPECT_EQ(trimmed(id.fr, sizeof(id.fr)), "fw1");
  EXPECT_EQ(id.mn[39], ' ');
  EXPECT_EQ(id.mdts, 3u);
  EXPECT_EQ(id.ver, nvme::make_version(1, 4));
  EXPECT_EQ(id.sqes, 0x66u);
  EXPECT_EQ(id.cqes, 0x44u);
  EXPECT_EQ(id.nn, 1u);
  EXPECT_EQ(id.oncs,
            nvme::identify_controller::oncs_write_zeroes | nvme::identify_controller::oncs_dsm);
  EXPECT_EQ(id.vwc & 1u, 1u);
  EXPECT_EQ(id.vid, 0xffffu);
}

TEST_F(EmuAdmin, IdentifyControllerAcrossTwoPages) {
  // PRP1 with an offset: the 4096 bytes span two pages, PRP2 is the second page.
  dma_buffer buf = buffer(8192);
  nvme::command c = admin_cmd(op::identify);
  c.cdw10 = static_cast<std::uint32_t>(nvme::identify_cns::controller);
  c.prp1 = buf.bus_address(256);
  c.prp2 = buf.bus_address(4096);
  ASSERT_EQ(run(c), sc::success);
  const auto* id = reinterpret_cast<const nvme::identify_controller*>(buf.as<std::uint8_t>() + 256);
  EXPECT_EQ(id->nn, 1u);
  EXPECT_EQ(id->sqes, 0x66u);
  EXPECT_EQ(trimmed(id->sn, sizeof(id->sn)), "SN123");
}

TEST_F(EmuAdmin, IdentifyNamespace) {
  dma_buffer buf = buffer(4096);
  nvme::command c = admin_cmd(op::identify);
  c.cdw10 = static_cast<std::uint32_t>(nvme::identify_cns::ns);
  c.nsid = 1;
  c.prp1 = buf.bus_address();
  ASSERT_EQ(run(c), sc::success);
  const auto& ns = *buf.as<nvme::identify_namespace>();
  EXPECT_EQ(ns.nsze, 1000u);
  EXPECT_EQ(ns.ncap, 1000u);
  EXPECT_EQ(ns.nuse, 1000u);
  EXPECT_EQ(ns.nlbaf, 0u);
  EXPECT_EQ(ns.flbas, 0u);
  EXPECT_EQ(ns.lbaf[0].lbads, 12u);
  EXPECT_EQ(ns.lba_size(), 4096u);

  c.nsid = 2;
  EXPECT_EQ(run(c), sc::invalid_namespace);
  c.nsid = 0;
  EXPECT_EQ(run(c), sc::invalid_namespace);
}

TEST_F(EmuAdmin, ActiveNamespaceList) {
  dma_buffer buf = buffer(4096);
  buf.as<std::uint32_t>()[0] = 77;
  nvme::command c = admin_cmd(op::identify);
  c.cdw10 = static_cast<std::uint32_t>(nvme::identify_cns::active_ns_list);
  c.prp1 = buf.bus_address();
  ASSERT_EQ(run(c), sc::success);
  EXPECT_EQ(buf.as<std::uint32_t>()[0], 1u);
  EXPECT_EQ(buf.as<std::uint32_t>()[1], 0u);
  c.nsid = 1;  // namespaces above 1: none
  ASSERT_EQ(run(c), sc::success);
  EXPECT_EQ(buf.as<std::uint32_t>()[0], 0u);
}

TEST_F(EmuAdmin, IdentifyUnknownCnsAndBadBuffer) {
  dma_buffer buf = buffer(4096);
  nvme::command c = admin_cmd(op::identify);
  c.cdw10 = 0x55;
  c.prp1 = buf.bus_address();
  EXPECT_EQ(run(c), sc::invalid_field);
  c.cdw10 = static_cast<std::uint32_t>(nvme::identify_cns::controller);
  alignas(4096) static std::uint8_t foreign[4096];
  c.prp1 = reinterpret_cast<std::uintptr_t>(foreign);
  EXPECT_EQ(run(c), sc::data_transfer_error);
}

TEST_F(EmuAdmin, NumberOfQueues) {
  nvme::command s = admin_cmd(op::set_features);
  s.cdw10 = static_cast<std::uint32_t>(nvme::feature_id::number_of_queues);
  s.cdw11 = (2u << 16) | 3u;  // 3 CQs, 4 SQs (0-based)
  auto done = host->admin(s);
  ASSERT_EQ(done.status(), sc::success);
  EXPECT_EQ(done.dw0, (2u << 16) | 3u);
  nvme::command g = admin_cmd(op::get_features);
  g.cdw10 = s.cdw10;
  done = host->admin(g);
  ASSERT_EQ(done.status(), sc::success);
  EXPECT_EQ(done.dw0, (2u << 16) | 3u);
  // Asking for more than the controller has: capped at max_io_queue_pairs (8).
  s.cdw11 = (100u << 16) | 100u;
  done = host->admin(s);
  ASSERT_EQ(done.status(), sc::success);
  EXPECT_EQ(done.dw0, (7u << 16) | 7u);
  s.cdw11 = 0xffffu;
  EXPECT_EQ(run(s), sc::invalid_field);
  // Ask for 2 of each: queue creation enforces the allocation.
  s.cdw11 = (1u << 16) | 1u;
  ASSERT_EQ(run(s), sc::success);
  raw_queue q(ctrl.allocator(), host->bar(), 0, 3, 4, 4);
  EXPECT_EQ(run(create_cq_cmd(3, 4, q.cq_bus())), sc::invalid_queue_id);
  EXPECT_EQ(run(create_cq_cmd(2, 4, q.cq_bus())), sc::success);
  // Changing the count while queues exist is a sequence error.
  EXPECT_EQ(run(s), sc::command_sequence_error);
  EXPECT_EQ(run(delete_cmd(op::delete_io_cq, 2)), sc::success);
}

TEST_F(EmuAdmin, UnsupportedFeatureAndOpcode) {
  nvme::command g = admin_cmd(op::get_features);
  g.cdw10 = 0x7e;
  EXPECT_EQ(run(g), sc::invalid_field);
  nvme::command aer{};
  aer.opcode = 0x0c;  // Asynchronous Event Request: not supported
  EXPECT_EQ(run(aer), sc::invalid_opcode);
  nvme::command c{};
  c.opcode = 0xc1;
  EXPECT_EQ(run(c), sc::invalid_opcode);
  EXPECT_EQ(ctrl.stats().admin_commands[0xc1], 1u);
}

TEST_F(EmuAdmin, LogPages) {
  dma_buffer buf = buffer(4096);
  std::memset(buf.data(), 0xaa, 4096);
  nvme::command c = admin_cmd(op::get_log_page);
  c.nsid = 0xffffffffu;
  c.cdw10 = static_cast<std::uint32_t>(nvme::log_page_id::smart_health) | ((512u / 4 - 1) << 16);
  c.prp1 = buf.bus_address();
  ASSERT_EQ(run(c), sc::success);
  const auto* p = buf.as<std::uint8_t>();
  EXPECT_EQ(p[0], 0u);  // no critical warning
  EXPECT_EQ(p[1] | (p[2] << 8), 313);
  EXPECT_EQ(p[3], 100u);
  EXPECT_EQ(p[511], 0u);
  EXPECT_EQ(p[512], 0xaau);  // nothing written past the requested length
  c.cdw10 = static_cast<std::uint32_t>(nvme::log_page_id::error_information) | (15u << 16);
  ASSERT_EQ(run(c), sc::success);
  EXPECT_EQ(p[0], 0u);
  EXPECT_EQ(p[63], 0u);
  c.cdw10 = 0x70;
  EXPECT_EQ(run(c), sc::invalid_log_page);
}

TEST_F(EmuAdmin, CreateQueueErrors) {
  raw_queue q(ctrl.allocator(), host->bar(), 0, 1, 64, 64);
  const std::uint64_t cq = q.cq_bus(), sq = q.sq_bus();
  EXPECT_EQ(run(create_cq_cmd(0, 16, cq)), sc::invalid_queue_id);
  EXPECT_EQ(run(create_cq_cmd(9, 16, cq)), sc::invalid_queue_id);    // > 8 allocated
  EXPECT_EQ(run(create_cq_cmd(1, 65, cq)), sc::invalid_queue_size);  // > MQES+1 = 64
  EXPECT_EQ(run(create_cq_cmd(1, 1, cq)), sc::invalid_queue_size);
  EXPECT_EQ(run(create_cq_cmd(1, 16, cq, /*contiguous=*/false)), sc::invalid_field);
  EXPECT_EQ(run(create_cq_cmd(1, 16, cq + 64)), sc::prp_offset_invalid);
  alignas(4096) static std::uint8_t foreign[4096];
  EXPECT_EQ(run(create_cq_cmd(1, 16, reinterpret_cast<std::uintptr_t>(foreign))),
            sc::data_transfer_error);
  // SQ before its CQ exists.
  EXPECT_EQ(run(create_sq_cmd(1, 16, sq, 1)), sc::invalid_cq);
  ASSERT_EQ(run(create_cq_cmd(1, 64, cq)), sc::success);
  EXPECT_EQ(run(create_cq_cmd(1, 64, cq)), sc::invalid_queue_id);  // exists
  EXPECT_EQ(run(create_sq_cmd(1, 16, sq, 0)), sc::invalid_cq);
  EXPECT_EQ(run(create_sq_cmd(1, 16, sq, 2)), sc::invalid_cq);
  EXPECT_EQ(run(create_sq_cmd(0, 16, sq, 1)), sc::invalid_queue_id);
  EXPECT_EQ(run(create_sq_cmd(1, 65, sq, 1)), sc::invalid_queue_size);
  EXPECT_EQ(run(create_sq_cmd(1, 16, sq, 1, false)), sc::invalid_field);
  ASSERT_EQ(run(create_sq_cmd(1, 64, sq, 1)), sc::success);
  EXPECT_EQ(run(create_sq_cmd(1, 64, sq, 1)), sc::invalid_queue_id);
  // Deletion: CQ with an SQ attached, unknown queues.
  EXPECT_EQ(run(delete_cmd(op::delete_io_cq, 1)), sc::invalid_queue_deletion);
  EXPECT_EQ(run(delete_cmd(op::delete_io_sq, 2)), sc::invalid_queue_id);
  EXPECT_EQ(run(delete_cmd(op::delete_io_sq, 0)), sc::invalid_queue_id);
  EXPECT_EQ(run(delete_cmd(op::delete_io_cq, 0)), sc::invalid_queue_id);
  EXPECT_EQ(run(delete_cmd(op::delete_io_sq, 1)), sc::success);
  EXPECT_EQ(run(delete_cmd(op::delete_io_sq, 1)), sc::invalid_queue_id);
  EXPECT_EQ(run(delete_cmd(op::delete_io_cq, 1)), sc::success);
  EXPECT_EQ(run(delete_cmd(op::delete_io_cq, 1)), sc::invalid_queue_id);
  const auto st = ctrl.stats();
  EXPECT_EQ(st.admin_commands[static_cast<int>(op::create_io_cq)], 9u);
  EXPECT_GE(st.errors, 20u);
}

TEST_F(EmuAdmin, AdminSqheadAndPhaseWrap) {
  // 16-entry admin queue: 40 commands wrap it twice; SQHD follows the fetch position.
  nvme::command g = admin_cmd(op::get_features);
  g.cdw10 = static_cast<std::uint32_t>(nvme::feature_id::volatile_write_cache);
  for (std::uint32_t i = 1; i <= 40; ++i) {
    const auto done = host->admin(g);
    EXPECT_EQ(done.status(), sc::success);
    EXPECT_EQ(done.sqhd, i % 16);
    EXPECT_EQ(done.sqid, 0u);
    EXPECT_EQ(done.phase(), ((i - 1) / 16) % 2 == 0);
  }
}
}  // namespace
