// Memory random-read ceiling.
#include "bam/harness/ceilings.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "bam/harness/workload.hpp"

namespace bam {

nlohmann::json measure_memory_random_read(const void* base, std::uint64_t bytes,
                                          std::uint64_t io_size, std::uint32_t threads,
                                          double seconds) {
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
  return nlohmann::json{{"io_size", io_size},
                        {"threads", threads},
                        {"iops", double(total) / s},
                        {"bytes_per_s", double(total * io_size) / s}};
}

}  // namespace bam
