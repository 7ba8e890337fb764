// taxi-query: data-dependent analytics on the NYC taxi trip table (BaM paper 5.3, Figure 12;
// dissertation 3.1, 9.5): Q0..Q5 over the rows with trip_distance >= D, by BaM (one scan
// through bam::array, the other columns read only for qualifying rows) and by a
// CPU-orchestrated tiling baseline (RAPIDS-like row groups of every needed column), in one
// process, with time, bytes moved, bytes needed and I/O amplification in the shared reports.
// Main loop: bam/harness/tool_main.hpp.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>

#include "bam/harness/tool_main.hpp"
#include "bam/table/taxi_query.hpp"
#include "host_backend.hpp"
#include "taxi_table.hpp"
#define BAM_TAXI_GPU (BAM_HAVE_CUDA && !BAM_NO_GPU_INFO)
#if BAM_TAXI_GPU
#include "bam/report/gpu_info.hpp"
#include "gpu_backend.hpp"
#endif

namespace {

const nlohmann::json& impls_of(const bam::report_inputs& in) {
  static const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json& s = in.result->tool_stats;
  if (!s.contains("taxi") || !s["taxi"].contains("impls")) return none;
  return s["taxi"]["impls"];
}

void decorate(bam::report_inputs& in) {
  const bam::run_config& c = *in.config;
  auto add = [&](std::string name, std::string v) {
    in.extra_columns.emplace_back(std::move(name), std::move(v));
  };
  add("taxi_impl", bam::to_string(c.taxi.impl));
  add("tiled_source", bam::to_string(c.taxi.tiled_source));
  add("queries", c.taxi.queries);
  add("min_distance", fmt::format("{}", c.taxi.min_distance));
  add("line_size", std::to_string(c.cache.line_size));
  add("row_group_rows", std::to_string(c.taxi.row_group_rows));
  for (const nlohmann::json& i : impls_of(in)) {
    const std::string p = i["impl"].get<std::string>() == "bam" ? "bam" : "tiled";
    add(p + "_seconds", fmt::format("{:.6f}", i["seconds"].get<double>()));
    add(p + "_bytes_moved", std::to_string(i["bytes_moved"].get<std::uint64_t>()));
    add(p + "_bytes_needed", std::to_string(i["bytes_needed"].get<std::uint64_t>()));
    add(p + "_amplification", fmt::format("{:.4f}", i["io_amplification"].get<double>()));
    add(p + "_failed_reads", std::to_string(i["failed_reads"].get<std::uint64_t>()));
    add(p + "_failed_accesses", std::to_string(i["failed_accesses"].get<std::uint64_t>()));
  }
}

void print_extra(std::ostream& os, const bam::report_inputs& in) {
  const bam::run_config& c = *in.config;
  fmt::print(
      os, "  taxi: queries {} with D = {} over {} rows\n", c.taxi.queries, c.taxi.min_distance,
      in.result->tool_stats.contains("taxi") ? in.result->tool_stats["taxi"]["rows"].dump() : "?");
  for (const nlohmann::json& i : impls_of(in)) {
    fmt::print(os,
               "  taxi: {}: {:.4f} s, {} B moved from storage in {} I/Os, {} B needed, I/O "
               "amplification {:.3f}\n",
               i["impl"].get<std::string>(), i["seconds"].get<double>(),
               i["bytes_moved"].get<std::uint64_t>(), i["commands"].get<std::uint64_t>(),
               i["bytes_needed"].get<std::uint64_t>(), i["io_amplification"].get<double>());
    const auto failed_reads = i["failed_reads"].get<std::uint64_t>();
    const auto failed_accesses = i["failed_accesses"].get<std::uint64_t>();
    if (failed_reads != 0 || failed_accesses != 0) {
      fmt::print(os,
                 "  taxi: {}: {} failed reads ({} timeouts), {} element accesses that got "
                 "no data\n",
                 i["impl"].get<std::string>(), failed_reads, i["timeouts"].get<std::uint64_t>(),
                 failed_accesses);
    }
    if (i.contains("cache")) {
      const nlohmann::json& k = i["cache"];
      fmt::print(os, "  taxi: {} cache: {} hits, {} misses, {} reads, {} evictions\n",
                 i["impl"].get<std::string>(), k["hits"].get<std::uint64_t>(),
                 k["misses"].get<std::uint64_t>(), k["reads"].get<std::uint64_t>(),
                 k["evictions"].get<std::uint64_t>());
    }
  }
  const nlohmann::json& s = in.result->tool_stats;
  if (s.contains("taxi") && s["taxi"].contains("verify")) {
    fmt::print(os, "  taxi: verify: max relative error {:.3g} (tolerance 1e-12), {} mismatches\n",
               s["taxi"]["verify"]["max_relative_error"].get<double>(),
               s["taxi"]["verify"]["mismatches"].get<std::uint64_t>());
  }
}

void validate(const bam::run_config& c) {
  if (c.storage.backend != bam::backend_kind::host &&
      c.storage.backend != bam::backend_kind::emulated) {
    throw bam::config_error("storage.backend",
                            fmt::format("\"{}\" is not supported by taxi-query, allowed "
                                        "host|emulated",
                                        bam::to_string(c.storage.backend)));
  }
  if (c.storage.backend == bam::backend_kind::emulated &&
      c.storage.protocol != bam::storage_protocol::hardware) {
    throw bam::config_error("storage.protocol",
                            "emulator is not supported by taxi-query, allowed hardware");
  }
  // config_error (taxi.data); the backends check the columns' checksums when they open
  const bam::tools::taxi_table t = bam::tools::open_taxi_table(c, bam::tools::column_check::size);
  const std::uint64_t need = t.region_bytes() * bam::taxi::query_count;
  const std::uint64_t room = c.storage.media.size_bytes * c.storage.ssd_count;
  if (need + need / 8 + (std::uint64_t{4} << 20) > room) {
    const std::uint64_t per_ssd =
        (need + need / 8 + (std::uint64_t{4} << 20)) / c.storage.ssd_count;
    throw bam::config_error(
        "storage.media.size_bytes",
        fmt::format("{} B per SSD cannot hold the {} query columns of {} rows ({} B over {} "
                    "SSD(s) with the manifest and stripe rounding), allowed at least {} B",
                    c.storage.media.size_bytes, bam::taxi::query_count, t.rows(), need,
                    c.storage.ssd_count, (per_ssd + 4095) / 4096 * 4096));
  }
}

}  // namespace

int main(int argc, char** argv) {
  bam::tool_spec spec;
  spec.name = "taxi-query";
  spec.description =
      "taxi-query: Q0..Q5 over the NYC taxi trips with trip_distance >= D, by BaM and by a "
      "CPU-orchestrated tiling baseline";
  spec.verify_help =
      "check every result against a CPU reference (terms summed in long double): relative "
      "error <= 1e-12, else exit 3";
  spec.make_backend = [](bam::backend_kind k) -> std::unique_ptr<bam::backend> {
    if (k == bam::backend_kind::host) return bam::tools::make_taxi_host_backend();
#if BAM_TAXI_GPU
    if (k == bam::backend_kind::emulated) return bam::tools::make_taxi_gpu_backend();
#endif
    return nullptr;
  };
  spec.available_backends = [] {
#if BAM_TAXI_GPU
    return std::string("host|emulated");
#else
    return std::string("host");
#endif
  };
  spec.validate = validate;
  spec.unit = "rows";
  spec.rate_unit = "IOs";  // run_result counts the bam kernel's I/Os (the report's iops)
#if BAM_TAXI_GPU
  spec.query_gpu = bam::query_gpu_info;
#endif
  spec.decorate = decorate;
  spec.print_extra = print_extra;
  spec.summary_workload = [](const bam::run_config&) { return std::string(); };  // print_extra
  spec.options = {
      {"--data", "taxi.data", "the table directory (bam-data taxi-import or taxi-gen)"},
      {"--query", "taxi.queries", "all, or a comma list of q0..q5"},
      {"--min-distance", "taxi.min_distance", "D in miles (> 0): S = rows with trip_distance >= D"},
      {"--impl", "taxi.impl", "bam|tiled|both"},
      {"--results", "taxi.results", "write the results as JSON here"}};
  return bam::run_bench_tool(spec, argc, argv);
}
