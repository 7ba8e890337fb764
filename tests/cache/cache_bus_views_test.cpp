// The host cache over controllers that see its memory at different bus addresses, as behind an
// IOMMU: the test allocator maps each region twice (one memory, two virtual aliases) and
// registers only alias d in controller d's DMA window, so an I/O built with another SSD's
// addresses fails. Each SSD must get its own PRP table and list pages (host_cache_storage with
// an allocator of devices() == SSDs); where the addresses agree, one table serves all.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/host_storage.hpp"
#include "host_rig.hpp"

namespace {

using bam::test::host_rig;

/// Two views of every region: controller 0 reaches alias 0, controller 1 alias 1. With
/// `honest` false it claims both controllers use alias 0 (the mistake the test must catch).
class aliased_allocator final : public bam::dma_allocator {
 public:
  aliased_allocator(host_rig& rig, bool honest) : rig_(rig), honest_(honest) {}
  ~aliased_allocator() override {
    for (auto& [a, e] : live_)
      drop(a, e);
  }

  bam::dma_region allocate(std::size_t bytes) override {
    const std::size_t size = (bytes + 4095) / 4096 * 4096;
    const int fd = ::memfd_create("bam-alias", 0);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) throw std::runtime_error("memfd");
    void* a = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    void* b = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (a == MAP_FAILED || b == MAP_FAILED) throw std::runtime_error("mmap");
    bam::dma_region r;
    r.vaddr = a;
    r.size = size;
    for (std::size_t off = 0; off < size; off += 4096)
      r.bus_pages.push_back(bus(a) + off);
    live_[a] = {b, size};
    rig_.controller(0).window().add(bus(a), size);
    rig_.controller(1).window().add(bus(b), size);
    return r;
  }
  void free(bam::dma_region& r) noexcept override {
    auto it = live_.find(r.vaddr);
    if (it == live_.end()) return;
    drop(it->first, it->second);
    live_.erase(it);
    r = {};
  }
  std::uint32_t page_size_log2() const override { return 12; }
  std::uint32_t devices() const override { return 2; }
  std::uint64_t device_bus_address(const bam::dma_region& r, std::size_t offset,
                                   std::uint32_t device) const override {
    const std::uint64_t base = device == 1 && honest_ ? bus(live_.at(r.vaddr).alias) : bus(r.vaddr);
    return base + offset;
  }

 private:
  struct entry {
    void* alias;
    std::size_t size;
  };
  static std::uint64_t bus(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
  void drop(void* a, const entry& e) noexcept {
    rig_.controller(0).window().remove(bus(a));
    rig_.controller(1).window().remove(bus(e.alias));
    ::munmap(a, e.size);
    ::munmap(e.alias, e.size);
  }

  host_rig& rig_;
  bool honest_;
  std::map<void*, entry> live_;
};

using hcache = bam::cache<bam::host_cache_storage>;
using harray = bam::array<std::uint64_t, hcache::ref_type>;

std::uint64_t value(std::uint64_t i) {
  return i * 0x9e3779b97f4a7c15ull + 7;
}

/// Writes every element of 64 lines through an 8-slot cache (evictions write back), flushes,
/// then reads them back through a fresh cache. Returns the I/O errors of both caches.
std::uint64_t write_and_read_back(host_rig& rig, bool honest, std::uint32_t line_bytes,
                                  std::uint64_t* bad) {
  aliased_allocator mem(rig, honest);
  bam::cache_config cc;
  cc.line_bytes = line_bytes;
  cc.slots = 8;
  cc.lines = 64;
  cc.io_timeout_ns = 2'000'000'000;
  const std::uint64_t n = cc.lines * line_bytes / 8;
  std::uint64_t errors = 0;
  {
    hcache c(cc, rig.ssds(), mem);
    // Different addresses: a table per SSD; the same ones (dishonest): one shared table.
    EXPECT_EQ(c.storage().prp_tables(), honest ? 2u : 1u);
    harray a(c.ref(), bam::range<std::uint64_t>{0, n});
    for (std::uint64_t i = 0; i < n; ++i)
      a.write(i, value(i));
    c.flush();
    const bam::cache_stats s = c.stats();
    errors += s.io_errors;
    if (honest) {
      EXPECT_EQ(s.bytes_written[0], 32u * line_bytes);  // striped by 64 KiB units: half each
      EXPECT_EQ(s.bytes_written[1], 32u * line_bytes);
    }
  }
  hcache c(cc, rig.ssds(), mem);
  harray a(c.ref(), bam::range<std::uint64_t>{0, n});
  *bad = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    *bad += a.read(i) != value(i) ? 1 : 0;
  errors += c.stats().io_errors;
  return errors;
}

TEST(CacheBusViews, EachSsdUsesItsOwnBusAddressesOfTheSlots) {
  for (std::uint32_t line : {4096u, 8192u, 16384u}) {  // PRP1 only, PRP1+PRP2, a PRP list
    host_rig rig(2, 2, 2048);
    std::uint64_t bad = 0;
    EXPECT_EQ(write_and_read_back(rig, true, line, &bad), 0u) << line;
    EXPECT_EQ(bad, 0u) << line;
    // SSD 1 holds the second 64 KiB stripe unit at LBA 0: check its first line on the media.
    std::vector<std::uint64_t> media(line / 8);
    rig.media_io(1, false, 0, line / 512, media.data());
    for (std::uint64_t k = 0; k < media.size(); ++k)
      ASSERT_EQ(media[k], value(bam::stripe_bytes / 8 + k)) << line << " element " << k;
  }
}

TEST(CacheBusViews, OneTableForBothSsdsFailsWhereTheyDiffer) {
  host_rig rig(2, 1, 2048);
  std::uint64_t bad = 0;
  EXPECT_GT(write_and_read_back(rig, false, 4096, &bad), 0u);
  EXPECT_GT(bad, 0u);
}

}  // namespace
