// taxi_backend.hpp: API (taxi-query's). What its host and GPU backends share: the table (its query
// columns' checksums checked when it opens; opened again when taxi.data changes between sweep
// points), the implementations run in taxi_impls order, and the run's result (taxi_run.hpp) with
// the placement time and the backend's own statistics. A backend adds its storage and its
// implementations.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bam/harness/backend.hpp"
#include "taxi_run.hpp"
#include "taxi_table.hpp"

namespace bam::tools {

class taxi_backend : public backend {
 public:
  /// Checks the backend's needs (check_needs), opens the table of taxi.data, then the storage.
  void open(const run_config& c) final;
  backend_caps capabilities() const final;
  /// Every implementation of taxi_impls(c), then taxi_result and the backend's statistics.
  run_result run(const run_config& c, const run_hooks& hooks) final;

 protected:
  explicit taxi_backend(std::uint32_t max_threads) : max_threads_(max_threads) {}
  /// Refuses what this backend cannot run (config_error), before the table is read.
  virtual void check_needs(const run_config&) {}
  /// Opens the storage the implementations read (table() is open); again for another table.
  virtual void open_storage(const run_config& c) = 0;
  virtual taxi_outcome run_impl(taxi_impl impl, const run_config& c) = 0;
  /// The backend's part of the run's tool_stats: its storage, what real hardware would change.
  virtual void describe(nlohmann::json& tool_stats) const = 0;

  const taxi_table& table() const { return *table_; }
  double place_seconds_ = 0;  ///< placing the columns on the SSDs (the backend adds to it)

 private:
  std::uint32_t max_threads_;
  std::unique_ptr<taxi_table> table_;
  std::string data_;
};

}  // namespace bam::tools
