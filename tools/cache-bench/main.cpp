// cache-bench: throughput of 8-byte element accesses through the BaM software cache (BaM
// dissertation Figures 6.6, 7.2, 7.4; paper Figure 6): plain, warp-coalesced or reference-reuse
// accesses, hot or cold cache, reads and writes; reports accesses/s, effective GB/s, miss
// IOPS and the cache statistics in the shared report format. Main loop: bam/harness/tool_main.hpp.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>

#include "bam/harness/tool_main.hpp"
#include "bench_run.hpp"
#include "host_backend.hpp"
// GPU backend and GPU info: CUDA builds, except the static one for the QEMU guest (no runtime).
#define BAM_CACHE_BENCH_GPU (BAM_HAVE_CUDA && !BAM_NO_GPU_INFO)
#if BAM_CACHE_BENCH_GPU
#include "bam/report/gpu_info.hpp"
#include "gpu_backend.hpp"
#endif

namespace {

double stat_of(const bam::report_inputs& in, const char* key) {
  const nlohmann::json& s = in.result->tool_stats;
  return s.contains(key) ? s[key].get<double>() : 0.0;
}
std::uint64_t cache_stat(const bam::report_inputs& in, const char* key) {
  const nlohmann::json& s = in.result->tool_stats;
  return s.contains("cache") ? s["cache"][key].get<std::uint64_t>() : 0;
}

/// The CSV columns cache-bench adds to the shared ones.
void decorate(bam::report_inputs& in) {
  const bam::run_config& c = *in.config;
  const bam::tools::bench_shape s = bam::tools::shape_of(c);
  auto add = [&](const char* name, std::string v) { in.extra_columns.emplace_back(name, v); };
  add("mode", bam::to_string(c.cache_bench.mode));
  add("temperature", bam::to_string(c.cache_bench.temperature));
  add("line_size", std::to_string(c.cache.line_size));
  add("coarsening", std::to_string(c.cache_bench.coarsening));
  add("layout", bam::to_string(c.cache_bench.layout));
  add("iterations", std::to_string(c.cache_bench.iterations));
  add("elements", std::to_string(s.elements));
  add("slots", std::to_string(s.slots));
  add("accesses_per_s", fmt::format("{:.1f}", stat_of(in, "accesses_per_s")));
  add("effective_GBps", fmt::format("{:.3f}", stat_of(in, "effective_GBps")));
  add("lookups_per_s", fmt::format("{:.1f}", stat_of(in, "lookups_per_s")));
  add("miss_iops", fmt::format("{:.1f}", stat_of(in, "miss_iops")));
  for (const char* k :
       {"hits", "misses", "reads", "writes", "evictions", "write_backs", "metadata_bytes"})
    add(k, std::to_string(cache_stat(in, k)));
}

void print_extra(std::ostream& os, const bam::report_inputs& in) {
  const bam::run_config& c = *in.config;
  fmt::print(os,
             "  cache: {} {} line={} coarsening={} layout={} iterations={}: {:.0f} accesses/s, "
             "{:.2f} GB/s effective, {:.0f} lookups/s, {:.0f} miss IOPS\n",
             bam::to_string(c.cache_bench.mode), bam::to_string(c.cache_bench.temperature),
             c.cache.line_size, c.cache_bench.coarsening, bam::to_string(c.cache_bench.layout),
             c.cache_bench.iterations, stat_of(in, "accesses_per_s"), stat_of(in, "effective_GBps"),
             stat_of(in, "lookups_per_s"), stat_of(in, "miss_iops"));
  fmt::print(os,
             "  cache: {} hits, {} misses, {} reads, {} writes, {} evictions, {} write-backs, "
             "metadata {} B\n",
             cache_stat(in, "hits"), cache_stat(in, "misses"), cache_stat(in, "reads"),
             cache_stat(in, "writes"), cache_stat(in, "evictions"), cache_stat(in, "write_backs"),
             cache_stat(in, "metadata_bytes"));
}

}  // namespace

int main(int argc, char** argv) {
  bam::tool_spec spec;
  spec.name = "cache-bench";
  spec.description =
      "cache-bench: 8-byte element accesses through the BaM software cache (bam::array)";
  spec.verify_help =
      "write value(i) to every element through the cache first, check every read against it "
      "and, after the run, every element on the SSDs (initial or written value, written count "
      "exact)";
  spec.make_backend = [](bam::backend_kind k) -> std::unique_ptr<bam::backend> {
    if (k == bam::backend_kind::host) return bam::tools::make_host_backend();
    if (k == bam::backend_kind::nvme) return bam::tools::make_nvme_backend();
#if BAM_CACHE_BENCH_GPU
    if (k == bam::backend_kind::emulated) return bam::tools::make_emulated_backend();
#endif
    return nullptr;
  };
  spec.available_backends = [] {
    std::string out = bam::tools::make_nvme_backend() ? "host|nvme" : "host";
#if BAM_CACHE_BENCH_GPU
    out += "|emulated";
#endif
    return out;
  };
  spec.validate = bam::tools::validate_cache_bench;
  spec.unit = "accesses";
  spec.progress_total = [](const bam::run_config& c) {
    return std::uint64_t{c.workload.threads} * c.cache_bench.iterations * c.cache_bench.coarsening;
  };
#if BAM_CACHE_BENCH_GPU
  spec.query_gpu = bam::query_gpu_info;
#endif
  spec.decorate = decorate;
  spec.print_extra = print_extra;
  spec.summary_workload = [](const bam::run_config& c) {
    return fmt::format("{} {} {} line_size={}", to_string(c.cache_bench.mode),
                       to_string(c.cache_bench.temperature), to_string(c.workload.pattern),
                       c.cache.line_size);
  };
  return bam::run_bench_tool(spec, argc, argv);
}
