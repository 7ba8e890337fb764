// Emulated controller: NVM I/O commands through raw I/O queues (data round trips, PRP lists,
// every I/O error status, phase tags across wraps, SQHD, a full CQ, several workers).
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "bam/emu/emulated_controller.hpp"
#include "raw_host.hpp"

namespace {
using namespace bam;
using test::io_cmd;
using test::raw_host;
using test::raw_queue;
namespace sc = nvme::sc;
using nop = nvme::nvm_opcode;

emu::controller_options small_options(std::uint32_t lba_size = 512, std::uint32_t workers = 1) {
  emu::controller_options o;
  o.lba_size = lba_size;
  o.namespace_lbas = 4096;
  o.worker_threads = workers;
  o.max_io_queue_pairs = 16;
  return o;
}

/// A data buffer with its PRPs (PRP list in a separate page when it spans > 2 pages).
struct io_buffer {
  dma_buffer data;
  dma_buffer list;
  std::uint64_t prp1 = 0, prp2 = 0;
  io_buffer(dma_allocator& a, std::size_t bytes, std::size_t offset = 0)
      : data(a, bytes + offset), list(a, 4096) {
    prp1 = data.bus_address(offset);
    const std::size_t first = 4096 - offset % 4096;
    if (bytes <= first) return;
    const std::size_t rest_pages = (bytes - first + 4095) / 4096;
    if (rest_pages == 1) {
      prp2 = data.bus_address(offset + first);
      return;
    }
    for (std::size_t i = 0; i < rest_pages; ++i)
      list.as<std::uint64_t>()[i] = data.bus_address(offset + first + i * 4096);
    prp2 = list.bus_address();
  }
  std::uint8_t* bytes(std::size_t offset = 0) { return data.as<std::uint8_t>() + offset; }
};

void fill_pattern(std::uint8_t* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = 0; i < n; ++i)
    p[i] = static_cast<std::uint8_t>((i * 131 + seed * 7) >> 1);
}

struct EmuIo : ::testing::Test {
  void bring_up(emu::controller_options o) {
    ctrl = std::make_unique<emu::emulated_controller>(std::move(o));
    ctrl->start();
    host = std::make_unique<raw_host>(*ctrl);
    ASSERT_TRUE(host->enable().ready());
  }
  nvme::command rw(nop op, std::uint64_t slba, std::uint32_t nlb, const io_buffer& b) {
    nvme::command c = io_cmd(op, slba, nlb);
    c.prp1 = b.prp1;
    c.prp2 = b.prp2;
    return c;
  }
  std::unique_ptr<emu::emulated_controller> ctrl;
  std::unique_ptr<raw_host> host;
};

TEST_F(EmuIo, WriteThenReadBackVariousShapes512) {
  bring_up(small_options(512));
  auto q = host->create_pair(1, 32);
  // (blocks, buffer offset): one block, one page, two pages, a PRP list, an unaligned start.
  const std::pair<std::uint32_t, std::size_t> shapes[] = {{1, 0},   {8, 0},     {16, 0}, {64, 0},
                                                          {9, 512}, {40, 1024}, {256, 0}};
  std::uint64_t lba = 0;
  std::uint32_t seed = 1;
  for (auto [nlb, offset] : shapes) {
    const std::size_t bytes = std::size_t{nlb} * 512;
    io_buffer w(ctrl->allocator(), bytes, offset), r(ctrl->allocator(), bytes, offset);
    fill_pattern(w.bytes(offset), bytes, seed++);
    ASSERT_EQ(q->run(rw(nop::write, lba, nlb, w)).status(), sc::success) << nlb;
    ASSERT_EQ(q->run(rw(nop::read, lba, nlb, r)).status(), sc::success) << nlb;
    EXPECT_EQ(std::memcmp(w.bytes(offset), r.bytes(offset), bytes), 0) << nlb;
    lba += nlb;
  }
  const auto st = ctrl->stats();
  EXPECT_EQ(st.io_commands[static_cast<int>(nop::write)], 7u);
  EXPECT_EQ(st.io_commands[static_cast<int>(nop::read)], 7u);
}

TEST_F(EmuIo, WriteThenReadBack4096AtMdts) {
  bring_up(small_options(4096));
  auto q = host->create_pair(1, 8);
  // MDTS 5: 128 KiB = 32 blocks of 4 KiB, a 31-entry PRP list.
  io_buffer w(ctrl->allocator(), 32 * 4096), r(ctrl->allocator(), 32 * 4096);
  fill_pattern(w.bytes(), 32 * 4096, 9);
  ASSERT_EQ(q->run(rw(nop::write, 100, 32, w)).status(), sc::success);
  ASSERT_EQ(q->run(rw(nop::read, 100, 32, r)).status(), sc::success);
  EXPECT_EQ(std::memcmp(w.bytes(), r.bytes(), 32 * 4096), 0);
  // Reading a shifted window sees the same data at the right place.
  io_buffer r2(ctrl->allocator(), 4096);
  ASSERT_EQ(q->run(rw(nop::read, 105, 1, r2)).status(), sc::success);
  EXPECT_EQ(std::memcmp(w.bytes(5 * 4096), r2.bytes(), 4096), 0);
  // One block more than MDTS: Invalid Field.
  io_buffer big(ctrl->allocator(), 33 * 4096);
  EXPECT_EQ(q->run(rw(nop::read, 0, 33, big)).status(), sc::invalid_field);
}

TEST_F(EmuIo, ErrorStatuses) {
  bring_up(small_options(512));
  auto q = host->create_pair(1, 16);
  io_buffer b(ctrl->allocator(), 8 * 512);
  nvme::command c = rw(nop::read, 0, 8, b);

  nvme::command bad = c;
  bad.opcode = 0x7f;
  EXPECT_EQ(q->run(bad).status(), sc::invalid_opcode);
  bad = c;
  bad.nsid = 2;
  EXPECT_EQ(q->run(bad).status(), sc::invalid_namespace);
  bad.nsid = 0;
  EXPECT_EQ(q->run(bad).status(), sc::invalid_namespace);
  bad.nsid = 0xffffffffu;  // broadcast is for Flush only
  EXPECT_EQ(q->run(bad).status(), sc::invalid_namespace);
  EXPECT_EQ(q->run(rw(nop::read, 4096, 1, b)).status(), sc::lba_out_of_range);
  EXPECT_EQ(q->run(rw(nop::write, 4090, 8, b)).status(), sc::lba_out_of_range);
  EXPECT_EQ(q->run(rw(nop::read, std::uint64_t{1} << 63, 8, b)).status(), sc::lba_out_of_range);
  EXPECT_EQ(q->run(rw(nop::read, 4088, 8, b)).status(), sc::success);  // the last 8 blocks
  // MDTS (128 KiB) exceeded: 257 blocks of 512 bytes.
  io_buffer big(ctrl->allocator(), 257 * 512);
  EXPECT_EQ(q->run(rw(nop::read, 0, 257, big)).status(), sc::invalid_field);
  // PRP1 not dword aligned.
  bad = c;
  bad.prp1 += 2;
  EXPECT_EQ(q->run(bad).status(), sc::prp_offset_invalid);
  // Two pages with PRP2 not page aligned.
  io_buffer two(ctrl->allocator(), 16 * 512);
  bad = rw(nop::read, 0, 16, two);
  bad.prp2 += 512;
  EXPECT_EQ(q->run(bad).status(), sc::prp_offset_invalid);
  // Data outside the DMA window (memory the controller was never given).
  alignas(4096) static std::uint8_t foreign[8192];
  bad = c;
  bad.prp1 = reinterpret_cast<std::uintptr_t>(foreign);
  EXPECT_EQ(q->run(bad).status(), sc::data_transfer_error);
  bad = rw(nop::read, 0, 16, two);
  bad.prp2 = reinterpret_cast<std::uintptr_t>(foreign);
  EXPECT_EQ(q->run(bad).status(), sc::data_transfer_error);
  // A PRP list outside the window, and a list entry outside the window.
  io_buffer three(ctrl->allocator(), 24 * 512);
  bad = rw(nop::write, 0, 24, three);
  bad.prp2 = reinterpret_cast<std::uintptr_t>(foreign);
  EXPECT_EQ(q->run(bad).status(), sc::data_transfer_error);
  three.list.as<std::uint64_t>()[1] = reinterpret_cast<std::uintptr_t>(foreign + 4096);
  EXPECT_EQ(q->run(rw(nop::write, 0, 24, three)).status(), sc::data_transfer_error);
  // Fused or SGL commands are not supported.
  bad = c;
  bad.flags = 1;
  EXPECT_EQ(q->run(bad).status(), sc::invalid_field);
  bad = c;
  bad.flags = 1u << 6;
  EXPECT_EQ(q->run(bad).status(), sc::invalid_field);
  // Freed memory leaves the window.
  {
    io_buffer gone(ctrl->allocator(), 512);
    bad = rw(nop::read, 0, 1, gone);
  }
  EXPECT_EQ(q->run(bad).status(), sc::data_transfer_error);
  const auto st = ctrl->stats();
  EXPECT_EQ(st.errors, 17u);
  EXPECT_EQ(st.io_commands[0x7f], 1u);
}

TEST_F(EmuIo, FlushNamespaces) {
  bring_up(small_options());
  auto q = host->create_pair(1, 4);
  nvme::command f = io_cmd(nop::flush);
  EXPECT_EQ(q->run(f).status(), sc::success);
  f.nsid = 0xffffffffu;
  EXPECT_EQ(q->run(f).status(), sc::success);
  f.nsid = 2;
  EXPECT_EQ(q->run(f).status(), sc::invalid_namespace);
  f.nsid = 0;
  EXPECT_EQ(q->run(f).status(), sc::invalid_namespace);
}

TEST_F(EmuIo, WriteZeroesAndDeallocate) {
  bring_up(small_options());
  auto q = host->create_pair(1, 8);
  io_buffer w(ctrl->allocator(), 64 * 512), r(ctrl->allocator(), 64 * 512);
  std::memset(w.bytes(), 0x5a, 64 * 512);
  ASSERT_EQ(q->run(rw(nop::write, 0, 64, w)).status(), sc::success);
  // Write Zeroes blocks 4..7.
  EXPECT_EQ(q->run(io_cmd(nop::write_zeroes, 4, 4)).status(), sc::success);
  EXPECT_EQ(q->run(io_cmd(nop::write_zeroes, 4095, 2)).status(), sc::lba_out_of_range);
  // Deallocate 10..11 and 30..39 with two ranges.
  dma_buffer ranges(ctrl->allocator(), 4096);
  auto* rg = ranges.as<nvme::dsm_range>();
  rg[0] = {0, 2, 10};
  rg[1] = {0, 10, 30};
  nvme::command dsm = io_cmd(nop::dataset_management);
  dsm.cdw10 = 1;        // two ranges, 0-based
  dsm.cdw11 = 1u << 2;  // AD
  dsm.cdw12 = 0;
  dsm.prp1 = ranges.bus_address();
  EXPECT_EQ(q->run(dsm).status(), sc::success);
  ASSERT_EQ(q->run(rw(nop::read, 0, 64, r)).status(), sc::success);
  for (std::uint32_t lba = 0; lba < 64; ++lba) {
    const bool zero = (lba >= 4 && lba < 8) || (lba >= 10 && lba < 12) || (lba >= 30 && lba < 40);
    EXPECT_EQ(r.bytes()[lba * 512], zero ? 0 : 0x5a) << lba;
    EXPECT_EQ(r.bytes()[lba * 512 + 511], zero ? 0 : 0x5a) << lba;
  }
  // A range past the end fails as a whole: nothing is deallocated.
  rg[0] = {0, 1, 50};
  rg[1] = {0, 2, 4095};
  EXPECT_EQ(q->run(dsm).status(), sc::lba_out_of_range);
  ASSERT_EQ(q->run(rw(nop::read, 0, 64, r)).status(), sc::success);
  EXPECT_EQ(r.bytes()[50 * 512], 0x5a);
  // Ranges that straddle a page boundary (PRP1 offset 4080: range 0 split over two pages).
  dma_buffer two(ctrl->allocator(), 8192);
  nvme::dsm_range split{0, 1, 60};
  std::memcpy(two.as<std::uint8_t>() + 4088, &split, sizeof(split));
  dsm.cdw10 = 0;
  dsm.prp1 = two.bus_address(4088);
  dsm.prp2 = two.bus_address(4096);
  EXPECT_EQ(q->run(dsm).status(), sc::success);
  ASSERT_EQ(q->run(rw(nop::read, 0, 64, r)).status(), sc::success);
  EXPECT_EQ(r.bytes()[60 * 512], 0u);
  EXPECT_EQ(r.bytes()[61 * 512], 0x5a);
  // Without AD the command is a hint: nothing changes.
  rg[0] = {0, 1, 0};
  dsm.prp1 = ranges.bus_address();
  dsm.prp2 = 0;
  dsm.cdw11 = 0;
  EXPECT_EQ(q->run(dsm).status(), sc::success);
  ASSERT_EQ(q->run(rw(nop::read, 0, 1, r)).status(), sc::success);
  EXPECT_EQ(r.bytes()[0], 0x5a);
}

TEST_F(EmuIo, PhaseFlipsAtEachWrapOfAThreeEntryQueue) {
  bring_up(small_options());
  auto q = host->create_pair(1, 3);
  io_buffer b(ctrl->allocator(), 512);
  for (std::uint32_t i = 1; i <= 10; ++i) {
    const auto done = q->run(rw(nop::read, i, 1, b));
    EXPECT_EQ(done.status(), sc::success);
    EXPECT_EQ(done.phase(), ((i - 1) / 3) % 2 == 0) << i;
    EXPECT_EQ(done.sqhd, i % 3) << i;
    EXPECT_EQ(done.sqid, 1u);
    EXPECT_EQ(done.cid, static_cast<std::uint16_t>(i - 1));
  }
}

TEST_F(EmuIo, SqheadFollowsFetchesOfABatch) {
  bring_up(small_options());
  auto q = host->create_pair(2, 8);
  io_buffer b(ctrl->allocator(), 512);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 5; ++i)
      q->push(rw(nop::read, 0, 1, b));
    q->ring();
    for (int i = 0; i < 5; ++i) {
      const auto done = q->wait();
      EXPECT_EQ(done.sqhd, (round * 5 + i + 1) % 8);
      EXPECT_EQ(done.sqid, 2u);
      EXPECT_EQ(done.cid, round * 5 + i);
    }
  }
}

TEST_F(EmuIo, FullCompletionQueueHoldsCommandsBack) {
  bring_up(small_options());
  raw_queue q(ctrl->allocator(), host->bar(), 0, 1, 8, 3);  // SQ 8 entries, CQ 3 (holds 2)
  ASSERT_EQ(host->admin(test::create_cq_cmd(1, 3, q.cq_bus())).status(), sc::success);
  ASSERT_EQ(host->admin(test::create_sq_cmd(1, 8, q.sq_bus(), 1)).status(), sc::success);
  io_buffer b(ctrl->allocator(), 512);
  for (int i = 0; i < 7; ++i)
    q.push(rw(nop::read, 0, 1, b));
  q.ring();
  // Wait until the controller has posted what fits, then give it time to (wrongly) post more.
  while (ctrl->stats().completions < 2 + 2)  // two admin commands, two reads
    std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ctrl->stats().io_commands[static_cast<int>(nop::read)], 2u);
  for (int i = 0; i < 7; ++i) {
    const auto done = q.wait();
    EXPECT_EQ(done.cid, i);
    EXPECT_EQ(done.status(), sc::success);
  }
  EXPECT_EQ(ctrl->stats().io_commands[static_cast<int>(nop::read)], 7u);
}

TEST_F(EmuIo, ManyQueuesOnSeveralWorkers) {
  bring_up(small_options(4096, 3));
  constexpr int queues = 6;
  std::vector<std::unique_ptr<raw_queue>> qs;
  for (int i = 1; i <= queues; ++i)
    qs.push_back(host->create_pair(static_cast<std::uint16_t>(i), 5));
  std::vector<std::unique_ptr<io_buffer>> w, r;
  for (int i = 0; i < queues * 4; ++i) {
    w.push_back(std::make_unique<io_buffer>(ctrl->allocator(), 2 * 4096));
    r.push_back(std::make_unique<io_buffer>(ctrl->allocator(), 2 * 4096));
    fill_pattern(w.back()->bytes(), 2 * 4096, static_cast<std::uint32_t>(i));
  }
  // Four 2-block writes per queue in flight at once, to disjoint LBAs.
  for (int i = 0; i < queues * 4; ++i)
    qs[i % queues]->push(rw(nop::write, i * 2u, 2, *w[i]));
  for (auto& q : qs)
    q->ring();
  for (auto& q : qs)
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(q->wait().status(), sc::success);
  for (int i = 0; i < queues * 4; ++i)
    qs[i % queues]->push(rw(nop::read, i * 2u, 2, *r[i]));
  for (auto& q : qs)
    q->ring();
  for (auto& q : qs)
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(q->wait().status(), sc::success);
  for (int i = 0; i < queues * 4; ++i)
    EXPECT_EQ(std::memcmp(w[i]->bytes(), r[i]->bytes(), 2 * 4096), 0) << i;
  EXPECT_EQ(ctrl->stats().io_commands[static_cast<int>(nop::write)], 24u);
  // Queues go away cleanly while the workers run.
  for (int i = queues; i >= 1; --i) {
    EXPECT_EQ(host->admin(test::delete_cmd(nvme::admin_opcode::delete_io_sq,
                                           static_cast<std::uint16_t>(i)))
                  .status(),
              sc::success);
    EXPECT_EQ(host->admin(test::delete_cmd(nvme::admin_opcode::delete_io_cq,
                                           static_cast<std::uint16_t>(i)))
                  .status(),
              sc::success);
  }
}

TEST_F(EmuIo, DoorbellStrideIsHonoured) {
  auto o = small_options();
  o.doorbell_stride = 3;
  bring_up(o);
  auto q = host->create_pair(3, 4);
  io_buffer w(ctrl->allocator(), 512), r(ctrl->allocator(), 512);
  fill_pattern(w.bytes(), 512, 3);
  ASSERT_EQ(q->run(rw(nop::write, 7, 1, w)).status(), sc::success);
  ASSERT_EQ(q->run(rw(nop::read, 7, 1, r)).status(), sc::success);
  EXPECT_EQ(std::memcmp(w.bytes(), r.bytes(), 512), 0);
  EXPECT_EQ(host->bar().read32(nvme::reg::sq_tail_doorbell(3, 3)), 2u);
}
TEST_F(EmuIo, DoorbellValuesOutsideTheQueueAreIgnored) {
  bring_up(small_options());
  auto q = host->create_pair(1, 4);
  io_buffer b(ctrl->allocator(), 512);
  q->push(rw(nop::read, 0, 1, b));
  host->bar().write32(nvme::reg::sq_tail_doorbell(1, 0), 4);  // == entries: invalid
  while (ctrl->stats().invalid_doorbells == 0)
    std::this_thread::yield();
  EXPECT_EQ(ctrl->stats().io_commands[static_cast<int>(nop::read)], 0u);
  EXPECT_FALSE(q->completion_ready());
  q->ring();  // the valid tail: the command runs
  EXPECT_EQ(q->wait().status(), sc::success);
  EXPECT_GT(ctrl->stats().doorbell_reads, 0u);
}
}  // namespace
