// bam-data taxi-import --csv FILE... --out DIR: NYC TLC yellow-taxi CSV files to a column table
// (bam/table/taxi_csv.hpp). A malformed file is refused with its line (exit 2), nothing written.
#include <fmt/format.h>

#include <memory>
#include <thread>

#include "bam/harness/exit_status.hpp"
#include "bam/table/column_table.hpp"
#include "bam/table/table_writer.hpp"
#include "bam/table/taxi_csv.hpp"
#include "commands.hpp"
#include "taxi_jobs.hpp"

namespace bam::data {
namespace {

int run_import(const taxi::import_options& o) {
  if (!table::writable_destination(o.out)) {
    fmt::print(stderr,
               "bam-data taxi-import: {}: exists and is not a column table or an empty "
               "directory (refusing to replace it)\n",
               o.out.string());
    return exit_invalid_input;
  }
  try {
    const nlohmann::json s = taxi::import_csv(o);
    const double secs = s["seconds"].get<double>();
    const std::uint64_t rows = s["rows"].get<std::uint64_t>();
    fmt::print(
        "taxi-import: {} rows from {} file(s) into {} in {:.2f} s ({:.0f} rows/s, {} "
        "threads)\n",
        rows, o.csv.size(), o.out.string(), secs, secs > 0 ? double(rows) / secs : 0.0,
        s["threads"].get<unsigned>());
    fmt::print("taxi-import: {} rows rejected (a required value empty or not a number){}{}\n",
               s["rejected_rows"].get<std::uint64_t>(),
               s["rejected_lines"].empty() ? "" : ", first at ",
               fmt::join(s["rejected_lines"].get<std::vector<std::string>>(), " "));
    fmt::print("taxi-import: empty values stored as NaN: {}; non-numeric: {}\n",
               s["empty_as_nan"].dump(), s["non_numeric_as_nan"].dump());
    return exit_ok;
  } catch (const taxi::csv_error& e) {
    fmt::print(stderr, "bam-data taxi-import: malformed input: {} (nothing written)\n", e.what());
    return exit_invalid_input;
  } catch (const input_error& e) {  // a file that cannot be opened or mapped
    fmt::print(stderr, "bam-data taxi-import: invalid input: {} (nothing written)\n", e.what());
    return exit_invalid_input;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bam-data taxi-import: {} (nothing written)\n", e.what());
    return exit_run_failed;
  }
}

}  // namespace

void add_taxi_import(CLI::App& app) {
  auto o = std::make_shared<taxi::import_options>();
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "taxi-import",
      "import NYC TLC yellow-taxi trip CSV files (header row with the post-2015 column names, "
      "any order; Parquet files: convert to CSV first, see README) into a column table");
  sub->add_option("--csv", *files, "CSV files, imported in this order")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--out", *out, "the table directory to write (atomically)")->required();
  sub->add_option("--threads", o->threads, "parsing threads (0: one per core)")
      ->capture_default_str();
  sub->callback([o, files, out] {
    o->csv.assign(files->begin(), files->end());
    o->out = *out;
    exit_status() = run_import(*o);
  });
}

}  // namespace bam::data
