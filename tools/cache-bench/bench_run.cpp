// cache-bench: the run every backend shares, and the tool's config checks.
#include "bench_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "bam/cache/line_map.hpp"
#include "bam/storage/storage_context.hpp"
#include "host_backend.hpp"

namespace bam::tools {

bench_shape shape_of(const run_config& c) {
  bench_shape s;
  const cache_bench_config& b = c.cache_bench;
  s.line_bytes = static_cast<std::uint32_t>(c.cache.line_size);
  s.elements = b.elements != 0 ? b.elements : std::uint64_t{c.workload.threads} * b.coarsening;
  s.lines = (s.elements * 8 + s.line_bytes - 1) / s.line_bytes;
  s.slots = c.cache.capacity / c.cache.line_size;
  s.on_error = c.cache.on_error;
  return s;
}

bench_params params_of(const run_config& c, bool verify) {
  const bench_shape s = shape_of(c);
  bench_params p;
  p.threads = c.workload.threads;
  p.elements = s.elements;
  p.coarsening = c.cache_bench.coarsening;
  p.warp_layout = c.cache_bench.layout == cache_bench_layout::warp;
  p.owners = p.warp_layout ? p.threads / layout_group : p.threads;
  p.chunks = s.elements / chunk_elements(p);
  p.iterations = c.cache_bench.iterations;
  p.mode = c.cache_bench.mode;
  p.op = c.workload.op;
  p.write_share = static_cast<std::uint32_t>((1.0 - c.workload.read_ratio) * 65536.0);
  p.sequential = c.workload.pattern == io_pattern::sequential;
  p.verify = verify;
  p.seed = c.workload.seed;
  return p;
}

void validate_cache_bench(const run_config& c) {
  const backend_kind k = c.storage.backend;
  if (k != backend_kind::host && k != backend_kind::emulated && k != backend_kind::nvme) {
    throw config_error(
        "storage.backend",
        fmt::format("\"{}\" is not supported by cache-bench (the cache has storage policies for "
                    "BaM queues of host emulated or real controllers and GPU-emulated SSDs only), "
                    "allowed host|nvme|emulated",
                    to_string(k)));
  }
  if (k == backend_kind::nvme && c.workload.threads > host_max_threads) {
    throw config_error(
        "workload.threads",
        fmt::format("{} is above the {} CPU threads of backend \"nvme\", allowed [1, {}]: "
                    "cache-bench drives real controllers in host mode only (CPU threads, slots "
                    "in pinned host memory); GPU threads over them (the cache's GPU storage over "
                    "kmod_gpu_queues, slots mapped through nv-p2p) are built but untested and no "
                    "backend offers them",
                    c.workload.threads, host_max_threads, host_max_threads));
  }
  const std::uint64_t line = c.cache.line_size;
  check_cache_ssds(c);
  const cache_bench_config& b = c.cache_bench;
  const bench_shape s = shape_of(c);
  const bool warp = b.layout == cache_bench_layout::warp;
  if (warp && c.workload.threads % layout_group != 0) {
    throw config_error("workload.threads",
                       fmt::format("{} is not a multiple of {}: cache_bench.layout = warp gives "
                                   "each group of {} threads one chunk, allowed multiples of {} "
                                   "(or cache_bench.layout = thread)",
                                   c.workload.threads, layout_group, layout_group, layout_group));
  }
  const std::uint64_t chunk = warp ? std::uint64_t{b.coarsening} * layout_group : b.coarsening;
  if (s.elements < chunk || s.elements % chunk != 0) {
    throw config_error("cache_bench.elements",
                       fmt::format("{} is not a multiple of {}cache_bench.coarsening ({}), allowed "
                                   "0 or multiples of {}",
                                   s.elements, warp ? "32 x " : "", b.coarsening, chunk));
  }
  const std::uint64_t capacity_lines =
      striped_capacity_bytes(c.storage.media.size_bytes, c.storage.ssd_count) / line;
  if (s.lines > capacity_lines) {
    throw config_error("cache_bench.elements",
                       fmt::format("{} elements ({} lines of {} B) do not fit on {} SSD(s) of "
                                   "storage.media.size_bytes = {}, allowed at most {} elements",
                                   s.elements, s.lines, line, c.storage.ssd_count,
                                   c.storage.media.size_bytes, capacity_lines * line / 8));
  }
  if (b.temperature == cache_temperature::hot && s.slots < s.lines) {
    throw config_error("cache.capacity",
                       fmt::format("{} B ({} lines) is smaller than the dataset ({} lines of {} "
                                   "B): a hot cache holds the whole dataset, allowed at least {}",
                                   c.cache.capacity, s.slots, s.lines, line, s.lines * line));
  }
  if (b.temperature == cache_temperature::cold && s.slots > s.lines) {
    throw config_error("cache.capacity",
                       fmt::format("{} B ({} lines) is larger than the dataset ({} lines of {} "
                                   "B): a cold run measures misses and evictions, so slots the "
                                   "dataset cannot fill are not allowed, allowed at most {}",
                                   c.cache.capacity, s.slots, s.lines, line, s.lines * line));
  }
}

namespace {

/// Elements the measured pass writes (distinct), replaying the pattern on the host.
std::uint64_t written_elements(const bench_params& p) {
  if (p.op == io_op::read) return 0;
  std::vector<bool> chunk(p.chunks, false);
  std::uint64_t n = 0;
  for (std::uint64_t o = 0; o < p.owners; ++o) {
    for (std::uint64_t k = 0; k < p.iterations; ++k) {
      if (!writes_in(p, o, k)) continue;
      const std::uint64_t ch = chunk_of(p, o, k);
      if (!chunk[ch]) {
        chunk[ch] = true;
        ++n;
      }
    }
  }
  return n * chunk_elements(p);
}

nlohmann::json to_json(const cache_stats& s) {
  return {{"accesses", s.accesses},
          {"hits", s.hits},
          {"misses", s.misses},
          {"reads", s.reads},
          {"writes", s.writes},
          {"evictions", s.evictions},
          {"dirty_evictions", s.dirty_evictions},
          {"write_backs", s.write_backs},
          {"io_errors", s.io_errors},
          {"timeouts", s.timeouts},
          {"failed_accesses", s.failed_accesses},
          {"quarantines", s.quarantines},
          {"quarantine_returns", s.quarantine_returns},
          {"flushes", s.flushes},
          {"bytes_read", s.bytes_read},
          {"bytes_written", s.bytes_written},
          {"metadata_bytes", s.metadata_bytes},
          {"slot_bytes", s.slot_bytes},
          {"prp_bytes", s.prp_bytes}};
}

}  // namespace

std::uint64_t write_accesses(const bench_params& p, std::uint32_t workers) {
  if (p.op != io_op::mixed)
    return p.op == io_op::write ? p.threads * p.iterations * p.coarsening : 0;
  auto count = [&p](std::uint64_t first, std::uint64_t last) {
    std::uint64_t n = 0;
    for (std::uint64_t o = first; o < last; ++o) {
      for (std::uint64_t k = 0; k < p.iterations; ++k)
        n += writes_in(p, o, k) ? 1 : 0;
    }
    return n;
  };
  if (workers == 0) {
    workers = p.owners * p.iterations < (1u << 24)
                  ? 1
                  : std::clamp(std::thread::hardware_concurrency(), 1u, 64u);
  }
  std::vector<std::uint64_t> part(workers, 0);
  std::vector<std::thread> pool;
  const std::uint64_t per = (p.owners + workers - 1) / workers;
  for (std::uint64_t w = 1; w < workers; ++w) {
    pool.emplace_back([&, w] {
      part[w] = count(std::min(p.owners, w * per), std::min(p.owners, (w + 1) * per));
    });
  }
  part[0] = count(0, std::min(p.owners, per));
  for (std::thread& t : pool)
    t.join();
  std::uint64_t n = 0;
  for (const std::uint64_t c : part)
    n += c;
  return n * chunk_elements(p);
}

run_result run_cache_bench(cache_rig& rig, const run_config& c, const run_hooks& hooks,
                           bool& media_dirty) {
  const bench_shape s = shape_of(c);
  const bench_params p = params_of(c, hooks.verify);
  const bool hot = c.cache_bench.temperature == cache_temperature::hot;
  run_result out;
  nlohmann::json& st = out.tool_stats;
  std::vector<std::string> errors;

  // Every pass's failures go into the result (errors, timeouts, by status, failed accesses);
  // they do not make the run fail (out.error): the tool reports them and exits with
  // exit_io_errors.
  std::uint64_t failed_accesses = 0, failed_flushes = 0;
  auto count_failures = [&](const cache_stats& cs) {
    add_cache_errors(cs, out);
    failed_accesses += cs.failed_accesses;
  };
  const bench_shape verify_shape{s.elements, s.lines, std::min(s.slots, s.lines), s.line_bytes,
                                 s.on_error};
  if (hooks.verify && media_dirty) {  // the SSDs must hold initial_value before the run
    rig.new_cache(verify_shape);
    rig.fill(s);
    failed_flushes += rig.flush() ? 0 : 1;
    count_failures(rig.stats());
    media_dirty = false;
  }
  rig.new_cache(s);
  if (hot) rig.warm(s);
  const cache_stats warm = rig.stats();
  count_failures(warm);
  rig.reset_stats();
  bench_counters counts{};
  const double seconds = rig.measure(p, counts);
  const cache_stats cs = rig.stats();
  count_failures(cs);
  rig.reset_stats();
  const bool flushed = rig.flush();
  const cache_stats fs = rig.stats();
  count_failures(fs);
  failed_flushes += flushed ? 0 : 1;
  if (p.op != io_op::read) media_dirty = true;

  const std::uint64_t accesses = p.threads * p.iterations * p.coarsening;
  const std::uint64_t writes = write_accesses(p);
  const auto ns = static_cast<std::uint64_t>(seconds * 1e9);
  out.runtime_ns = ns;
  out.read.ios = accesses - writes;
  out.read.io_bytes = out.read.ios * 8;
  out.read.runtime_ns = ns;
  out.write.ios = writes;
  out.write.io_bytes = writes * 8;
  out.write.runtime_ns = ns;
  for (std::size_t d = 0; d < cs.bytes_read.size(); ++d)
    out.per_ssd_ios.push_back((cs.bytes_read[d] + cs.bytes_written[d]) / s.line_bytes);

  st["unit"] = "one access = one 8-byte element read or written by a thread";
  st["accesses"] = accesses;
  st["accesses_per_s"] = seconds > 0 ? double(accesses) / seconds : 0.0;
  st["effective_GBps"] = seconds > 0 ? 8.0 * double(accesses) / seconds / 1e9 : 0.0;
  st["lookups_per_s"] = seconds > 0 ? double(cs.accesses) / seconds : 0.0;
  st["miss_iops"] = seconds > 0 ? double(cs.reads + cs.writes) / seconds : 0.0;
  st["measured_s"] = seconds;
  st["dataset"] = {{"elements", s.elements},
                   {"lines", s.lines},
                   {"slots", s.slots},
                   {"line_bytes", s.line_bytes},
                   {"bytes", s.elements * 8}};
  st["cache"] = to_json(cs);
  st["flush"] = to_json(fs);
  if (hot) {
    st["warm"] = to_json(warm);
    st["hot_check"] = {{"measured_misses", cs.misses}, {"ok", cs.misses == 0}};
    if (cs.misses != 0) {
      errors.push_back(
          fmt::format("hot: the measured pass missed {} times (a warmed cache "
                      "holding the dataset must not miss)",
                      cs.misses));
    }
  }
  if (hooks.verify) {
    rig.new_cache(verify_shape);
    const bench_counters chk = rig.check(s);
    count_failures(rig.stats());
    const std::uint64_t expect_written = written_elements(p);
    st["verify"] = {{"read_errors", counts.bad},
                    {"media_errors", chk.bad},
                    {"media_written", chk.written},
                    {"expected_written", expect_written}};
    // A written count that differs is as many mismatches (elements not, or wrongly, written).
    const std::uint64_t written_off =
        chk.written > expect_written ? chk.written - expect_written : expect_written - chk.written;
    out.verify_mismatches = counts.bad + chk.bad + written_off;
  }
  st["io_failures"] = {{"failed_accesses", failed_accesses},
                       {"failed_flushes", failed_flushes},
                       {"note",
                        "over every pass (fill, warm, measured, flush, check); errors, "
                        "timeouts and errors_by_status count the cache's failed I/Os"}};
  // A failed flush always fails the run's I/O (its failed I/O is normally counted already).
  if (failed_flushes != 0 && out.errors == 0) out.errors = failed_flushes;
  if (hooks.ios_done != nullptr) hooks.ios_done->fetch_add(accesses);
  for (const std::string& e : errors)
    out.error += (out.error.empty() ? "" : "; ") + e;
  return out;
}

}  // namespace bam::tools
