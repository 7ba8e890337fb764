// Host path: host-emulated SSDs (controllers served by threads of this process), the numbers
// written through their NVMe queues, CPU threads summing them through the cache.
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <thread>
#include <vector>

#include "bam/storage/host_context.hpp"
#include "sum.hpp"

sum_status sum_on_host(const std::vector<std::uint64_t>& v) {
  bam::host_context ctx(ssds_for(v.size(), bam::backend_kind::host));
  ctx.add_region("numbers", v.size() * 8);
  ctx.write_region("numbers", v.data(), v.size() * 8);
  ctx.build_cache();
  const auto a = ctx.array<std::uint64_t>("numbers");

  constexpr unsigned threads = 4;
  std::atomic<std::uint64_t> sum{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::uint64_t s = 0;
      for (std::uint64_t i = t; i < a.size(); i += threads)
        s += a[i];
      sum += s;
    });
  }
  for (std::thread& th : pool)
    th.join();
  const bam::cache_stats st = ctx.cache().stats();  // st.io_failed(): the error flag
  ctx.close();
  const bool ok = sum == plain_sum(v);
  std::printf("host: sum of %zu elements %s (%" PRIu64 " lines read from 4 SSDs, %" PRIu64
              " hits, %" PRIu64 " accesses failed, %" PRIu64 " I/O errors)\n",
              v.size(), ok ? "matches" : "DIFFERS", st.reads, st.hits, st.failed_accesses,
              st.io_errors);
  if (st.io_failed()) return sum_status::io_failed;
  return ok ? sum_status::matches : sum_status::differs;
}
