// Microbenchmarks of the NVMe wire-format helpers: PRP building (two-page and list cases), PRP
// walking, and command building.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bam/nvme/commands.hpp"
#include "bam/nvme/prp.hpp"

namespace {
using namespace bam::nvme;

constexpr std::uint32_t mps = 12;  // 4 KiB controller pages
constexpr std::uint64_t page = 1ull << mps;

/// A physically contiguous buffer at a fixed bus address plus `offset`.
struct contiguous_buffer {
  std::uint64_t base;
  std::uint64_t operator()(std::uint64_t off) const { return base + off; }
};

/// List pages for up to 2048 data pages (chained), host memory with identity bus addresses.
struct list_pool {
  std::vector<std::uint64_t> words = std::vector<std::uint64_t>(8 * page / 8);
  prp_list_page operator()(std::uint32_t i) {
    std::uint64_t* v = words.data() + i * (page / 8);
    return prp_list_page{v, 0x7000'0000ull + i * page};
  }
};

void bm_build_prps_two_pages(benchmark::State& state) {
  list_pool lists;
  prp_pair out;
  std::uint64_t base = 0x10'0200;
  for (auto _ : state) {
    benchmark::DoNotOptimize(base);
    const status s = build_prps(page, mps, contiguous_buffer{base}, lists, out);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_build_prps_two_pages);

void bm_build_prps_list(benchmark::State& state) {
  const auto bytes = static_cast<std::uint64_t>(state.range(0));
  list_pool lists;
  prp_pair out;
  std::uint64_t base = 0x10'0000;
  for (auto _ : state) {
    benchmark::DoNotOptimize(base);
    const status s = build_prps(bytes, mps, contiguous_buffer{base}, lists, out);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(bm_build_prps_list)->Arg(12 << 10)->Arg(128 << 10)->Arg(1 << 20)->Arg(4 << 20);

void bm_walk_prps(benchmark::State& state) {
  const auto bytes = static_cast<std::uint64_t>(state.range(0));
  list_pool lists;
  prp_pair p;
  if (!build_prps(bytes, mps, contiguous_buffer{0x10'0000}, lists, p).ok()) {
    state.SkipWithError("build_prps failed");
    return;
  }
  const auto read_list = [&](std::uint64_t bus) -> const std::uint64_t* {
    return lists.words.data() + (bus - 0x7000'0000ull) / 8;
  };
  for (auto _ : state) {
    std::uint64_t sum = 0;
    const status s =
        walk_prps(p.prp1, p.prp2, bytes, mps, read_list,
                  [&](std::uint64_t bus, std::uint64_t len, std::uint64_t) { sum += bus ^ len; });
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(bm_walk_prps)->Arg(4 << 10)->Arg(8 << 10)->Arg(128 << 10)->Arg(1 << 20)->Arg(4 << 20);

void bm_build_read_command(benchmark::State& state) {
  std::uint64_t slba = 0;
  prp_pair p{0x10'0000, 0x10'1000};
  for (auto _ : state) {
    benchmark::DoNotOptimize(p);
    const command c = read(1, slba++, 16, p);
    benchmark::DoNotOptimize(c);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_build_read_command);

void bm_build_prps_and_write_command(benchmark::State& state) {
  list_pool lists;
  std::uint64_t slba = 0;
  for (auto _ : state) {
    prp_pair p;
    const status s = build_prps(64 << 10, mps, contiguous_buffer{0x20'0000}, lists, p);
    const command c = write(1, slba, 128, p);
    slba += 128;
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(c);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_build_prps_and_write_command);

void bm_build_admin_commands(benchmark::State& state) {
  std::uint16_t qid = 1;
  for (auto _ : state) {
    const command cq = create_io_cq(qid, 1024, 0x30'0000, true);
    const command sq = create_io_sq(qid, 1024, qid, 0x40'0000, true);
    const command id = identify(identify_cns::controller, 0, 0x50'0000);
    benchmark::DoNotOptimize(cq);
    benchmark::DoNotOptimize(sq);
    benchmark::DoNotOptimize(id);
    qid = static_cast<std::uint16_t>(qid % 1000 + 1);
  }
  state.SetItemsProcessed(state.iterations() * 3);
}
BENCHMARK(bm_build_admin_commands);

}  // namespace
