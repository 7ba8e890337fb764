// Stress: many host threads on several I/O queue pairs of odd sizes, served by several engine
// workers; every block read back must equal what its thread wrote, and the engine's command
// counts must be exact. Meant for the ThreadSanitizer build too.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"

namespace {
using namespace bam;

TEST(DriverStress, ThreadsOnOddSizedPairs) {
  emu::controller_options o;
  o.lba_size = 4096;
  o.namespace_lbas = 8192;
  o.worker_threads = 3;
  emu::emulated_controller ctrl(o);
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator());
  const std::uint32_t sizes[] = {2, 3, 7, 64, 738, 1024};
  std::vector<io_queue_pair> pairs;
  for (std::uint32_t s : sizes)
    pairs.push_back(drv.create_io_queue_pair(s));

  constexpr int threads = 12, rounds = 150;
  std::atomic<int> failures{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      const auto q = pairs[t % pairs.size()].ref();
      dma_buffer w(ctrl.allocator(), 4096), r(ctrl.allocator(), 4096);
      for (int k = 0; k < rounds; ++k) {
        const std::uint64_t lba = static_cast<std::uint64_t>(t) * rounds + k;
        for (std::size_t i = 0; i < 4096; i += 8) {
          const std::uint64_t v = lba * 0x9e3779b97f4a7c15ull + i;
          std::memcpy(w.as<std::uint8_t>() + i, &v, 8);
        }
        std::memset(r.data(), 0, 4096);
        bool ok = q.submit_and_wait(nvme::write(1, lba, 1, {w.bus_address(), 0})).status().ok();
        ok = ok && q.submit_and_wait(nvme::read(1, lba, 1, {r.bus_address(), 0})).status().ok();
        ok = ok && std::memcmp(w.data(), r.data(), 4096) == 0;
        if (k % 50 == 0) ok = ok && q.submit_and_wait(nvme::flush(1)).status().ok();
        if (!ok) failures.fetch_add(1);
      }
    });
  for (auto& t : ts)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  const auto st = ctrl.stats();
  EXPECT_EQ(st.io_commands[static_cast<int>(nvme::nvm_opcode::write)], threads * rounds);
  EXPECT_EQ(st.io_commands[static_cast<int>(nvme::nvm_opcode::read)], threads * rounds);
  EXPECT_EQ(st.io_commands[static_cast<int>(nvme::nvm_opcode::flush)], threads * (rounds / 50));
  EXPECT_EQ(st.errors, 0u);
  EXPECT_EQ(st.invalid_doorbells, 0u);
  pairs.clear();
  drv.shutdown();
}
}  // namespace
