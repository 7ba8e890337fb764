// Controller driver against the host emulated controller: bring-up, identity, I/O queue pairs of
// odd sizes with data round trips, concurrent submitters, deletion, shutdown and error paths.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"

namespace {
using namespace bam;
namespace sc = nvme::sc;

emu::controller_options test_options() {
  emu::controller_options o;
  o.lba_size = 4096;
  o.namespace_lbas = 2048;
  o.max_queue_entries = 1024;
  o.max_io_queue_pairs = 12;
  o.worker_threads = 2;
  o.model = "driver test model";
  o.serial = "DRV42";
  o.firmware = "f1";
  return o;
}

/// Writes `blocks` 4 KiB blocks at `lba` through `q` and reads them back; true when equal.
template <class Ref>
bool round_trip(dma_allocator& alloc, Ref q, std::uint64_t lba, std::uint32_t blocks,
                std::uint32_t seed) {
  const std::size_t bytes = std::size_t{blocks} * 4096;
  dma_buffer w(alloc, bytes), r(alloc, bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    w.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(i * 13 + seed);
  // At most two pages per command here: PRP2 is the second page.
  const nvme::prp_pair pw{w.bus_address(), blocks > 1 ? w.bus_address(4096) : 0};
  const nvme::prp_pair pr{r.bus_address(), blocks > 1 ? r.bus_address(4096) : 0};
  if (!q.submit_and_wait(nvme::write(1, lba, blocks, pw)).status().ok()) return false;
  if (!q.submit_and_wait(nvme::read(1, lba, blocks, pr)).status().ok()) return false;
  return std::memcmp(w.data(), r.data(), bytes) == 0;
}

TEST(Driver, BringUpIdentifyShutdown) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  const controller_info& i = drv.info();
  EXPECT_EQ(i.model, "driver test model");
  EXPECT_EQ(i.serial, "DRV42");
  EXPECT_EQ(i.firmware, "f1");
  EXPECT_EQ(i.lba_size, 4096u);
  EXPECT_EQ(i.namespace_lbas, 2048u);
  EXPECT_EQ(i.max_transfer_bytes, 128u * 1024);
  EXPECT_EQ(i.max_queue_entries, 1024u);
  EXPECT_TRUE(i.contiguous_queues_required);
  EXPECT_EQ(i.io_queue_pairs, 12u);
  EXPECT_EQ(i.namespaces, 1u);
  EXPECT_EQ(i.version, nvme::make_version(1, 4));
  EXPECT_TRUE(nvme::csts_register{ctrl.bar().read32(nvme::reg::csts)}.ready());
  drv.shutdown();
  EXPECT_TRUE(drv.is_shut_down());
  EXPECT_EQ(nvme::csts_register{ctrl.bar().read32(nvme::reg::csts)}.shst(), 2u);
  EXPECT_THROW(drv.admin(nvme::get_features(nvme::feature_id::number_of_queues)),
               std::runtime_error);
  drv.shutdown();  // idempotent
  const auto st = ctrl.stats();
  EXPECT_EQ(st.admin_commands[static_cast<int>(nvme::admin_opcode::identify)], 2u);
  EXPECT_EQ(st.admin_commands[static_cast<int>(nvme::admin_opcode::set_features)], 1u);
}

TEST(Driver, ManyPairsOfOddSizes) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  const std::uint32_t sizes[] = {738, 3, 2, 1024, 5, 1000, 17};
  std::vector<io_queue_pair> pairs;
  std::set<std::uint16_t> qids;
  for (std::uint32_t s : sizes) {
    pairs.push_back(drv.create_io_queue_pair(s));
    EXPECT_EQ(pairs.back().entries(), s);
    EXPECT_EQ(pairs.back().ref().sq_entries(), s);
    qids.insert(pairs.back().qid());
  }
  EXPECT_EQ(qids.size(), std::size(sizes));
  EXPECT_EQ(*qids.begin(), 1u);
  EXPECT_EQ(*qids.rbegin(), std::size(sizes));
  // Enough round trips on each pair to wrap the small rings several times.
  for (std::size_t p = 0; p < pairs.size(); ++p)
    for (std::uint32_t k = 0; k < 8; ++k)
      ASSERT_TRUE(round_trip(ctrl.allocator(), pairs[p].ref(), p * 16 + k, 1 + k % 2,
                             static_cast<std::uint32_t>(p * 8 + k)))
          << "pair " << p << " round " << k;
  const auto before = ctrl.stats();
  EXPECT_EQ(before.admin_commands[static_cast<int>(nvme::admin_opcode::create_io_cq)],
            std::size(sizes));
  EXPECT_EQ(before.io_commands[static_cast<int>(nvme::nvm_opcode::write)], 8 * std::size(sizes));
  // Delete a pair in the middle: its qid is reused by the next creation.
  const std::uint16_t freed = pairs[2].qid();
  pairs[2].destroy();
  EXPECT_FALSE(pairs[2].valid());
  io_queue_pair again = drv.create_io_queue_pair(64);
  EXPECT_EQ(again.qid(), freed);
  EXPECT_TRUE(round_trip(ctrl.allocator(), again.ref(), 1000, 2, 7));
  pairs.clear();
  again.destroy();
  const auto after = ctrl.stats();
  EXPECT_EQ(after.admin_commands[static_cast<int>(nvme::admin_opcode::delete_io_sq)],
            std::size(sizes) + 1);
  EXPECT_EQ(after.admin_commands[static_cast<int>(nvme::admin_opcode::delete_io_cq)],
            std::size(sizes) + 1);
  EXPECT_EQ(after.errors, 0u);
  drv.shutdown();
}

TEST(Driver, ConcurrentSubmittersOnOneSmallPair) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  io_queue_pair pair = drv.create_io_queue_pair(5);
  constexpr int threads = 4, per_thread = 40;
  std::vector<std::thread> ts;
  std::atomic<int> bad{0};
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      for (int k = 0; k < per_thread; ++k)
        if (!round_trip(ctrl.allocator(), pair.ref(),
                        static_cast<std::uint64_t>(t * per_thread + k), 1,
                        static_cast<std::uint32_t>(t * 1000 + k)))
          bad.fetch_add(1);
    });
  for (auto& t : ts)
    t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(ctrl.stats().io_commands[static_cast<int>(nvme::nvm_opcode::read)],
            std::uint64_t{threads} * per_thread);
}

TEST(Driver, QueueSizeAboveMqesNamesTheStatus) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  try {
    drv.create_io_queue_pair(1025);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Invalid Queue Size"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Create I/O Completion Queue"), std::string::npos);
  }
  EXPECT_THROW(drv.create_io_queue_pair(1), std::runtime_error);  // controller: size < 2
  EXPECT_THROW(drv.create_io_queue_pair(0), std::invalid_argument);
  // The failed attempts gave their queue IDs back.
  io_queue_pair p = drv.create_io_queue_pair(2);
  EXPECT_EQ(p.qid(), 1u);
  EXPECT_TRUE(round_trip(ctrl.allocator(), p.ref(), 0, 1, 3));
}

TEST(Driver, RunningOutOfQueueIds) {
  auto o = test_options();
  o.max_io_queue_pairs = 3;
  emu::emulated_controller ctrl(o);
  ctrl.start();
  driver_options d;
  d.io_queue_pairs = 2;  // the controller allocates 2
  controller_driver drv(ctrl.bar(), ctrl.allocator(), d);
  EXPECT_EQ(drv.info().io_queue_pairs, 2u);
  io_queue_pair a = drv.create_io_queue_pair(4), b = drv.create_io_queue_pair(4);
  try {
    drv.create_io_queue_pair(4);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos) << e.what();
  }
}

TEST(Driver, NotReadyTimesOut) {
  auto o = test_options();
  o.timeout_500ms = 1;
  emu::emulated_controller ctrl(o);  // never started: nothing answers
  try {
    controller_driver drv(ctrl.bar(), ctrl.allocator());
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("did not become ready"), std::string::npos) << e.what();
  }
}

TEST(Driver, FatalStatusIsReported) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  host_identity_allocator foreign;  // memory the controller cannot reach: admin queue refused
  try {
    controller_driver drv(ctrl.bar(), foreign);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("CSTS.CFS"), std::string::npos) << e.what();
  }
}

TEST(Driver, SecondDriverResetsAndPairsOutliveShutdown) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  io_queue_pair survivor;
  {
    controller_driver first(ctrl.bar(), ctrl.allocator());
    survivor = first.create_io_queue_pair(8);
    EXPECT_TRUE(round_trip(ctrl.allocator(), survivor.ref(), 5, 2, 1));
  }  // shut down by the destructor: the pair sends nothing any more
  survivor.destroy();
  EXPECT_EQ(ctrl.stats().admin_commands[static_cast<int>(nvme::admin_opcode::delete_io_sq)], 0u);
  // A new driver resets the controller (RDY 1 -> 0 -> 1) and starts from a clean state.
  controller_driver second(ctrl.bar(), ctrl.allocator());
  io_queue_pair p = second.create_io_queue_pair(8);
  EXPECT_EQ(p.qid(), 1u);
  EXPECT_TRUE(round_trip(ctrl.allocator(), p.ref(), 5, 2, 2));
}
}  // namespace
