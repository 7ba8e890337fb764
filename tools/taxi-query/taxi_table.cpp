// taxi-query's table: opened from taxi.data, the query columns mapped.
#include "taxi_table.hpp"

#include <fmt/format.h>

namespace bam::tools {

std::string taxi_region(int k) {
  std::string out = "taxi.";
  out += taxi::column_names[taxi::query_columns[static_cast<std::size_t>(k)]];
  return out;
}

std::array<const double*, taxi::query_count> taxi_table::pointers() const {
  std::array<const double*, taxi::query_count> p{};
  for (int k = 0; k < taxi::query_count; ++k)
    p[k] = cols[k].data();
  return p;
}

taxi_table open_taxi_table(const run_config& c) {
  if (c.taxi.data.empty()) {
    throw config_error("taxi.data",
                       "required: the table directory (--data DIR; bam-data "
                       "taxi-import or taxi-gen makes one)");
  }
  taxi_table t;
  t.dir = c.taxi.data;
  try {
    t.manifest = table::read_manifest(t.dir);
    for (int k = 0; k < taxi::query_count; ++k)
      t.cols[k] = table::mapped_column(
          t.dir, t.manifest, taxi::column_names[taxi::query_columns[static_cast<std::size_t>(k)]]);
  } catch (const table::table_error& e) {
    throw config_error("taxi.data", e.what());
  }
  return t;
}

}  // namespace bam::tools
