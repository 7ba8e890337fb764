// Host path: one host-emulated NVMe controller, host threads through bamkit's software cache.
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/host_storage.hpp"
#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "sum.hpp"

using host_cache = bam::cache<bam::host_cache_storage>;
using host_array = bam::array<std::uint64_t, host_cache::ref_type>;

bool sum_on_host(std::uint64_t n) {
  bam::cache_config cfg;
  cfg.line_bytes = 4096;
  cfg.slots = 64;  // far fewer than the array's lines: the sum evicts and reads from the SSD
  const std::uint64_t bytes = n * sizeof(std::uint64_t);

  bam::emu::controller_options o;
  o.lba_size = 512;
  o.namespace_lbas = (bytes + cfg.line_bytes - 1) / cfg.line_bytes * (cfg.line_bytes / 512);
  bam::emu::emulated_controller ssd(o);
  ssd.start();
  bam::controller_driver driver(ssd.bar(), ssd.allocator());
  bam::io_queue_pair qp = driver.create_io_queue_pair(256);
  const bam::host_ssd s{
      {qp.queue().pointers()}, driver.info().lba_size, driver.info().namespace_lbas};
  cfg.lines = o.namespace_lbas / (cfg.line_bytes / 512);

  {  // write: through one cache, flushed onto the SSD
    host_cache c(cfg, std::vector<bam::host_ssd>{s}, ssd.allocator());
    const host_array a(c.ref(), {0, n});
    for (std::uint64_t i = 0; i < n; ++i)
      a.write(i, value(i));
    if (!c.flush()) {
      std::printf("host: flush failed\n");
      return false;
    }
  }
  // read: a second cache, cold, so every line comes back from the SSD
  host_cache c(cfg, std::vector<bam::host_ssd>{s}, ssd.allocator());
  const host_array a(c.ref(), {0, n});
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    sum += a[i];
  const std::uint64_t want = plain_sum(n);
  const bam::cache_stats st = c.stats();
  std::printf("host: sum of %" PRIu64 " elements %s (%" PRIu64 " lines read from the SSD)\n", n,
              sum == want ? "matches" : "DIFFERS", st.reads);
  return sum == want;
}
