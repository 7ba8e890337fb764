// bam-data taxi-gen --rows N --seed S --out DIR: a synthetic taxi table (bam/table/taxi_gen.hpp),
// the same for a seed on any thread count.
#include <fmt/format.h>

#include <memory>

#include "bam/harness/exit_status.hpp"
#include "bam/table/table_writer.hpp"
#include "bam/table/taxi_gen.hpp"
#include "commands.hpp"
#include "taxi_jobs.hpp"

namespace bam::data {
namespace {

int run_gen(const taxi::gen_options& o) {
  if (!table::writable_destination(o.out)) {
    fmt::print(stderr,
               "bam-data taxi-gen: {}: exists and is not a column table or an empty directory "
               "(refusing to replace it)\n",
               o.out.string());
    return exit_invalid_input;
  }
  try {
    const nlohmann::json s = taxi::generate_table(o);
    const double secs = s["seconds"].get<double>();
    const nlohmann::json& m = s["measured"];
    fmt::print(
        "taxi-gen: {} rows (seed {}) into {} in {:.2f} s ({:.0f} rows/s, {} threads); "
        "{:.4f} % >= 20 miles, {:.4f} % >= 30 miles (published 0.47 %, 0.03 %)\n",
        o.rows, o.seed, o.out.string(), secs, secs > 0 ? double(o.rows) / secs : 0.0,
        s["threads"].get<unsigned>(), 100 * m["share_ge_20_miles"].get<double>(),
        100 * m["share_ge_30_miles"].get<double>());
    return exit_ok;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bam-data taxi-gen: {} (nothing written)\n", e.what());
    return exit_run_failed;
  }
}

}  // namespace

void add_taxi_gen(CLI::App& app) {
  auto o = std::make_shared<taxi::gen_options>();
  auto out = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "taxi-gen",
      "Make a synthetic NYC taxi trip table (0.47 % of trips >= 20 miles, 0.03 % >= 30 miles; "
      "deterministic for a seed on any thread count)");
  sub->add_option("--rows", o->rows, "rows (200000000 for the GPU runs: 1.6 GB per column)")
      ->required()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  sub->add_option("--seed", o->seed, "seed")->capture_default_str();
  sub->add_option("--out", *out, "the table directory to write (atomically)")->required();
  sub->add_option("--threads", o->threads, "generating threads (0: one per core)")
      ->capture_default_str();
  sub->callback([o, out] {
    o->out = *out;
    exit_status() = run_gen(*o);
  });
}

}  // namespace bam::data
