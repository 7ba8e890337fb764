// The shared NVM processor (bam/emu/nvm_processor.hpp) on the GPU: one device thread executes a
// script of commands against media and a DMA window in device memory; statuses and the final
// bytes must equal the host's run of the same code over host memory, and the expected statuses.
// Skipped without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "bam/emu/nvm_processor.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/nvme/names.hpp"
#include "common/cuda_test.hpp"

namespace {
using namespace bam;
namespace sc = nvme::sc;

constexpr std::uint64_t bus_base = 1ull << 40;  // synthetic bus address of the window
constexpr std::uint64_t window_bytes = 64 * 1024;
constexpr std::uint64_t media_bytes = 256 * 512;
constexpr int max_cmds = 32;

struct flat_media {
  std::uint8_t* base;
  BAM_HD std::uint8_t* data() const { return base; }
  BAM_HD void flush() {}
};

/// A window of one range; data moved byte by byte-ish with memcpy/memset (host and device).
struct flat_dma {
  std::uint8_t* window;
  BAM_HD std::uint8_t* map(std::uint64_t bus, std::uint64_t len) const {
    if (bus < bus_base || bus - bus_base > window_bytes || len > window_bytes - (bus - bus_base))
      return nullptr;
    return window + (bus - bus_base);
  }
  BAM_HD void copy(void* d, const void* s, std::uint64_t n) const { memcpy(d, s, n); }
  BAM_HD void zero(void* d, std::uint64_t n) const { memset(d, 0, n); }
};

BAM_HD void run_script(const nvme::command* cmds, int n, std::uint8_t* media, std::uint8_t* window,
                       std::uint16_t* statuses) {
  emu::nvm_config cfg;
  cfg.nsze = media_bytes / 512;
  cfg.lba_log2 = 9;
  cfg.mps_log2 = 12;
  cfg.max_transfer_bytes = 32 * 1024;
  flat_media m{media};
  const flat_dma d{window};
  for (int i = 0; i < n; ++i)
    statuses[i] = emu::process_nvm(cmds[i], cfg, m, d).code();
}

__global__ void script_kernel(const nvme::command* cmds, int n, std::uint8_t* media,
                              std::uint8_t* window, std::uint16_t* statuses) {
  run_script(cmds, n, media, window, statuses);
}

std::vector<nvme::command> script(std::vector<nvme::status>& expected) {
  std::vector<nvme::command> c;
  auto add = [&](nvme::command cmd, nvme::status st) {
    c.push_back(cmd);
    expected.push_back(st);
  };
  // Window pages: 0-5 source data (24 KiB), 6 the write's PRP list (pages 1-5), 7-11 the read
  // target, 12 the read's PRP list (entries at slots 1-4: PRP2 with an offset), 13 one block.
  const auto page = [](std::uint64_t p) { return bus_base + p * 4096; };
  add(nvme::write(1, 10, 48, {page(0), page(6)}), sc::success);
  add(nvme::read(1, 10, 40, {page(7), page(12) + 8}), sc::success);
  add(nvme::write_zeroes(1, 12, 2), sc::success);
  add(nvme::read(1, 12, 1, {page(13), 0}), sc::success);
  add(nvme::read(2, 0, 1, {page(0), 0}), sc::invalid_namespace);
  add(nvme::read(1, 255, 2, {page(0), 0}), sc::lba_out_of_range);
  add(nvme::read(1, 0, 65, {page(0), page(6)}), sc::invalid_field);  // > 32 KiB
  add(nvme::read(1, 0, 1, {page(0) + 2, 0}), sc::prp_offset_invalid);
  add(nvme::read(1, 0, 1, {page(16), 0}), sc::data_transfer_error);  // past the window
  add(nvme::flush(0xffffffffu), sc::success);
  nvme::command bad = nvme::flush(1);
  bad.opcode = 0x55;
  add(bad, sc::invalid_opcode);
  return c;
}

TEST(EmuProcessorGpu, SameResultsAsHost) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  std::vector<nvme::status> expected;
  const std::vector<nvme::command> cmds = script(expected);
  const int n = static_cast<int>(cmds.size());
  ASSERT_LE(n, max_cmds);

  std::vector<std::uint8_t> window(window_bytes, 0x11), media(media_bytes, 0xee);
  for (std::size_t i = 0; i < 6 * 4096; ++i)
    window[i] = static_cast<std::uint8_t>(i * 7 + 3);
  auto* wlist = reinterpret_cast<std::uint64_t*>(window.data() + 6 * 4096);
  for (int i = 0; i < 5; ++i)
    wlist[i] = bus_base + (1 + i) * 4096ull;
  auto* rlist = reinterpret_cast<std::uint64_t*>(window.data() + 12 * 4096);
  for (int i = 0; i < 4; ++i)
    rlist[1 + i] = bus_base + (8 + i) * 4096ull;
  const std::vector<std::uint8_t> source(window.begin(), window.begin() + 6 * 4096);

  // Host run of the same code.
  std::vector<std::uint8_t> host_window = window, host_media = media;
  std::vector<std::uint16_t> host_status(n);
  run_script(cmds.data(), n, host_media.data(), host_window.data(), host_status.data());
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(host_status[i], expected[i].code())
        << "host command " << i << " expected " << nvme::describe(expected[i]);

  // Device run.
  nvme::command* d_cmds = nullptr;
  std::uint8_t *d_media = nullptr, *d_window = nullptr;
  std::uint16_t* d_status = nullptr;
  ASSERT_EQ(cudaMalloc(&d_cmds, n * sizeof(nvme::command)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_media, media_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_window, window_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_status, n * sizeof(std::uint16_t)), cudaSuccess);
  cudaMemcpy(d_cmds, cmds.data(), n * sizeof(nvme::command), cudaMemcpyHostToDevice);
  cudaMemcpy(d_media, media.data(), media_bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_window, window.data(), window_bytes, cudaMemcpyHostToDevice);
  script_kernel<<<1, 1>>>(d_cmds, n, d_media, d_window, d_status);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<std::uint16_t> dev_status(n);
  std::vector<std::uint8_t> dev_media(media_bytes), dev_window(window_bytes);
  cudaMemcpy(dev_status.data(), d_status, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost);
  cudaMemcpy(dev_media.data(), d_media, media_bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(dev_window.data(), d_window, window_bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_cmds);
  cudaFree(d_media);
  cudaFree(d_window);
  cudaFree(d_status);

  EXPECT_EQ(dev_status, host_status);
  EXPECT_TRUE(dev_media == host_media);
  EXPECT_TRUE(dev_window == host_window);
  // The data itself: LBAs 10-11 and 14-57 hold the source, 12-13 were zeroed, 9 untouched.
  EXPECT_EQ(std::memcmp(dev_media.data() + 10 * 512, source.data(), 1024), 0);
  EXPECT_EQ(std::memcmp(dev_media.data() + 14 * 512, source.data() + 4 * 512, 44 * 512), 0);
  for (int b = 12 * 512; b < 14 * 512; ++b)
    ASSERT_EQ(dev_media[b], 0u) << b;
  EXPECT_EQ(dev_media[9 * 512 + 511], 0xeeu);
  // The read (before the zeroing) brought back 20 KiB of source into pages 7-11.
  EXPECT_EQ(std::memcmp(dev_window.data() + 7 * 4096, source.data(), 20 * 1024), 0);
  // The one-block read after the zeroing: zeroes; the rest of page 13 untouched.
  for (int b = 0; b < 512; ++b)
    ASSERT_EQ(dev_window[13 * 4096 + b], 0u) << b;
  EXPECT_EQ(dev_window[13 * 4096 + 512], 0x11u);
}
}  // namespace
