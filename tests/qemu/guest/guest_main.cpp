// guest_main.cpp: the test program that runs inside the QEMU guest (tests/qemu/README in
// scripts/qemu/run-test): drives QEMU's NVMe controllers through the bamkit module.
//   bam-guest full [quick]  (quick: a shorter raw-queue depth sweep)
//                       module ABI checks, bad arguments, bring-up, verified random I/O,
//                       queue depth sweep, on every /dev/bamkit-nvme*
//   bam-guest reverify  after unbind/rebind: the data of `full` is still there; short I/O
//   bam-guest orphan D  a process using device D dies by SIGKILL: pins released, controller off
//   bam-guest revoke D  device D is unbound while open: ioctls fail, BAR access faults
//   bam-guest security D  who may use device D: read-only descriptors, one owner, privileges
//                       (a child at uid 1000 without capabilities), RLIMIT_MEMLOCK, the
//                       mapping bound, UNMAP while the controller runs (security.hpp)
//   bam-guest fuzz D N  N random ioctls on device D from several threads, then verified I/O
//   bam-guest kill D N  N processes killed by SIGKILL in the middle of I/O on device D
//   bam-guest gpu       with the GPU-enabled module and tests/qemu/nv_p2p_fake: MAP_GPU
//   bam-guest gpu-absent  the GPU-enabled module without the provider: MAP_GPU gives ENOPKG
// Every check prints "ok ..." or "FAIL ..."; the exit status is the number of failures (max 100).
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bam/kmod/kmod_controller.hpp"
#include "bam/kmod/kmod_device.hpp"
#include "bam/kmod/kmod_host_allocator.hpp"
#include "bam/kmod/uapi.h"
#include "bam/nvme/commands.hpp"
#include "bam_queue_io.hpp"
#include "block_io.hpp"
#include "checks.hpp"
#include "fuzz.hpp"
#include "kill_io.hpp"
#include "raw_nvme.hpp"
#include "security.hpp"

using namespace bam;
using namespace bam::guest;

namespace {

/// Physical address of a resident page of this process (/proc/self/pagemap; needs root).
std::uint64_t physical_address(const void* p) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::uint64_t e = 0;
  const auto off = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(p) / 4096 * 8);
  const bool ok = ::pread(fd, &e, sizeof e, off) == static_cast<ssize_t>(sizeof e);
  ::close(fd);
  if (!ok || !(e >> 63)) return 0;
  return (e & ((1ull << 55) - 1)) * 4096;
}

/// Whether the kernel put the device behind an IOMMU (DMA remapping).
bool behind_iommu(const kmod_device& dev) {
  std::ifstream g("/sys/bus/pci/devices/" + dev.pci_address() + "/iommu_group/type");
  std::string type;
  return g >> type && type != "identity";
}

// ---------------------------------------------------------------------------------------------
// The module's interface: info, BAR0, argument validation.
// ---------------------------------------------------------------------------------------------
void check_interface(const kmod_device& dev) {
  const auto& info = dev.info();
  std::printf("device %s: pci %s vendor %04x device %04x bar0 %llu bytes gpu-support %d\n",
              dev.path().c_str(), dev.pci_address().c_str(), info.vendor, info.device,
              static_cast<unsigned long long>(info.bar_size), dev.gpu_mapping_supported() ? 1 : 0);
  check(info.vendor == 0x1b36 && info.device == 0x0010, "GET_INFO: QEMU NVMe vendor/device");
  check(info.bar_size >= 0x2000, "GET_INFO: BAR0 holds registers and doorbells");
  const nvme::cap_register cap{dev.bar().read64(nvme::reg::cap)};
  const std::uint32_t vs = dev.bar().read32(nvme::reg::vs);
  std::printf("  CAP %016llx VS %08x MQES+1 %u DSTRD %u TO %u ms\n",
              static_cast<unsigned long long>(cap.raw), vs, cap.max_queue_entries(), cap.dstrd(),
              cap.timeout_ms());
  check(vs >= nvme::make_version(1, 2) && cap.nvm_command_set(), "BAR0 mmap: CAP and VS readable");

  const int fd = dev.fd();
  const std::size_t bar = info.bar_size;
  const long pg = ::sysconf(_SC_PAGESIZE);
  expect_mmap_errno(fd, bar + pg, 0, MAP_SHARED, EINVAL, "mmap longer than BAR0");
  expect_mmap_errno(fd, pg, static_cast<off_t>(bar), MAP_SHARED, EINVAL,
                    "mmap at offset BAR0 size");
  expect_mmap_errno(fd, 2 * pg, static_cast<off_t>(bar - pg), MAP_SHARED, EINVAL,
                    "mmap crossing the end of BAR0");
  expect_mmap_errno(fd, pg, 0, MAP_PRIVATE, EINVAL, "mmap MAP_PRIVATE");
  {
    void* p = ::mmap(nullptr, pg, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(bar - pg));
    check(p != MAP_FAILED, "mmap of the last page of BAR0");
    if (p != MAP_FAILED) ::munmap(p, pg);
  }

  // Host mappings with bad arguments.
  void* mem = ::mmap(nullptr, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* ro = ::mmap(nullptr, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const auto addr = reinterpret_cast<std::uintptr_t>(mem);
  bamkit_map m{};
  m = {addr + 8, static_cast<__u64>(pg), 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EINVAL, "MAP_HOST unaligned address");
  m = {addr, 100, 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EINVAL, "MAP_HOST unaligned length");
  m = {addr, 0, 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EINVAL, "MAP_HOST zero length");
  m = {addr, 1ull << 40, 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EINVAL, "MAP_HOST length over the limit");
  m = {~0ull << 12, 2ull << 12, 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EINVAL, "MAP_HOST range wrapping around");
  m = {0xffff888000000000ull, static_cast<__u64>(pg), 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EFAULT, "MAP_HOST kernel address");
  ::munmap(reinterpret_cast<void*>(addr + 3 * pg), pg);
  m = {addr + 3 * pg, static_cast<__u64>(pg), 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EFAULT, "MAP_HOST unmapped memory");
  m = {addr, static_cast<__u64>(4 * pg), 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EFAULT, "MAP_HOST range with a hole");
  m = {reinterpret_cast<std::uintptr_t>(ro), static_cast<__u64>(pg), 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, &m, EFAULT, "MAP_HOST read-only memory");
  expect_errno(fd, BAMKIT_IOC_MAP_HOST, reinterpret_cast<void*>(8), EFAULT,
               "MAP_HOST argument pointer invalid");

  // A good mapping, then bad uses of its handle.
  m = {addr, static_cast<__u64>(3 * pg), 0, 0, 0};
  const bool mapped = ::ioctl(fd, BAMKIT_IOC_MAP_HOST, &m) == 0;
  check(mapped && m.handle != 0 && m.pages == 3 && m.page_shift == 12, "MAP_HOST 3 pages");
  std::uint64_t addrs[4] = {};
  bamkit_map_addrs a{m.handle, reinterpret_cast<std::uintptr_t>(addrs), 0, 3};
  check(::ioctl(fd, BAMKIT_IOC_MAP_GET_ADDRS, &a) == 0 && addrs[0] != 0 && addrs[1] != 0 &&
            addrs[2] != 0 && (addrs[0] & 0xfff) == 0,
        "MAP_GET_ADDRS returns page-aligned bus addresses");
  a = {m.handle, reinterpret_cast<std::uintptr_t>(addrs), 1, 2};
  check(::ioctl(fd, BAMKIT_IOC_MAP_GET_ADDRS, &a) == 0, "MAP_GET_ADDRS pages 1..2");
  a = {m.handle, reinterpret_cast<std::uintptr_t>(addrs), 2, 2};
  expect_errno(fd, BAMKIT_IOC_MAP_GET_ADDRS, &a, EINVAL, "MAP_GET_ADDRS past the end");
  a = {m.handle, reinterpret_cast<std::uintptr_t>(addrs), 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_GET_ADDRS, &a, EINVAL, "MAP_GET_ADDRS zero pages");
  a = {m.handle, 0x10, 0, 3};
  expect_errno(fd, BAMKIT_IOC_MAP_GET_ADDRS, &a, EFAULT, "MAP_GET_ADDRS bad output pointer");
  a = {m.handle + 1000, reinterpret_cast<std::uintptr_t>(addrs), 0, 1};
  expect_errno(fd, BAMKIT_IOC_MAP_GET_ADDRS, &a, EINVAL, "MAP_GET_ADDRS unknown handle");
  bamkit_unmap u{0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_UNMAP, &u, EINVAL, "UNMAP handle 0");
  u = {1ull << 40, 0, 0};
  expect_errno(fd, BAMKIT_IOC_UNMAP, &u, EINVAL, "UNMAP huge handle");
  u = {m.handle, 0, 0};
  check(::ioctl(fd, BAMKIT_IOC_UNMAP, &u) == 0, "UNMAP the mapping");
  expect_errno(fd, BAMKIT_IOC_UNMAP, &u, EINVAL, "UNMAP twice");
  // A mapping left for release() to clean up.
  m = {addr, static_cast<__u64>(pg), 0, 0, 0};
  check(::ioctl(fd, BAMKIT_IOC_MAP_HOST, &m) == 0, "MAP_HOST left mapped for close to release");

  bamkit_map g{0x7f0000000000ull, 1ull << 16, 0, 0, 0};
  expect_errno(fd, BAMKIT_IOC_MAP_GPU, &g, dev.gpu_mapping_supported() ? EINVAL : EOPNOTSUPP,
               "MAP_GPU without GPU support");
  expect_errno(fd, _IOWR(BAMKIT_IOC_MAGIC, 0x7f, bamkit_map), &g, ENOTTY, "unknown ioctl");
  expect_errno(fd, BAMKIT_IOC_GET_INFO, reinterpret_cast<void*>(8), EFAULT, "GET_INFO bad pointer");
  ::munmap(mem, 3 * pg);
  ::munmap(ro, pg);

  // The allocators on top: page-granular bus addresses, zero-filled memory, contiguous huge pages.
  kmod_host_allocator small(dev, false);
  {
    dma_buffer b(small, 5 * 4096 - 100);
    const auto& r = b.region();
    bool zero = true;
    for (std::size_t i = 0; i < r.size; ++i)
      zero = zero && b.as<unsigned char>()[i] == 0;
    check(r.size == 5 * 4096 && r.bus_pages.size() == 5 && zero && small.live_regions() == 1,
          "kmod_host_allocator: 5 zero-filled pages, one bus address each");
    // Without an IOMMU the bus address is the physical address; with one, an IOVA.
    bool all_physical = true, none_physical = true;
    for (std::size_t i = 0; i < 5; ++i) {
      const std::uint64_t phys = physical_address(b.as<char>() + i * 4096);
      all_physical = all_physical && phys != 0 && phys == r.bus_pages[i];
      none_physical = none_physical && phys != 0 && phys != r.bus_pages[i];
    }
    const bool iommu = behind_iommu(dev);
    std::printf("  page 0: bus %#llx physical %#llx, IOMMU %s\n",
                static_cast<unsigned long long>(r.bus_pages[0]),
                static_cast<unsigned long long>(physical_address(b.data())),
                iommu ? "translating" : "off/identity");
    check(iommu ? none_physical : all_physical,
          iommu ? "bus addresses are IOMMU addresses, not physical ones"
                : "bus addresses are the physical addresses (no IOMMU)");
  }
  check(small.live_regions() == 0, "kmod_host_allocator: free unmaps");
  kmod_host_allocator huge(dev, true);
  {
    dma_buffer b(huge, 128 * 1024);
    const auto& r = b.region();
    bool contiguous = r.bus_pages.size() == 512;
    for (std::size_t i = 1; contiguous && i < r.bus_pages.size(); ++i)
      contiguous = r.bus_pages[i] == r.bus_pages[0] + i * 4096;
    check(r.size == (2u << 20) && contiguous && r.bus_pages[0] % (2u << 20) == 0,
          "kmod_host_allocator (huge pages): 2 MiB contiguous on the bus");
  }
}

// ---------------------------------------------------------------------------------------------
// One controller under test.
// ---------------------------------------------------------------------------------------------
struct ctrl_under_test {
  std::unique_ptr<kmod_controller> kc;  // the nvme backend: module + controller driver
  std::uint64_t tag = 0;
  std::uint32_t block_size = 0;
  std::uint64_t blocks = 0;  // blocks under test
  controller_driver& driver() { return kc->driver(); }
  dma_allocator& data() { return kc->data_allocator(); }
  const std::string& path() const { return kc->device().path(); }
};

std::unique_ptr<ctrl_under_test> bring_up(const std::string& path) {
  auto c = std::make_unique<ctrl_under_test>();
  c->kc = std::make_unique<kmod_controller>(path);
  const controller_info& info = c->kc->info();
  c->block_size = info.lba_size;
  c->blocks = info.namespace_lbas;
  for (char ch : info.serial)
    c->tag = c->tag * 131 + static_cast<unsigned char>(ch);
  std::printf(
      "identify %s: model '%s' serial '%s' firmware '%s' nsze %llu lba %u B MQES+1 %u "
      "io-queue-pairs %u max-transfer %llu B CQR %d\n",
      path.c_str(), info.model.c_str(), info.serial.c_str(), info.firmware.c_str(),
      static_cast<unsigned long long>(info.namespace_lbas), info.lba_size, info.max_queue_entries,
      info.io_queue_pairs, static_cast<unsigned long long>(info.max_transfer_bytes),
      info.contiguous_queues_required ? 1 : 0);
  check(info.vid == 0x1b36 && info.model == "QEMU NVMe Ctrl" && info.namespace_lbas > 0 &&
            info.lba_size >= 512 && info.io_queue_pairs >= 4,
        "bring-up of " + path + " by controller_driver");
  return c;
}

/// Verified I/O of `extents` on a raw queue of `entries` entries, kept full by this thread, with
/// data in `buf` (at least entries - 1 slots of max_extent_bytes). Its qid is the controller's
/// last one: the driver hands out the lowest free ones.
io_result queue_io(ctrl_under_test& c, std::uint32_t entries, const std::vector<extent>& extents,
                   bool write, std::uint64_t gen, const dma_buffer& buf) {
  const auto qid = static_cast<std::uint16_t>(c.kc->info().io_queue_pairs);
  auto q = create_raw_queue(c.driver(), c.kc->ring_allocator(), c.kc->device().bar(), qid, entries);
  const auto r = run_extents(q, buf.region(), extents, write, c.block_size, gen, c.tag);
  delete_raw_queue(c.driver(), q);
  return r;
}

/// The same with a buffer of its own.
io_result queue_io(ctrl_under_test& c, std::uint32_t entries, const std::vector<extent>& extents,
                   bool write, std::uint64_t gen) {
  const dma_buffer buf(c.data(), std::size_t{entries - 1} * max_extent_bytes);
  return queue_io(c, entries, extents, write, gen, buf);
}

struct phase_total {
  std::atomic<std::uint64_t> commands{0}, blocks{0}, bad_blocks{0}, bad_status{0};
  void add(const io_result& r) {
    commands += r.commands;
    blocks += r.blocks;
    bad_blocks += r.bad_blocks;
    bad_status += r.bad_status;
  }
};

/// Random writes then reads through bamkit's BaM queue pair: on every controller at once, one
/// queue pair of `depth` entries shared by `threads` threads. Every block read is verified.
void random_phase(std::vector<std::unique_ptr<ctrl_under_test>>& ctrls, unsigned threads,
                  std::uint64_t gen, std::uint64_t blocks_per_ctrl, std::uint32_t depth,
                  const char* name) {
  for (const bool write : {true, false}) {
    phase_total total;
    std::vector<std::thread> pool;
    std::atomic<int> errors{0};
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t ci = 0; ci < ctrls.size(); ++ci) {
      pool.emplace_back([&, ci] {
        try {
          auto& c = *ctrls[ci];
          const std::uint64_t n = std::min(blocks_per_ctrl, c.blocks);
          const std::uint32_t max_blocks = max_extent_bytes / c.block_size;
          // Reads split the range differently from writes.
          const auto ext = random_extents(0, n, max_blocks, gen * 1000 + ci * 10 + write);
          total.add(bam_queue_extents(c.driver(), c.data(), depth, threads, ext, write,
                                      c.block_size, gen, c.tag));
        } catch (const std::exception& e) {
          std::printf("FAIL %s controller %zu: %s\n", name, ci, e.what());
          ++errors;
        }
      });
    }
    for (auto& th : pool)
      th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "%s %s (BaM queue pair, %u threads per controller, depth %u): %llu commands, "
        "%llu blocks in %.2f s: %.0f IOPS, %.0f blocks/s\n",
        name, write ? "write" : "read+verify", threads, depth,
        static_cast<unsigned long long>(total.commands),
        static_cast<unsigned long long>(total.blocks), s, static_cast<double>(total.commands) / s,
        static_cast<double>(total.blocks) / s);
    check(errors == 0 && total.bad_status == 0 && total.bad_blocks == 0,
          std::string(name) + (write ? " writes" : " reads: every block verified") + " (" +
              std::to_string(total.bad_blocks) + " bad blocks, " +
              std::to_string(total.bad_status) + " error statuses)");
    std::uint64_t expect = 0;
    for (auto& c : ctrls)
      expect += std::min(blocks_per_ctrl, c->blocks);
    check(total.blocks == expect, std::string(name) + (write ? ": wrote " : ": verified ") +
                                      std::to_string(total.blocks) + " blocks");
  }
}

/// The BaM queue pair at small depths with more threads than slots: submitters wait for
/// free slots (turn counters) while the ring wraps.
void bam_depth_sweep(ctrl_under_test& c, std::uint64_t first_lba, std::uint64_t gen) {
  std::vector<std::uint32_t> depths;
  for (std::uint32_t d = 2; d <= 32; ++d)
    depths.push_back(d);
  for (std::uint32_t d : {63u, 64u, 65u, 127u, 128u, 129u})
    depths.push_back(d);
  std::uint64_t bad = 0, commands = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint32_t depth : depths) {
    const unsigned threads = std::min(depth + 2, 10u);
    const auto ext = random_extents(first_lba, 3ull * depth + 7, 1, depth);
    const auto w = bam_queue_extents(c.driver(), c.data(), depth, threads, ext, true, c.block_size,
                                     gen + depth, c.tag);
    const auto r = bam_queue_extents(c.driver(), c.data(), depth, threads, ext, false, c.block_size,
                                     gen + depth, c.tag);
    commands += w.commands + r.commands;
    bad += w.bad_status + r.bad_status + r.bad_blocks + (r.blocks != ext.size() ? 1 : 0);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "BaM queue depth sweep %s: %zu depths (2..32, 63..65, 127..129), %llu commands in "
      "%.2f s\n",
      c.path().c_str(), depths.size(), static_cast<unsigned long long>(commands), s);
  check(bad == 0, "BaM queue depth sweep " + c.path() + ": every block verified");
}

/// I/O queue rings from a second allocator (create_io_queue_pair(entries, rings), what the GPU
/// path does with GPU memory): here a second pinned-host allocator. The controller gets the
/// rings' bus addresses from it, none from the driver's own ring allocator.
void second_ring_allocator(ctrl_under_test& c, std::uint64_t first_lba, std::uint64_t gen) {
  kmod_host_allocator rings(c.kc->device(), true);
  const std::size_t own_before = c.kc->ring_allocator().live_regions();
  const auto ext = random_extents(first_lba, 20000, max_extent_bytes / c.block_size, gen);
  io_result w, r;
  {
    io_queue_pair qp = c.driver().create_io_queue_pair(512, rings);
    check(rings.live_regions() == 2 && c.kc->ring_allocator().live_regions() == own_before,
          "rings from the second allocator " + c.path() +
              ": SQ and CQ there, none from the "
              "driver's");
    w = bam_queue_run(qp, c.data(), 6, ext, true, c.block_size, gen, c.tag);
    r = bam_queue_run(qp, c.data(), 6, ext, false, c.block_size, gen, c.tag);
    qp.destroy();
  }
  std::printf("second ring allocator %s: %llu commands, %llu blocks written and verified\n",
              c.path().c_str(), static_cast<unsigned long long>(w.commands + r.commands),
              static_cast<unsigned long long>(r.blocks));
  check(w.bad_status == 0 && r.bad_status == 0 && r.bad_blocks == 0 && r.blocks == 20000 &&
            rings.live_regions() == 0,
        "I/O through rings of the second allocator " + c.path() +
            ": every block verified, "
            "rings freed");
}

/// Depths to sweep: every depth 2..128, then every 61st depth, the powers of two and their
/// neighbours, up to the controller's maximum, which is always included.
std::vector<std::uint32_t> sweep_depths(std::uint32_t max, bool quick) {
  std::vector<std::uint32_t> d;
  if (quick) {  // every depth 2..16 and the largest ones
    for (std::uint32_t i = 2; i <= std::min(16u, max); ++i)
      d.push_back(i);
    for (std::uint32_t v : {max - 1, max})
      if (v > 16) d.push_back(v);
    return d;
  }
  for (std::uint32_t i = 2; i <= std::min(128u, max); ++i)
    d.push_back(i);
  for (std::uint32_t v = 129; v <= max; v += 61)
    d.push_back(v);
  for (std::uint32_t p = 256; p <= max; p *= 2) {
    d.push_back(p - 1);
    d.push_back(p);
    if (p + 1 <= max) d.push_back(p + 1);
  }
  if (max > 2) d.push_back(max - 1);
  d.push_back(max);
  std::sort(d.begin(), d.end());
  d.erase(std::unique(d.begin(), d.end()), d.end());
  return d;
}

/// The raw queue at every swept depth, kept full by one thread (deterministic ring wraps).
void depth_sweep(ctrl_under_test& c, std::uint64_t first_lba, std::uint64_t gen, bool quick) {
  const auto depths = sweep_depths(c.kc->info().max_queue_entries, quick);
  // One data buffer for every depth: the allocator keeps freed regions for reuse by size.
  const dma_buffer buf(c.data(), std::size_t{depths.back() - 1} * max_extent_bytes);
  std::uint64_t commands = 0, bad = 0;
  std::uint32_t deepest = 0;
  bool all_full = true;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint32_t depth : depths) {
    // Enough commands to wrap the ring at least once with the queue kept full.
    const std::uint64_t n = depth + depth / 2 + 7;
    const auto ext = random_extents(first_lba, n, 1, depth);
    const auto w = queue_io(c, depth, ext, true, gen + depth, buf);
    const auto r = queue_io(c, depth, ext, false, gen + depth, buf);
    commands += w.commands + r.commands;
    bad += w.bad_status + r.bad_status + r.bad_blocks + (r.blocks != n ? 1 : 0);
    all_full = all_full && w.max_outstanding == depth - 1;
    deepest = std::max(deepest, depth);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string list;
  for (std::uint32_t d : depths) {
    if (!list.empty()) list += ',';
    list += std::to_string(d);
  }
  if (list.size() > 60) list = list.substr(0, 28) + "..." + list.substr(list.size() - 28);
  std::printf("depth sweep %s: %zu depths (%s), %llu commands in %.2f s\n", c.path().c_str(),
              depths.size(), list.c_str(), static_cast<unsigned long long>(commands), s);
  check(bad == 0 && all_full && deepest == c.kc->info().max_queue_entries,
        "depth sweep " + c.path() + ": every depth verified with the queue full");
}

int run_full(bool quick) {
  const auto paths = kmod_device_paths();
  check(paths.size() == 2, "two controllers bound: " + std::to_string(paths.size()));
  for (const auto& p : paths) {
    kmod_device dev(p);
    check_interface(dev);
  }
  std::vector<std::unique_ptr<ctrl_under_test>> ctrls;
  for (const auto& p : paths)
    ctrls.push_back(bring_up(p));
  // 8 threads per controller on one queue pair, 128Ki blocks per controller: >= 100k blocks
  // written and verified.
  random_phase(ctrls, 8, 1, 131072, 1024, "random");
  std::vector<std::thread> pool;
  for (auto& c : ctrls)
    pool.emplace_back([&c, quick] {
      try {
        depth_sweep(*c, 200000, 100, quick);
        bam_depth_sweep(*c, 210000, 5000);
        second_ring_allocator(*c, 220000, 7000);
      } catch (const std::exception& e) {
        check(false, std::string("depth sweep: ") + e.what());
      }
    });
  for (auto& t : pool)
    t.join();
  return failures();
}

int run_reverify() {
  const auto paths = kmod_device_paths();
  check(paths.size() == 2, "two controllers bound again: " + std::to_string(paths.size()));
  std::vector<std::unique_ptr<ctrl_under_test>> ctrls;
  for (const auto& p : paths)
    ctrls.push_back(bring_up(p));
  // The generation written before the rebind is still there, block for block (sampled range).
  for (auto& c : ctrls) {
    const auto ext = random_extents(0, 16384, 16, 7);
    const auto r = queue_io(*c, 64, ext, false, 1);
    check(r.bad_blocks == 0 && r.bad_status == 0 && r.blocks == 16384,
          "after rebind " + c->path() + ": generation 1 data intact");
  }
  random_phase(ctrls, 8, 2, 16384, 32, "after-rebind");
  return failures();
}

/// A process that holds mappings and a running controller dies by SIGKILL: the module must
/// stop the controller and release every pin.
int run_orphan(const std::string& path) {
  const long long before = pins_held();
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      auto c = bring_up(path);
      auto q = c->driver().create_io_queue_pair(64);
      dma_buffer extra(c->data(), 1 << 20);
      std::printf("orphan child: controller running, %lld pages pinned, dying\n", pins_held());
      std::fflush(stdout);
      ::raise(SIGKILL);  // with everything still alive: the kernel cleans up
    } catch (const std::exception& e) {
      std::printf("FAIL orphan child: %s\n", e.what());
      std::fflush(stdout);
    }
    ::_exit(3);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  check(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "orphan: child killed");
  const long long after = pins_held();
  check(after == before, "orphan: pins released on process death (" + std::to_string(before) +
                             " before, " + std::to_string(after) + " after)");
  kmod_device dev(path);
  const std::uint32_t cc = dev.bar().read32(nvme::reg::cc);
  const std::uint32_t csts = dev.bar().read32(nvme::reg::csts);
  check((cc & 1) == 0 && (csts & 1) == 0, "orphan: controller disabled when its owner died");
  return failures();
}

std::string provider_live() {
  return read_first_line("/sys/module/nv_p2p_fake/parameters/live");
}

/// The GPU-enabled module loaded without the NVIDIA driver (nor its stand-in): it says so, and
/// MAP_GPU fails with ENOPKG instead of the module failing to load.
int run_gpu_absent() {
  const auto paths = kmod_device_paths();
  check(paths.size() == 2, "gpu-absent: two controllers bound to the GPU-enabled module");
  kmod_device dev(paths.at(0));
  check(dev.gpu_mapping_supported() && (dev.info().flags & BAMKIT_INFO_GPU_PROVIDER) == 0,
        "gpu-absent: GET_INFO reports GPU support built in, the NVIDIA driver not loaded");
  bamkit_map m{0x7f0000000000ull, 1ull << 16, 0, 0, 0};
  expect_errno(dev.fd(), BAMKIT_IOC_MAP_GPU, &m, ENOPKG,
               "gpu-absent: MAP_GPU without the NVIDIA driver loaded");
  return failures();
}

/// GPU mapping through the module built against nv-p2p, with the test's stand-in provider
/// (tests/qemu/nv_p2p_fake: "GPU memory" is huge-page-backed process memory). Data is read from
/// the SSD straight into the mapped range by the controller's DMA. UNMAP while the controller runs
/// is deferred; the free callback with the controller running cuts its bus mastering, which the
/// next owner's open turns back on.
int run_gpu() {
  const auto paths = kmod_device_paths();
  check(paths.size() == 2, "gpu: two controllers bound to the GPU-enabled module");
  constexpr std::size_t gpu_bytes = 2u << 20, gpu_page = 64u << 10;
  void* gpu = ::mmap(
      nullptr, gpu_bytes, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT), -1, 0);
  if (gpu == MAP_FAILED) throw std::runtime_error("gpu: no huge page for the stand-in GPU memory");
  const auto va = reinterpret_cast<std::uintptr_t>(gpu);
  std::string pci;
  {
    kmod_controller kc(paths.at(0));  // the owner; the controller runs
    const kmod_device& dev = kc.device();
    pci = dev.pci_address();
    check(dev.gpu_mapping_supported() && (dev.info().flags & BAMKIT_INFO_GPU_PROVIDER) != 0,
          "gpu: GET_INFO reports GPU support and the NVIDIA driver (stand-in) loaded");
    const int fd = dev.fd();
    bamkit_map m{va + 4096, gpu_page, 0, 0, 0};
    expect_errno(fd, BAMKIT_IOC_MAP_GPU, &m, EINVAL, "MAP_GPU address not 64 KiB aligned");
    m = {va, 4096, 0, 0, 0};
    expect_errno(fd, BAMKIT_IOC_MAP_GPU, &m, EINVAL, "MAP_GPU length not a multiple of 64 KiB");
    m = {va, 0, 0, 0, 0};
    expect_errno(fd, BAMKIT_IOC_MAP_GPU, &m, EINVAL, "MAP_GPU zero length");

    kmod_mapping g = dev.map_gpu(va, gpu_bytes);
    check(g.page_shift == 16 && g.bus_pages.size() == gpu_bytes / gpu_page,
          "MAP_GPU: 32 pages of 64 KiB");
    bool aligned = true;
    for (auto a : g.bus_pages)
      aligned = aligned && a % 4096 == 0;
    check(aligned, "MAP_GPU: page-aligned bus addresses");
    check(provider_live() == "1 1", "gpu: provider holds one page table and one DMA mapping");

    // SSD -> "GPU" by DMA: write stamped blocks from host memory, read them into GPU page 3.
    const std::uint32_t bs = kc.info().lba_size;
    const std::uint64_t lba0 = 250000;
    const std::uint32_t blocks = gpu_page / bs;
    const std::uint64_t tag = 77;
    auto qp = kc.driver().create_io_queue_pair(64);
    const auto q = qp.ref<mmio_doorbell>();
    dma_buffer host(kc.data_allocator(), gpu_page);
    for (std::uint32_t b = 0; b < blocks; ++b)
      stamp_block(host.as<std::uint8_t>() + std::size_t{b} * bs, bs, lba0 + b, 9, tag);
    const std::uint32_t per_cmd = 4096 / bs;
    bool ok = true;
    for (std::uint32_t k = 0; k < gpu_page / 4096; ++k)
      ok = ok && q.submit_and_wait(nvme::write(1, lba0 + k * per_cmd, per_cmd,
                                               {host.bus_address(std::size_t{k} * 4096), 0}))
                     .status()
                     .ok();
    std::memset(static_cast<char*>(gpu) + 3 * gpu_page, 0, gpu_page);
    // 8 KiB reads: PRP1 and PRP2 both inside the 64 KiB GPU page.
    for (std::uint32_t k = 0; k < gpu_page / 8192; ++k) {
      const std::uint64_t bus = g.bus_pages[3] + std::uint64_t{k} * 8192;
      ok = ok &&
           q.submit_and_wait(nvme::read(1, lba0 + k * 2 * per_cmd, 2 * per_cmd, {bus, bus + 4096}))
               .status()
               .ok();
    }
    std::uint32_t good = 0;
    for (std::uint32_t b = 0; b < blocks; ++b)
      good += check_block(static_cast<char*>(gpu) + 3 * gpu_page + std::size_t{b} * bs, bs,
                          lba0 + b, 9, tag)
                  ? 1
                  : 0;
    check(ok && good == blocks, "gpu: SSD data DMA'd into mapped GPU memory, " +
                                    std::to_string(good) + "/" + std::to_string(blocks) +
                                    " blocks verified");
    qp.destroy();

    // UNMAP with the controller running: the handle goes, the pages stay mapped.
    check(dev.unmap(g.handle) && provider_live() == "1 1",
          "gpu: UNMAP while the controller runs is deferred (provider still holds the pages)");
    std::uint64_t addrs[1] = {};
    bamkit_map_addrs ga{g.handle, reinterpret_cast<std::uintptr_t>(addrs), 0, 1};
    expect_errno(fd, BAMKIT_IOC_MAP_GET_ADDRS, &ga, EINVAL, "gpu: GET_ADDRS after UNMAP");

    // The GPU memory is freed under live mappings (one deferred, one mapped) with the controller
    // running: the callback cuts bus mastering and marks the mapping dead.
    kmod_mapping g2 = dev.map_gpu(va, gpu_bytes);
    check(provider_live() == "2 2", "gpu: a second mapping of the same memory");
    check(bus_master_on(pci), "gpu: bus mastering on before the free callback");
    std::ofstream("/sys/module/nv_p2p_fake/parameters/revoke") << "1" << std::flush;
    check(provider_live() == "0 0", "gpu: free callback released everything");
    check(!bus_master_on(pci), "gpu: free callback with the controller running cut bus mastering");
    ga = {g2.handle, reinterpret_cast<std::uintptr_t>(addrs), 0, 1};
    expect_errno(fd, BAMKIT_IOC_MAP_GET_ADDRS, &ga, ENXIO,
                 "gpu: GET_ADDRS after the free callback");
    check(!dev.unmap(g2.handle), "gpu: UNMAP after the free callback releases at once");
  }
  check(!bus_master_on(pci), "gpu: bus mastering stays off once the owner closed");
  {
    kmod_controller kc(paths.at(0));
    check(bus_master_on(pci), "gpu: the next owner's open turned bus mastering back on");
    check(host_io_verified(kc, 260000, 31), "gpu: verified I/O after bus mastering came back");
    // A deferred UNMAP is released once the controller is seen disabled.
    kmod_mapping g = kc.device().map_gpu(va, gpu_bytes);
    check(kc.device().unmap(g.handle) && provider_live() == "1 1", "gpu: UNMAP deferred");
    disable_controller(kc.device());
    g = kc.device().map_gpu(va, gpu_bytes);
    check(provider_live() == "1 1", "gpu: controller disabled: the deferred mapping released");
    check(!kc.device().unmap(g.handle) && provider_live() == "0 0",
          "gpu: UNMAP of a disabled controller releases at once");
  }

  // Mapped on both controllers, then the files are closed with the mappings alive.
  auto dev = std::make_unique<kmod_device>(paths.at(0));
  auto dev2 = std::make_unique<kmod_device>(paths.at(1));
  (void)dev->map_gpu(va, gpu_bytes);
  (void)dev2->map_gpu(va, gpu_bytes);
  check(provider_live() == "2 2", "gpu: one mapping per controller");
  dev.reset();
  dev2.reset();
  check(provider_live() == "0 0", "gpu: close released the GPU mappings");
  ::munmap(gpu, gpu_bytes);
  return failures();
}

sigjmp_buf fault_jump;
void on_sigbus(int) {
  siglongjmp(fault_jump, 1);
}

int run_revoke(const std::string& path) {
  kmod_device dev(path);
  kmod_host_allocator data(dev, false);
  dma_buffer buf(data, 8192);
  const std::string addr = dev.pci_address();
  check(dev.bar().read32(nvme::reg::vs) != 0, "revoke: BAR0 readable before unbind");
  {
    std::ofstream unbind("/sys/bus/pci/drivers/bamkit/unbind");
    unbind << addr << std::flush;
    check(static_cast<bool>(unbind), "revoke: unbind " + addr + " while open");
  }
  bamkit_info info{};
  expect_errno(dev.fd(), BAMKIT_IOC_GET_INFO, &info, ENODEV, "revoke: GET_INFO after unbind");
  struct sigaction sa {
  }, old{};
  sa.sa_handler = on_sigbus;
  ::sigaction(SIGBUS, &sa, &old);
  volatile bool faulted = false;
  if (sigsetjmp(fault_jump, 1) == 0) {
    (void)dev.bar().read32(nvme::reg::vs);
  } else {
    faulted = true;
  }
  ::sigaction(SIGBUS, &old, nullptr);
  check(faulted, "revoke: BAR0 access after unbind faults (SIGBUS)");
  expect_mmap_errno(dev.fd(), 4096, 0, MAP_SHARED, ENODEV, "revoke: mmap after unbind");
  return failures();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "full";
  try {
    int f = 0;
    if (mode == "full")
      f = run_full(argc > 2 && std::string(argv[2]) == "quick");
    else if (mode == "reverify")
      f = run_reverify();
    else if (mode == "gpu")
      f = run_gpu();
    else if (mode == "gpu-absent")
      f = run_gpu_absent();
    else if (mode == "orphan" && argc > 2)
      f = run_orphan(argv[2]);
    else if (mode == "revoke" && argc > 2)
      f = run_revoke(argv[2]);
    else if (mode == "security" && argc > 2)
      f = run_security(argv[2]);
    else if (mode == "fuzz" && argc > 3)
      f = run_fuzz(argv[2], std::stoull(argv[3]), 4);
    else if (mode == "kill" && argc > 3)
      f = run_kill(argv[2], static_cast<unsigned>(std::stoul(argv[3])));
    else {
      std::fprintf(stderr,
                   "usage: bam-guest full [quick] | reverify | orphan D | revoke D | security D |"
                   " fuzz D calls | kill D rounds | gpu | gpu-absent\n");
      return 100;
    }
    std::printf("bam-guest %s: %d failures\n", mode.c_str(), f);
    return std::min(f, 100);
  } catch (const std::exception& e) {
    std::printf("FAIL bam-guest %s: %s\n", mode.c_str(), e.what());
    return 100;
  }
}
