// bam_queue_io.cpp: verified block I/O through bamkit's BaM queue pair on a real controller.
#include "bam_queue_io.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "bam/nvme/commands.hpp"
#include "bam/queue/queue_pair.hpp"

namespace bam::guest {

io_result bam_queue_extents(controller_driver& driver, dma_allocator& data, std::uint32_t entries,
                            unsigned threads, const std::vector<extent>& extents, bool write,
                            std::uint32_t block_size, std::uint64_t gen, std::uint64_t tag) {
  io_queue_pair qp = driver.create_io_queue_pair(entries);
  const io_result r = bam_queue_run(qp, data, threads, extents, write, block_size, gen, tag);
  qp.destroy();
  return r;
}

io_result bam_queue_run(io_queue_pair& qp, dma_allocator& data, unsigned threads,
                        const std::vector<extent>& extents, bool write, std::uint32_t block_size,
                        std::uint64_t gen, std::uint64_t tag) {
  const auto q = qp.ref<mmio_doorbell>();
  const std::uint64_t submitted_before = qp.queue().stats().submitted;
  dma_buffer buffers(data, std::size_t{threads} * max_extent_bytes);

  io_result total;
  std::mutex total_mutex;
  std::exception_ptr error;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      io_result res;
      try {
        const std::size_t off = std::size_t{t} * max_extent_bytes;
        auto* base = buffers.as<std::uint8_t>() + off;
        for (std::size_t i = t; i < extents.size(); i += threads) {
          const extent& e = extents[i];
          const std::uint32_t bytes = e.blocks * block_size;
          if (write) {
            for (std::uint32_t b = 0; b < e.blocks; ++b)
              stamp_block(base + std::size_t{b} * block_size, block_size, e.lba + b, gen, tag);
          } else {
            std::memset(base, 0, bytes);
          }
          nvme::prp_pair prp{buffers.bus_address(off),
                             bytes > 4096 ? buffers.bus_address(off + 4096) : 0};
          const auto cmd =
              write ? nvme::write(1, e.lba, e.blocks, prp) : nvme::read(1, e.lba, e.blocks, prp);
          const nvme::completion c = q.submit_and_wait(cmd);
          ++res.commands;
          res.blocks += e.blocks;
          if (!c.status().ok()) {
            ++res.bad_status;
            continue;
          }
          if (!write) {
            for (std::uint32_t b = 0; b < e.blocks; ++b)
              if (!check_block(base + std::size_t{b} * block_size, block_size, e.lba + b, gen, tag))
                ++res.bad_blocks;
          }
        }
      } catch (...) {
        std::lock_guard lock(total_mutex);
        error = std::current_exception();
      }
      std::lock_guard lock(total_mutex);
      total.commands += res.commands;
      total.blocks += res.blocks;
      total.bad_blocks += res.bad_blocks;
      total.bad_status += res.bad_status;
    });
  }
  for (auto& th : pool)
    th.join();
  const auto stats = qp.queue().stats();
  total.max_outstanding = threads;
  if (error) std::rethrow_exception(error);
  if (stats.submitted - submitted_before != extents.size())
    throw std::runtime_error("queue_pair counted a different number of submissions");
  return total;
}

bool host_io_verified(kmod_controller& kc, std::uint64_t lba0, std::uint64_t gen) {
  const std::uint32_t bs = kc.info().lba_size;
  const auto ext = random_extents(lba0, 256, max_extent_bytes / bs, gen);
  auto& data = kc.data_allocator();
  const auto w = bam_queue_extents(kc.driver(), data, 16, 4, ext, true, bs, gen, 5);
  const auto r = bam_queue_extents(kc.driver(), data, 16, 4, ext, false, bs, gen, 5);
  return w.bad_status == 0 && r.bad_status == 0 && r.bad_blocks == 0 && r.blocks == 256;
}

void disable_controller(const kmod_device& dev) {
  const bar_ref bar = dev.bar();
  bar.write32(nvme::reg::cc, bar.read32(nvme::reg::cc) & ~1u);
  for (int i = 0; i < 10000 && nvme::csts_register{bar.read32(nvme::reg::csts)}.ready(); ++i)
    ::usleep(1000);
}

}  // namespace bam::guest
