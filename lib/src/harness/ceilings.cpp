// The ceilings' JSON, and the CPU's random-read ceiling of memory.
#include "bam/harness/ceilings.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "bam/harness/workload.hpp"

namespace bam {

nlohmann::json to_json(const machine_ceilings& c) {
  return nlohmann::json{
      {"h2d_memcpy_gbps", c.h2d_memcpy_gbps ? nlohmann::json(*c.h2d_memcpy_gbps) : nullptr},
      {"direct_read_gbps", c.direct_read_gbps},
      {"direct_reads_per_s", c.direct_reads_per_s},
      {"io_size", c.io_size},
      {"over_bytes", c.over_bytes},
      {"method", c.method},
      {"memory", c.memory},
      {"median_of", c.median_of}};
}

machine_ceilings measure_memory_random_read(const void* base, std::uint64_t bytes,
                                            std::uint64_t io_size, std::uint32_t threads,
                                            double seconds, std::string memory) {
  const std::uint64_t slots = bytes / io_size;
  std::atomic<bool> stop{false};
  std::vector<std::uint64_t> counts(threads, 0);
  std::vector<std::thread> pool;
  for (std::uint32_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[io_size]);
      split_mix64 rng{0x1234u + t};
      std::uint64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        for (int k = 0; k < 64; ++k) {
          const std::uint64_t off = (rng.next() % slots) * io_size;
          std::memcpy(buf.get(), static_cast<const std::uint8_t*>(base) + off, io_size);
        }
        n += 64;
      }
      counts[t] = n + buf[0] * 0;  // keep the copies observable
    });
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& th : pool)
    th.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::uint64_t total = 0;
  for (auto c : counts)
    total += c;
  machine_ceilings c;
  c.direct_reads_per_s = double(total) / s;
  c.direct_read_gbps = c.direct_reads_per_s * double(io_size) / 1e9;
  c.io_size = io_size;
  c.over_bytes = bytes;
  c.method = fmt::format("CPU: {} threads memcpy random io_size-aligned pieces for {} s", threads,
                         seconds);
  c.memory = std::move(memory);
  return c;
}

}  // namespace bam
