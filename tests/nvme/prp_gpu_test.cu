// PRP building/walking and command building on the GPU (bam/nvme/prp.hpp, commands.hpp): one
// thread per transfer builds PRPs (with list pages in device memory), a Read command, walks the
// PRPs back and checks exact coverage; everything copied back must equal the host's run of the
// same code. Skipped without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "bam/detail/hash.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/prp.hpp"
#include "common/cuda_test.hpp"

namespace {
using namespace bam::nvme;

constexpr std::uint32_t max_lists = 3;               // list pages per transfer
constexpr std::uint64_t list_slot = 3ull << 16;      // list bytes per transfer (3 x 64 KiB)
constexpr std::uint64_t list_bus_base = 1ull << 52;  // synthetic bus address of the list area

struct transfer_params {
  std::uint64_t first_offset;  // offset of the first byte in its page (may be misaligned)
  std::uint64_t bytes;
  std::uint64_t seed;
  std::uint32_t mps_log2;
};

struct transfer_result {
  std::uint16_t build_status;
  std::uint16_t walk_status;
  std::uint32_t lists_needed;
  prp_pair prp;
  command cmd;
  std::uint64_t pieces;
  std::uint64_t covered;   // bytes visited
  std::uint64_t hash;      // fold of every (bus, len, offset)
  std::uint32_t in_order;  // 1 when offsets were contiguous and every bus address right
  std::uint32_t pad;
};

/// Bus address of transfer byte `off`: controller pages scattered by a hash of (seed, page).
BAM_HD std::uint64_t data_bus(const transfer_params& t, std::uint64_t off) {
  const std::uint64_t pos = t.first_offset + off;
  const std::uint64_t page = pos >> t.mps_log2;
  const std::uint64_t frame = bam::mix64(t.seed ^ (page * 0x100000001b3ull)) & ((1ull << 30) - 1);
  return ((frame + 1) << t.mps_log2) + (pos & ((1ull << t.mps_log2) - 1));
}

/// Builds, encodes and walks transfer `i`; list pages live at `lists` (this transfer's slot of
/// the list area, whose synthetic bus address is list_bus_base + i * list_slot).
BAM_HD void run_one(const transfer_params& t, std::uint32_t i, std::uint8_t* lists,
                    transfer_result& r) {
  const std::uint64_t page = 1ull << t.mps_log2;
  const std::uint64_t slot_bus = list_bus_base + i * list_slot;
  r.lists_needed = prp_list_pages_needed(data_bus(t, 0), t.bytes, t.mps_log2);
  const status b = build_prps(
      t.bytes, t.mps_log2, [&](std::uint64_t off) { return data_bus(t, off); },
      [&](std::uint32_t j) {
        return prp_list_page{reinterpret_cast<std::uint64_t*>(lists + j * page),
                             slot_bus + j * page};
      },
      r.prp);
  r.build_status = b.code();
  r.cmd = read(1, bam::mix64(t.seed) >> 20, static_cast<std::uint32_t>(t.bytes >> 9) + 1, r.prp);
  r.pieces = 0;
  r.covered = 0;
  r.hash = 0;
  r.in_order = 1;
  if (!b.ok()) {
    r.walk_status = 0xffff;
    return;
  }
  const status w = walk_prps(
      r.prp.prp1, r.prp.prp2, t.bytes, t.mps_log2,
      [&](std::uint64_t bus) -> const std::uint64_t* {
        if (bus < slot_bus || bus >= slot_bus + max_lists * page) return nullptr;
        return reinterpret_cast<const std::uint64_t*>(lists + (bus - slot_bus));
      },
      [&](std::uint64_t bus, std::uint64_t len, std::uint64_t off) {
        if (off != r.covered || bus != data_bus(t, off) || len == 0 || len > page ||
            (bus & (page - 1)) + len > page) {
          r.in_order = 0;
        }
        r.covered += len;
        ++r.pieces;
        r.hash = bam::mix64(r.hash ^ bus) ^ bam::mix64(len + (off << 20));
      });
  r.walk_status = w.code();
}

__global__ void run_kernel(const transfer_params* params, std::uint32_t n, std::uint8_t* lists,
                           transfer_result* results) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  run_one(params[i], i, lists + i * list_slot, results[i]);
}

std::vector<transfer_params> make_params(std::uint32_t n) {
  std::mt19937_64 rng(42);
  std::vector<transfer_params> v(n);
  const std::uint32_t mps[] = {12, 13, 16};
  for (std::uint32_t i = 0; i < n; ++i) {
    transfer_params& t = v[i];
    t.mps_log2 = mps[i % 3];
    const std::uint64_t page = 1ull << t.mps_log2;
    // Up to what three chained list pages can describe: 3 * (page/8 - 1) + 1 entries.
    const std::uint64_t max_pages = 3 * (page / 8 - 1) + 1;
    t.first_offset = (rng() % page) & ~3ull;
    if (i % 17 == 5) t.first_offset |= 2;  // misaligned PRP1: prp_offset_invalid
    switch (i % 4) {
      case 0:
        t.bytes = 1 + rng() % (2 * page);
        break;  // one or two pages
      case 1:
        t.bytes = 1 + rng() % (max_pages * page - t.first_offset);
        break;
      case 2:
        t.bytes = page - t.first_offset + (page / 8) * page + (i % 3);
        break;  // chain edge
      default:
        t.bytes = 1 + rng() % (40 * page);
        break;
    }
    t.seed = rng();
  }
  return v;
}

TEST(NvmePrpGpu, DeviceMatchesHost) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  constexpr std::uint32_t n = 192;
  const std::vector<transfer_params> params = make_params(n);

  // Host run of the same code.
  std::vector<std::uint8_t> host_lists(n * list_slot, 0);
  std::vector<transfer_result> host(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    host[i] = transfer_result{};
    run_one(params[i], i, host_lists.data() + i * list_slot, host[i]);
  }

  transfer_params* d_params = nullptr;
  std::uint8_t* d_lists = nullptr;
  transfer_result* d_results = nullptr;
  CUDA_OK(cudaMalloc(&d_params, n * sizeof(transfer_params)));
  CUDA_OK(cudaMalloc(&d_lists, n * list_slot));
  CUDA_OK(cudaMalloc(&d_results, n * sizeof(transfer_result)));
  CUDA_OK(cudaMemcpy(d_params, params.data(), n * sizeof(transfer_params), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_lists, 0, n * list_slot));
  CUDA_OK(cudaMemset(d_results, 0, n * sizeof(transfer_result)));
  run_kernel<<<(n + 63) / 64, 64>>>(d_params, n, d_lists, d_results);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<transfer_result> dev(n);
  std::vector<std::uint8_t> dev_lists(n * list_slot);
  CUDA_OK(cudaMemcpy(dev.data(), d_results, n * sizeof(transfer_result), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(dev_lists.data(), d_lists, n * list_slot, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d_params));
  CUDA_OK(cudaFree(d_lists));
  CUDA_OK(cudaFree(d_results));

  std::uint32_t failures = 0, with_lists = 0, chained = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    SCOPED_TRACE(testing::Message() << "transfer " << i);
    const transfer_result& h = host[i];
    const transfer_result& d = dev[i];
    const bool misaligned = (params[i].first_offset & 3) != 0;
    // The host run itself is right...
    EXPECT_EQ(h.build_status, misaligned ? sc::prp_offset_invalid.code() : 0);
    if (!misaligned) {
      EXPECT_EQ(h.walk_status, 0);
      EXPECT_EQ(h.covered, params[i].bytes);
      EXPECT_EQ(h.in_order, 1u);
      EXPECT_EQ(h.cmd.prp1, h.prp.prp1);
      EXPECT_EQ(h.cmd.prp2, h.prp.prp2);
    } else {
      ++failures;
    }
    with_lists += h.lists_needed > 0;
    chained += h.lists_needed > 1;
    // ...and the device's equals it, field by field and byte by byte.
    EXPECT_EQ(d.build_status, h.build_status);
    EXPECT_EQ(d.walk_status, h.walk_status);
    EXPECT_EQ(d.lists_needed, h.lists_needed);
    EXPECT_EQ(d.prp.prp1, h.prp.prp1);
    EXPECT_EQ(d.prp.prp2, h.prp.prp2);
    EXPECT_EQ(std::memcmp(&d.cmd, &h.cmd, sizeof(command)), 0);
    EXPECT_EQ(d.pieces, h.pieces);
    EXPECT_EQ(d.covered, h.covered);
    EXPECT_EQ(d.hash, h.hash);
    EXPECT_EQ(d.in_order, h.in_order);
    EXPECT_EQ(
        std::memcmp(dev_lists.data() + i * list_slot, host_lists.data() + i * list_slot, list_slot),
        0);
  }
  // The mix really covered the interesting cases.
  EXPECT_GT(failures, 0u);
  EXPECT_GT(with_lists, n / 4);
  EXPECT_GT(chained, 10u);
}

}  // namespace
