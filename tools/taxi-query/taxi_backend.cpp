// The backend part both taxi-query backends share (taxi_backend.hpp).
#include "taxi_backend.hpp"

#include "bam/storage/context_caps.hpp"

namespace bam::tools {

void taxi_backend::open(const run_config& c) {
  check_needs(c);
  table_ = std::make_unique<taxi_table>(open_taxi_table(c, column_check::checksum));
  data_ = c.taxi.data;
  place_seconds_ = 0;
  open_storage(c);
}

backend_caps taxi_backend::capabilities() const {
  return context_backend_caps(max_threads_);
}

run_result taxi_backend::run(const run_config& c, const run_hooks& hooks) {
  if (c.taxi.data != data_) open(c);  // another table: placed anew
  std::vector<taxi_outcome> outcomes;
  for (taxi_impl impl : taxi_impls(c)) {
    outcomes.push_back(run_impl(impl, c));
    if (hooks.ios_done) hooks.ios_done->fetch_add(table_->rows());
  }
  run_result r = taxi_result(c, *table_, outcomes, hooks.verify);
  describe(r.tool_stats);
  r.tool_stats["taxi"]["placement_seconds"] = place_seconds_;
  return r;
}

}  // namespace bam::tools
