// Test helper: where cache-bench is, and the bamkit.stats of a report's first job.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace bam::test {

inline const std::string cache_bench_bin = CACHE_BENCH_BIN;

/// bamkit.stats of the first job (single-job reports keep bamkit at the top level).
inline const nlohmann::json& stats_of(const nlohmann::json& doc) {
  const nlohmann::json& job = doc["jobs"][0];
  return job.contains("bamkit") ? job["bamkit"]["stats"] : doc["bamkit"]["stats"];
}

}  // namespace bam::test
