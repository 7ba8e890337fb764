// PRP building and walking (bam/nvme/prp.hpp): boundaries, hand-computed encodings, chained lists,
// every error status, and build->walk round trips that check exact coverage of the transfer.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "bam/nvme/names.hpp"  // prints statuses in failure messages
#include "bam/nvme/prp.hpp"

namespace {
using namespace bam::nvme;

/// A simulated bus: the transfer's controller pages lie at arbitrary page-aligned bus addresses
/// (no memory behind them); PRP list pages are real memory registered at their bus addresses.
class fake_bus {
 public:
  fake_bus(std::uint32_t mps_log2, std::uint64_t first_offset, std::uint64_t bytes,
           std::uint64_t seed)
      : mps_log2_(mps_log2), page_(std::uint64_t{1} << mps_log2), first_offset_(first_offset) {
    const std::uint64_t pages = (first_offset + bytes + page_ - 1) >> mps_log2;
    std::mt19937_64 rng(seed);
    data_pages_.resize(pages);
    // Distinct page numbers, scattered, below 2^44 bytes of bus space.
    for (std::uint64_t i = 0; i < pages; ++i) {
      data_pages_[i] = ((rng() % (std::uint64_t{1} << (44 - mps_log2))) | 1) << mps_log2;
      data_pages_[i] ^= (i << mps_log2) & (std::uint64_t{0xffff} << mps_log2);
    }
  }
  std::uint64_t page() const { return page_; }
  std::uint64_t mask() const { return page_ - 1; }

  /// Bus address of transfer byte `offset`.
  std::uint64_t bus_at(std::uint64_t offset) const {
    const std::uint64_t pos = first_offset_ + offset;
    return data_pages_.at(pos >> mps_log2_) + (pos & mask());
  }
  /// The i-th list page; created on demand at a bus address in a range no data page uses.
  prp_list_page list_page(std::uint32_t i) {
    while (lists_.size() <= i) {
      const std::uint64_t bus = (std::uint64_t{1} << 50) + lists_.size() * page_ * 3;
      lists_.emplace_back(bus, std::vector<std::uint64_t>(page_ / 8, 0xdeadbeefdeadbeefull));
      by_bus_[bus] = lists_.size() - 1;
    }
    ++list_calls_;
    return prp_list_page{lists_[i].second.data(), lists_[i].first};
  }
  const std::uint64_t* read_list(std::uint64_t bus) const {
    auto it = by_bus_.find(bus & ~mask());
    if (it == by_bus_.end()) return nullptr;
    return lists_[it->second].second.data() + ((bus & mask()) >> 3);
  }
  std::vector<std::uint64_t>& list(std::size_t i) { return lists_.at(i).second; }
  std::size_t lists_created() const { return lists_.size(); }
  std::size_t list_calls() const { return list_calls_; }

 private:
  std::uint32_t mps_log2_;
  std::uint64_t page_;
  std::uint64_t first_offset_;
  std::vector<std::uint64_t> data_pages_;
  std::vector<std::pair<std::uint64_t, std::vector<std::uint64_t>>> lists_;
  std::map<std::uint64_t, std::size_t> by_bus_;
  std::size_t list_calls_ = 0;
};

struct piece {
  std::uint64_t bus, len, offset;
  bool operator==(const piece&) const = default;
};

status build(fake_bus& bus, std::uint64_t bytes, std::uint32_t mps_log2, prp_pair& out) {
  return build_prps(
      bytes, mps_log2, [&](std::uint64_t off) { return bus.bus_at(off); },
      [&](std::uint32_t i) { return bus.list_page(i); }, out);
}

status walk(const fake_bus& bus, const prp_pair& p, std::uint64_t bytes, std::uint32_t mps_log2,
            std::vector<piece>& pieces) {
  pieces.clear();
  return walk_prps(
      p.prp1, p.prp2, bytes, mps_log2, [&](std::uint64_t b) { return bus.read_list(b); },
      [&](std::uint64_t b, std::uint64_t len, std::uint64_t off) {
        pieces.push_back(piece{b, len, off});
      });
}

/// Every byte of the transfer visited exactly once, in order, at the right bus address, and no
/// piece crossing a controller page.
void expect_exact_coverage(const fake_bus& bus, const std::vector<piece>& pieces,
                           std::uint64_t bytes) {
  std::uint64_t next = 0;
  for (const piece& p : pieces) {
    ASSERT_EQ(p.offset, next);
    ASSERT_GT(p.len, 0u);
    ASSERT_LE(p.len, bus.page());
    ASSERT_LE((p.bus & bus.mask()) + p.len, bus.page());
    ASSERT_EQ(p.bus, bus.bus_at(p.offset));
    next += p.len;
  }
  ASSERT_EQ(next, bytes);
}

/// Builds, checks the number of list pages against prp_list_pages_needed, walks, checks coverage.
void round_trip(std::uint32_t mps_log2, std::uint64_t first_offset, std::uint64_t bytes,
                std::uint64_t seed = 1) {
  SCOPED_TRACE(testing::Message() << "mps_log2=" << mps_log2 << " offset=" << first_offset
                                  << " bytes=" << bytes);
  fake_bus bus(mps_log2, first_offset, bytes, seed);
  prp_pair p;
  ASSERT_EQ(build(bus, bytes, mps_log2, p), sc::success);
  const std::uint32_t lists = prp_list_pages_needed(bus.bus_at(0), bytes, mps_log2);
  EXPECT_EQ(bus.lists_created(), lists);
  EXPECT_EQ(bus.list_calls(), lists);
  EXPECT_EQ(p.prp1, bus.bus_at(0));
  const std::uint64_t pages = (first_offset + bytes + bus.page() - 1) >> mps_log2;
  if (pages <= 1) {
    EXPECT_EQ(p.prp2, 0u);
  }
  if (pages == 2) {
    EXPECT_EQ(p.prp2, bus.bus_at(bus.page() - first_offset));
  }
  std::vector<piece> pieces;
  ASSERT_EQ(walk(bus, p, bytes, mps_log2, pieces), sc::success);
  EXPECT_EQ(pieces.size(), pages);
  expect_exact_coverage(bus, pieces, bytes);
}

// ---- prp_list_pages_needed ------------------------------------------------------------------

TEST(PrpListPages, Counts) {
  constexpr std::uint32_t k4 = 12;
  EXPECT_EQ(prp_list_pages_needed(0, 0, k4), 0u);
  EXPECT_EQ(prp_list_pages_needed(0, 1, k4), 0u);
  EXPECT_EQ(prp_list_pages_needed(0, 4096, k4), 0u);
  EXPECT_EQ(prp_list_pages_needed(4, 4096, k4), 0u);  // two pages
  EXPECT_EQ(prp_list_pages_needed(0, 8192, k4), 0u);
  EXPECT_EQ(prp_list_pages_needed(0, 8193, k4), 1u);
  EXPECT_EQ(prp_list_pages_needed(4, 8192, k4), 1u);  // offset pushes it onto a third page
  EXPECT_EQ(prp_list_pages_needed(4092, 4100, k4), 0u);
  EXPECT_EQ(prp_list_pages_needed(4092, 4101, k4), 1u);
  // 513 pages: 512 entries fill one list page exactly; 514 pages need a chained second one.
  EXPECT_EQ(prp_list_pages_needed(0, 513 * 4096ull, k4), 1u);
  EXPECT_EQ(prp_list_pages_needed(0, 513 * 4096ull + 1, k4), 2u);
  // Two list pages hold 511 + 512 = 1023 entries (1024 pages), three begin at 1025 pages.
  EXPECT_EQ(prp_list_pages_needed(0, 1024 * 4096ull, k4), 2u);
  EXPECT_EQ(prp_list_pages_needed(0, 1025 * 4096ull, k4), 3u);
  // 2 MiB pages: 262144 entries per list page.
  EXPECT_EQ(prp_list_pages_needed(0, (262144ull + 1) << 21, 21), 1u);
  EXPECT_EQ(prp_list_pages_needed(0, ((262144ull + 1) << 21) + 1, 21), 2u);
  // 128 MiB pages.
  EXPECT_EQ(prp_list_pages_needed(0, std::uint64_t{3} << 27, 27), 1u);
  EXPECT_EQ(prp_list_pages_needed(0, std::uint64_t{2} << 27, 27), 0u);
  static_assert(prp_list_pages_needed(0, 3 * 4096, 12) == 1);
}

// ---- hand-computed encodings ----------------------------------------------------------------

TEST(PrpBuild, ZeroBytesIsEmpty) {
  prp_pair p{1, 2};
  int calls = 0;
  ASSERT_EQ(build_prps(
                0, 12,
                [&](std::uint64_t) {
                  ++calls;
                  return std::uint64_t{0x1000};
                },
                [&](std::uint32_t) {
                  ++calls;
                  return prp_list_page{};
                },
                p),
            sc::success);
  EXPECT_EQ(p.prp1, 0u);
  EXPECT_EQ(p.prp2, 0u);
  EXPECT_EQ(calls, 0);
  std::vector<piece> pieces;
  fake_bus bus(12, 0, 0, 1);
  EXPECT_EQ(walk(bus, prp_pair{3, 5}, 0, 12, pieces), sc::success);  // nothing checked, visited
  EXPECT_TRUE(pieces.empty());
}

TEST(PrpBuild, HandComputedContiguous) {
  // A physically contiguous buffer at bus 0x10000 + offset, 4 KiB pages.
  std::uint64_t list[512];
  const auto contiguous = [](std::uint64_t base) {
    return [base](std::uint64_t off) { return base + off; };
  };
  std::uint32_t list_calls = 0;
  const auto one_list = [&](std::uint32_t i) {
    ++list_calls;
    EXPECT_EQ(i, 0u);
    return prp_list_page{list, 0x9000};
  };
  prp_pair p;
  // One byte.
  ASSERT_EQ(build_prps(1, 12, contiguous(0x10000), one_list, p), sc::success);
  EXPECT_EQ(p.prp1, 0x10000u);
  EXPECT_EQ(p.prp2, 0u);
  // One page from an offset of 0x200: two pages, PRP2 = the next page.
  ASSERT_EQ(build_prps(4096, 12, contiguous(0x10200), one_list, p), sc::success);
  EXPECT_EQ(p.prp1, 0x10200u);
  EXPECT_EQ(p.prp2, 0x11000u);
  // 0x1e00 bytes from 0x10200 end exactly at 0x12000: still two pages.
  ASSERT_EQ(build_prps(0x1e00, 12, contiguous(0x10200), one_list, p), sc::success);
  EXPECT_EQ(p.prp2, 0x11000u);
  EXPECT_EQ(list_calls, 0u);
  // 16 KiB from 0x10200: pages 0x10000..0x14000, list = {0x11000, 0x12000, 0x13000, 0x14000}.
  ASSERT_EQ(build_prps(16384, 12, contiguous(0x10200), one_list, p), sc::success);
  EXPECT_EQ(p.prp1, 0x10200u);
  EXPECT_EQ(p.prp2, 0x9000u);
  EXPECT_EQ(list_calls, 1u);
  EXPECT_EQ(list[0], 0x11000u);
  EXPECT_EQ(list[1], 0x12000u);
  EXPECT_EQ(list[2], 0x13000u);
  EXPECT_EQ(list[3], 0x14000u);
  // 8 KiB pages (mps_log2 13), 20 KiB from 0x20004: pages at 0x20000, 0x22000, 0x24000.
  list_calls = 0;
  // (the list page must be 8 KiB aligned now: 0x9000 is not)
  EXPECT_EQ(build_prps(20480, 13, contiguous(0x20004), one_list, p), sc::prp_offset_invalid);
  list_calls = 0;
  const auto list_8k = [&](std::uint32_t) {
    ++list_calls;
    return prp_list_page{list, 0xa000};
  };
  ASSERT_EQ(build_prps(20480, 13, contiguous(0x20004), list_8k, p), sc::success);
  EXPECT_EQ(p.prp1, 0x20004u);
  EXPECT_EQ(p.prp2, 0xa000u);
  EXPECT_EQ(list[0], 0x22000u);
  EXPECT_EQ(list[1], 0x24000u);
  EXPECT_EQ(list_calls, 1u);
}

TEST(PrpBuild, ChainedListLayout) {
  // 4 KiB pages, 514 pages contiguous from 0: 513 entries = 511 in list 0, pointer, 2 in list 1.
  std::vector<std::uint64_t> l0(512, 0), l1(512, 0);
  prp_pair p;
  ASSERT_EQ(
      build_prps(
          514 * 4096ull, 12, [](std::uint64_t off) { return 0x100000 + off; },
          [&](std::uint32_t i) {
            return i == 0 ? prp_list_page{l0.data(), 0x7000} : prp_list_page{l1.data(), 0x3000};
          },
          p),
      sc::success);
  EXPECT_EQ(p.prp1, 0x100000u);
  EXPECT_EQ(p.prp2, 0x7000u);
  for (std::size_t i = 0; i < 511; ++i)
    ASSERT_EQ(l0[i], 0x100000 + (i + 1) * 4096) << i;
  EXPECT_EQ(l0[511], 0x3000u);  // chain pointer
  EXPECT_EQ(l1[0], 0x100000 + 512 * 4096u);
  EXPECT_EQ(l1[1], 0x100000 + 513 * 4096u);
  EXPECT_EQ(l1[2], 0u);  // untouched
}

TEST(PrpBuild, ListFillingAPageHasNoChain) {
  // 513 pages: 512 entries fill the list page, the last slot is a data entry.
  std::vector<std::uint64_t> l0(512, 0);
  prp_pair p;
  std::uint32_t calls = 0;
  ASSERT_EQ(build_prps(
                513 * 4096ull, 12, [](std::uint64_t off) { return 0x100000 + off; },
                [&](std::uint32_t) {
                  ++calls;
                  return prp_list_page{l0.data(), 0x7000};
                },
                p),
            sc::success);
  EXPECT_EQ(calls, 1u);
  EXPECT_EQ(l0[511], 0x100000 + 512 * 4096u);
}

TEST(PrpBuild, AcceptsPairLikeListPages) {
  std::uint64_t list[512];
  prp_pair p;
  ASSERT_EQ(build_prps(
                3 * 4096, 12, [](std::uint64_t off) { return 0x40000 + off; },
                [&](std::uint32_t) {
                  return std::pair<std::uint64_t*, std::uint64_t>{list, 0x5000};
                },
                p),
            sc::success);
  EXPECT_EQ(p.prp2, 0x5000u);
  EXPECT_EQ(list[0], 0x41000u);
  EXPECT_EQ(list[1], 0x42000u);
}

// ---- boundaries, round trips --------------------------------------------------------------

TEST(PrpRoundTrip, EveryBoundary) {
  for (std::uint32_t mps : {12u, 13u, 16u, 21u}) {
    const std::uint64_t page = std::uint64_t{1} << mps;
    for (std::uint64_t off : {std::uint64_t{0}, std::uint64_t{4}, page - 4}) {
      const std::uint64_t to_end = page - off;  // bytes left in the first page
      for (std::uint64_t bytes : {
               std::uint64_t{1}, std::uint64_t{4},
               to_end,                 // exactly the first page's rest
               to_end + 1,             // one byte onto page 2
               page,                   // exactly one page (from the offset)
               page + 1,               // page + 1
               to_end + page,          // exactly two pages
               to_end + page + 1,      // first list
               2 * page,               // two pages' worth
               2 * page + 1,           // two pages + 1 byte
               to_end + 5 * page - 7,  // a short list with a partial last page
           }) {
        round_trip(mps, off, bytes, mps * 1000 + off + bytes);
      }
    }
  }
}

TEST(PrpRoundTrip, ListFillsPageExactlyThenChains) {
  for (std::uint32_t mps : {12u, 13u, 16u, 21u}) {
    const std::uint64_t page = std::uint64_t{1} << mps;
    const std::uint64_t per_list = page / 8;
    for (std::uint64_t off : {std::uint64_t{0}, std::uint64_t{4}, page - 4}) {
      const std::uint64_t to_end = page - off;
      // PRP1 + per_list entries: one full list page.
      const std::uint64_t full = to_end + per_list * page;
      EXPECT_EQ(prp_list_pages_needed(off, full, mps), 1u);
      EXPECT_EQ(prp_list_pages_needed(off, full + 1, mps), 2u);
      round_trip(mps, off, full);
      round_trip(mps, off, full - 1);
      round_trip(mps, off, full + 1);  // one entry more: chaining
      if (mps <= 13) {
        // Two full chained pages, and one more (a third page).
        const std::uint64_t two = to_end + (2 * per_list - 1) * page;
        EXPECT_EQ(prp_list_pages_needed(off, two, mps), 2u);
        EXPECT_EQ(prp_list_pages_needed(off, two + 1, mps), 3u);
        round_trip(mps, off, two);
        round_trip(mps, off, two + 1);
        round_trip(mps, off, two + 5 * page + 3);
      }
    }
  }
}

TEST(PrpRoundTrip, RandomSizesAndOffsets) {
  std::mt19937_64 rng(20261122);
  for (int iter = 0; iter < 400; ++iter) {
    const std::uint32_t mps = std::array<std::uint32_t, 4>{12, 13, 16, 21}[iter % 4];
    const std::uint64_t page = std::uint64_t{1} << mps;
    const std::uint64_t off = (rng() % page) & ~std::uint64_t{3};
    const std::uint64_t max_pages = mps == 21 ? 40 : 1500;
    std::uint64_t bytes = 1 + rng() % (max_pages * page);
    if (iter % 5 == 0) bytes = 1 + rng() % (3 * page);  // bias towards the small cases
    round_trip(mps, off, bytes, rng());
  }
}

TEST(PrpRoundTrip, LargestPageSize) {
  round_trip(27, 4, 1);
  round_trip(27, 0, std::uint64_t{1} << 27);
  round_trip(27, (std::uint64_t{1} << 27) - 4, 8);
  round_trip(27, 64, std::uint64_t{5} << 27);
}

/// Real memory: a source buffer whose controller pages are scattered (permuted) over a pool,
/// host bus address = virtual address. Walking the PRPs and copying each piece must reproduce
/// the source byte for byte.
TEST(PrpRoundTrip, RandomBuffersCopyExactly) {
  std::mt19937_64 rng(7);
  for (std::uint32_t mps : {12u, 13u, 16u}) {
    const std::size_t page = std::size_t{1} << mps;
    const std::size_t pool_pages = (std::size_t{4} << 20) / page;  // 4 MiB
    struct free_deleter {
      void operator()(void* p) const { std::free(p); }
    };
    std::unique_ptr<std::uint8_t, free_deleter> pool(
        static_cast<std::uint8_t*>(std::aligned_alloc(page, pool_pages * page)));
    std::unique_ptr<std::uint64_t, free_deleter> lists(
        static_cast<std::uint64_t*>(std::aligned_alloc(page, 4 * page)));
    ASSERT_TRUE(pool);
    ASSERT_TRUE(lists);
    for (int iter = 0; iter < 16; ++iter) {
      std::vector<std::size_t> order(pool_pages);
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::shuffle(order.begin(), order.end(), rng);
      for (std::size_t i = 0; i < pool_pages * page; i += 8) {
        const std::uint64_t v = rng();
        std::memcpy(pool.get() + i, &v, 8);
      }
      const std::size_t off = (rng() % page) & ~std::size_t{3};
      const std::size_t bytes = 1 + rng() % (pool_pages * page - off);
      // Transfer byte x lives in pool page order[(off + x) / page].
      const auto addr_of = [&](std::uint64_t x) {
        const std::size_t pos = off + x;
        return reinterpret_cast<std::uint64_t>(pool.get() + order[pos / page] * page + pos % page);
      };
      prp_pair p;
      ASSERT_EQ(build_prps(
                    bytes, mps, addr_of,
                    [&](std::uint32_t i) {
                      std::uint64_t* v = lists.get() + i * (page / 8);
                      return prp_list_page{v, reinterpret_cast<std::uint64_t>(v)};
                    },
                    p),
                sc::success);
      std::vector<std::uint8_t> out(bytes, 0), expect(bytes);
      for (std::size_t x = 0; x < bytes; ++x) {
        expect[x] = *reinterpret_cast<const std::uint8_t*>(addr_of(x));
      }
      std::uint64_t next = 0;
      ASSERT_EQ(walk_prps(
                    p.prp1, p.prp2, bytes, mps,
                    [](std::uint64_t b) { return reinterpret_cast<const std::uint64_t*>(b); },
                    [&](std::uint64_t b, std::uint64_t len, std::uint64_t at) {
                      ASSERT_EQ(at, next);
                      std::memcpy(out.data() + at, reinterpret_cast<const void*>(b), len);
                      next += len;
                    }),
                sc::success);
      EXPECT_EQ(next, bytes);
      ASSERT_EQ(out, expect) << "mps " << mps << " off " << off << " bytes " << bytes;
    }
  }
}

// ---- walker specifics ----------------------------------------------------------------------

TEST(PrpWalk, ListPointerWithOffset) {
  // PRP2 points into the middle of a list page: entries run from there to the page end, then
  // the last slot chains to the next page.
  std::vector<std::uint64_t> l0(512, 0), l1(512, 0);
  const std::uint64_t l0_bus = 0x70000, l1_bus = 0x90000;
  // Slots 508..511 of l0: three data entries then a chain pointer; l1 holds the rest.
  l0[508] = 0x1000;
  l0[509] = 0x2000;
  l0[510] = 0x3000;
  l0[511] = l1_bus;
  l1[0] = 0x4000;
  l1[1] = 0x5000;
  const auto read = [&](std::uint64_t b) -> const std::uint64_t* {
    if ((b & ~0xfffull) == l0_bus) return l0.data() + ((b & 0xfff) >> 3);
    if ((b & ~0xfffull) == l1_bus) return l1.data() + ((b & 0xfff) >> 3);
    return nullptr;
  };
  std::vector<piece> got;
  const auto visit = [&](std::uint64_t b, std::uint64_t len, std::uint64_t off) {
    got.push_back(piece{b, len, off});
  };
  // PRP1 = 0x800 (0x800 bytes), then 5 pages, the last partial (100 bytes).
  const std::uint64_t bytes = 0x800 + 4 * 4096 + 100;
  ASSERT_EQ(walk_prps(0x800, l0_bus + 508 * 8, bytes, 12, read, visit), sc::success);
  const std::vector<piece> want{{0x800, 0x800, 0},      {0x1000, 4096, 0x800},
                                {0x2000, 4096, 0x1800}, {0x3000, 4096, 0x2800},
                                {0x4000, 4096, 0x3800}, {0x5000, 100, 0x4800}};
  EXPECT_EQ(got, want);
  // When exactly one entry remains at the last slot, it is data, not a chain pointer.
  got.clear();
  l0[511] = 0x6000;
  ASSERT_EQ(walk_prps(0x800, l0_bus + 508 * 8, 0x800 + 3 * 4096 + 1, 12, read, visit), sc::success);
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got.back(), (piece{0x6000, 1, 0x800 + 3 * 4096}));
}

TEST(PrpWalk, TwoPageTransferIgnoresLists) {
  std::vector<piece> got;
  int reads = 0;
  ASSERT_EQ(walk_prps(
                0xffc, 0x5000, 4 + 4096, 12,
                [&](std::uint64_t) -> const std::uint64_t* {
                  ++reads;
                  return nullptr;
                },
                [&](std::uint64_t b, std::uint64_t len, std::uint64_t off) {
                  got.push_back(piece{b, len, off});
                }),
            sc::success);
  EXPECT_EQ(reads, 0);
  const std::vector<piece> want{{0xffc, 4, 0}, {0x5000, 4096, 4}};
  EXPECT_EQ(got, want);
}

// ---- every error status --------------------------------------------------------------------

TEST(PrpErrors, BuildRejectsMisalignedAddresses) {
  std::uint64_t list[512];
  const auto lp = [&](std::uint32_t) { return prp_list_page{list, 0x9000}; };
  prp_pair p;
  // First address not dword aligned.
  EXPECT_EQ(build_prps(
                16, 12, [](std::uint64_t off) { return 0x1002 + off; }, lp, p),
            sc::prp_offset_invalid);
  // Second page (PRP2 as data) not page aligned.
  EXPECT_EQ(
      build_prps(
          8192, 12, [](std::uint64_t off) { return off == 0 ? 0x1000 : 0x5010 + off; }, lp, p),
      sc::prp_offset_invalid);
  // A list entry not page aligned.
  EXPECT_EQ(build_prps(
                5 * 4096, 12,
                [](std::uint64_t off) { return off == 3 * 4096 ? 0x7008 : 0x100000 + off; }, lp, p),
            sc::prp_offset_invalid);
  // A list page not page aligned.
  EXPECT_EQ(build_prps(
                5 * 4096, 12, [](std::uint64_t off) { return 0x100000 + off; },
                [&](std::uint32_t) {
                  return prp_list_page{list, 0x9008};
                },
                p),
            sc::prp_offset_invalid);
  // A chained list page not page aligned.
  std::vector<std::uint64_t> l0(512), l1(512);
  EXPECT_EQ(
      build_prps(
          600 * 4096, 12, [](std::uint64_t off) { return 0x100000 + off; },
          [&](std::uint32_t i) {
            return i == 0 ? prp_list_page{l0.data(), 0x9000} : prp_list_page{l1.data(), 0xa100};
          },
          p),
      sc::prp_offset_invalid);
}

TEST(PrpErrors, WalkRejectsBadEntries) {
  std::vector<std::uint64_t> l0(512, 0), l1(512, 0);
  const auto read = [&](std::uint64_t b) -> const std::uint64_t* {
    if ((b & ~0xfffull) == 0x70000) return l0.data() + ((b & 0xfff) >> 3);
    if ((b & ~0xfffull) == 0x90000) return l1.data() + ((b & 0xfff) >> 3);
    return nullptr;
  };
  std::uint64_t visited = 0;
  const auto visit = [&](std::uint64_t, std::uint64_t len, std::uint64_t) { visited += len; };
  // PRP1 not dword aligned: nothing visited.
  EXPECT_EQ(walk_prps(0x1001, 0, 8, 12, read, visit), sc::prp_offset_invalid);
  EXPECT_EQ(walk_prps(0x1002, 0, 8, 12, read, visit), sc::prp_offset_invalid);
  EXPECT_EQ(visited, 0u);
  // PRP2 as a data page with an offset.
  EXPECT_EQ(walk_prps(0x1000, 0x2004, 8192, 12, read, visit), sc::prp_offset_invalid);
  // PRP2 as a list pointer not qword aligned.
  EXPECT_EQ(walk_prps(0x1000, 0x70004, 3 * 4096, 12, read, visit), sc::prp_offset_invalid);
  // A list entry with a page offset.
  l0[0] = 0x2000;
  l0[1] = 0x3200;
  visited = 0;
  EXPECT_EQ(walk_prps(0x1000, 0x70000, 3 * 4096, 12, read, visit), sc::prp_offset_invalid);
  EXPECT_EQ(visited, 2 * 4096u);  // PRP1 and the first entry were visited before the error
  // A chain pointer with a page offset.
  for (std::size_t i = 0; i < 511; ++i)
    l0[i] = (i + 2) * 4096;
  l0[511] = 0x90008;
  EXPECT_EQ(walk_prps(0x1000, 0x70000, 514 * 4096, 12, read, visit), sc::prp_offset_invalid);
  // Unreadable list pointer (PRP2) and unreadable chained list page.
  EXPECT_EQ(walk_prps(0x1000, 0x50000, 3 * 4096, 12, read, visit), sc::data_transfer_error);
  l0[511] = 0xa0000;
  EXPECT_EQ(walk_prps(0x1000, 0x70000, 514 * 4096, 12, read, visit), sc::data_transfer_error);
  // And the same list, chained properly, succeeds.
  l0[511] = 0x90000;
  l1[0] = 513 * 4096;
  l1[1] = 514 * 4096;
  visited = 0;
  EXPECT_EQ(walk_prps(0x1000, 0x70000, 514 * 4096, 12, read, visit), sc::success);
  EXPECT_EQ(visited, 514 * 4096u);
}

}  // namespace
