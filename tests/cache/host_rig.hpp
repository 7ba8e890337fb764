// Test rig for the host cache: N host emulated controllers, each brought up by the controller
// driver with Q I/O queue pairs, the host_ssd list the cache is built from, and raw NVMe I/O
// that reads and writes the media directly (bypassing the cache).
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "bam/cache/host_storage.hpp"
#include "bam/driver/controller_driver.hpp"
#include "bam/emu/dma_window.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/prp.hpp"

namespace bam::test {

class host_rig {
 public:
  host_rig(std::uint32_t ssds, std::uint32_t queues_per_ssd, std::uint64_t lbas,
           std::uint32_t lba_size = 512, std::uint32_t queue_entries = 256) {
    for (std::uint32_t d = 0; d < ssds; ++d) {
      emu::controller_options o;
      o.lba_size = lba_size;
      o.namespace_lbas = lbas;
      o.max_queue_entries = 1024;
      o.max_io_queue_pairs = 64;
      o.worker_threads = 1;
      ctrls_.push_back(std::make_unique<emu::emulated_controller>(o));
      ctrls_.back()->start();
      drivers_.push_back(
          std::make_unique<controller_driver>(ctrls_.back()->bar(), ctrls_.back()->allocator()));
      qps_.emplace_back();
      host_ssd s;
      s.lba_bytes = drivers_.back()->info().lba_size;
      s.lbas = drivers_.back()->info().namespace_lbas;
      for (std::uint32_t q = 0; q < queues_per_ssd; ++q) {
        qps_.back().push_back(drivers_.back()->create_io_queue_pair(queue_entries));
        s.queues.push_back(qps_.back().back().queue().pointers());
      }
      ssds_.push_back(s);
    }
    lba_size_ = lba_size;
  }

  const std::vector<host_ssd>& ssds() const { return ssds_; }
  /// Memory the cache's slots come from: the first controller's.
  dma_allocator& slot_memory() { return ctrls_[0]->allocator(); }
  emu::emulated_controller& controller(std::uint32_t d) { return *ctrls_[d]; }

  /// Lets every other controller reach the cache's slots and PRP lists.
  void share(const host_cache_storage& s) {
    for (std::size_t d = 1; d < ctrls_.size(); ++d) {
      for (const dma_region* r : {&s.slot_region(), &s.prp_region()}) {
        if (r->vaddr != nullptr) ctrls_[d]->window().add(r->bus_address(0), r->size);
      }
    }
  }

  /// Raw read/write of `nlb` blocks at `lba` of SSD `d` through its first queue pair.
  void media_io(std::uint32_t d, bool write, std::uint64_t lba, std::uint32_t nlb, void* data) {
    const std::size_t bytes = std::size_t{nlb} * lba_size_;
    dma_buffer buf(ctrls_[d]->allocator(), bytes);
    dma_buffer list(ctrls_[d]->allocator(), 4096 * 4);
    if (write) std::memcpy(buf.data(), data, bytes);
    nvme::prp_pair prp;
    std::uint32_t used = 0;
    const nvme::status st = nvme::build_prps(
        bytes, 12, [&](std::uint64_t off) { return buf.bus_address(off); },
        [&](std::uint32_t i) {
          used = i + 1;
          return nvme::prp_list_page{list.as<std::uint64_t>() + i * 512,
                                     list.bus_address(i * 4096)};
        },
        prp);
    if (!st.ok() || used > 4) throw std::runtime_error("media_io: PRPs");
    const nvme::command c = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
    const nvme::completion e = qps_[d][0].ref().submit_and_wait(c);
    if (!e.status().ok()) throw std::runtime_error("media_io: I/O failed");
    if (!write) std::memcpy(data, buf.data(), bytes);
  }

 private:
  std::vector<std::unique_ptr<emu::emulated_controller>> ctrls_;
  std::vector<std::unique_ptr<controller_driver>> drivers_;
  std::vector<std::vector<io_queue_pair>> qps_;
  std::vector<host_ssd> ssds_;
  std::uint32_t lba_size_ = 512;
};

}  // namespace bam::test
