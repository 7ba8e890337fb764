// controller_driver::create_io_queue_pair(entries, rings): I/O queue rings from a second
// allocator (what the GPU path does with GPU memory), against the host emulated controller.
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/dma_window.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"

namespace {
using namespace bam;

emu::controller_options test_options() {
  emu::controller_options o;
  o.lba_size = 4096;
  o.namespace_lbas = 4096;
  o.max_queue_entries = 1024;
  o.max_io_queue_pairs = 8;
  o.worker_threads = 2;
  return o;
}

/// Forwards to another allocator and records what it handed out and took back.
class recording_allocator final : public dma_allocator {
 public:
  explicit recording_allocator(dma_allocator& base, std::uint32_t page_log2 = 12)
      : base_(&base), page_log2_(page_log2) {}
  dma_region allocate(std::size_t bytes) override {
    dma_region r = base_->allocate(bytes);
    std::lock_guard lock(mu_);
    allocated.push_back({r.vaddr, r.size, r.bus_address(0)});
    return r;
  }
  void free(dma_region& region) noexcept override {
    {
      std::lock_guard lock(mu_);
      ++frees;
    }
    base_->free(region);
  }
  std::uint32_t page_size_log2() const override { return page_log2_; }

  struct record {
    void* vaddr;
    std::size_t size;
    std::uint64_t bus;
  };
  std::vector<record> allocated;
  std::size_t frees = 0;

 private:
  dma_allocator* base_;
  std::uint32_t page_log2_;
  std::mutex mu_;
};

std::uint64_t admin_count(const emu::emulated_controller& c, nvme::admin_opcode op) {
  return c.stats().admin_commands[static_cast<int>(op)];
}

TEST(RingAllocator, RingsComeFromTheGivenAllocatorAndCarryTheIo) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  emu::window_allocator window_rings(ctrl.window());
  recording_allocator rings(window_rings);

  constexpr std::uint32_t entries = 256;
  io_queue_pair qp = drv.create_io_queue_pair(entries, rings);
  ASSERT_EQ(rings.allocated.size(), 2u);       // SQ then CQ, nothing else
  EXPECT_EQ(rings.allocated[0].size, 16384u);  // 256 x 64 B
  EXPECT_EQ(rings.allocated[1].size, 4096u);   // 256 x 16 B
  EXPECT_EQ(qp.queue().pointers().sq, rings.allocated[0].vaddr);
  EXPECT_EQ(qp.queue().pointers().cq, rings.allocated[1].vaddr);
  EXPECT_EQ(qp.qid(), 1u);

  // 4 threads x 40 writes then reads of their own blocks, each block stamped with its LBA.
  constexpr std::uint32_t threads = 4, per_thread = 40;
  std::vector<int> bad(threads, 0);
  std::vector<std::thread> ts;
  for (std::uint32_t t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      auto q = qp.ref();
      dma_buffer w(ctrl.allocator(), 4096), r(ctrl.allocator(), 4096);
      for (std::uint32_t i = 0; i < per_thread; ++i) {
        const std::uint64_t lba = std::uint64_t{t} * per_thread + i;
        for (std::uint32_t k = 0; k < 1024; ++k)
          w.as<std::uint32_t>()[k] = static_cast<std::uint32_t>(lba * 7919 + k);
        if (!q.submit_and_wait(nvme::write(1, lba, 1, {w.bus_address(), 0})).status().ok())
          ++bad[t];
      }
      for (std::uint32_t i = 0; i < per_thread; ++i) {
        const std::uint64_t lba = std::uint64_t{t} * per_thread + i;
        std::memset(r.data(), 0, 4096);
        if (!q.submit_and_wait(nvme::read(1, lba, 1, {r.bus_address(), 0})).status().ok()) ++bad[t];
        for (std::uint32_t k = 0; k < 1024; ++k)
          if (r.as<std::uint32_t>()[k] != static_cast<std::uint32_t>(lba * 7919 + k)) {
            ++bad[t];
            break;
          }
      }
    });
  }
  for (auto& t : ts)
    t.join();
  for (std::uint32_t t = 0; t < threads; ++t)
    EXPECT_EQ(bad[t], 0) << "thread " << t;
  EXPECT_EQ(ctrl.stats().io_commands[static_cast<int>(nvme::nvm_opcode::write)],
            threads * per_thread);

  // The controller fetched from and posted to exactly these rings: all 320 commands went
  // through the SQ (256 slots: wrapped once), and the CQ holds posted entries of queue 1.
  const auto* sq = static_cast<const nvme::command*>(rings.allocated[0].vaddr);
  const auto* cq = static_cast<const nvme::completion*>(rings.allocated[1].vaddr);
  std::uint32_t reads_in_sq = 0, posted = 0;
  for (std::uint32_t i = 0; i < entries; ++i) {
    if (sq[i].opcode == static_cast<std::uint8_t>(nvme::nvm_opcode::read)) ++reads_in_sq;
    if (cq[i].sqid == qp.qid() && cq[i].status().ok()) ++posted;
  }
  EXPECT_GE(reads_in_sq, 64u);  // the last 160 commands were reads
  EXPECT_EQ(posted, entries);   // 320 completions: every slot written at least once

  qp.destroy();
  EXPECT_EQ(rings.frees, 2u);
  EXPECT_EQ(admin_count(ctrl, nvme::admin_opcode::delete_io_sq), 1u);
}

TEST(RingAllocator, RingsOutsideTheControllersReachAreRefusedAndTheIdIsReleased) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  host_identity_allocator unreachable;  // not registered in the controller's DMA window
  recording_allocator rings(unreachable);
  try {
    (void)drv.create_io_queue_pair(64, rings);
    FAIL() << "expected the controller to refuse the CQ";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Create I/O Completion Queue failed: Data Transfer Error"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(rings.allocated.size(), 2u);
  EXPECT_EQ(rings.frees, 2u);  // both rings went back
  EXPECT_EQ(admin_count(ctrl, nvme::admin_opcode::create_io_cq), 1u);
  EXPECT_EQ(admin_count(ctrl, nvme::admin_opcode::create_io_sq), 0u);
  // Queue ID 1 was not kept: the next pair gets it.
  io_queue_pair qp = drv.create_io_queue_pair(64);
  EXPECT_EQ(qp.qid(), 1u);
}

TEST(RingAllocator, SmallPagesAreRefusedBeforeAnyCommand) {
  emu::emulated_controller ctrl(test_options());
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  emu::window_allocator window_rings(ctrl.window());
  recording_allocator rings(window_rings, 9);
  EXPECT_THROW((void)drv.create_io_queue_pair(64, rings), std::runtime_error);
  EXPECT_TRUE(rings.allocated.empty());
  EXPECT_EQ(admin_count(ctrl, nvme::admin_opcode::create_io_cq), 0u);
}

}  // namespace
