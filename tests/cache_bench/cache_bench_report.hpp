// Test helper: where cache-bench is, and the bamkit.stats of a report's first job.
#pragma once
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

namespace bam::test {

/// The binary: $CACHE_BENCH_BIN when set (a copy on another machine), else the build's.
inline std::string cache_bench_bin() {
  const char* e = std::getenv("CACHE_BENCH_BIN");
  return e != nullptr && *e != '\0' ? e : CACHE_BENCH_BIN;
}

/// bamkit.stats of the first job (single-job reports keep bamkit at the top level).
inline const nlohmann::json& stats_of(const nlohmann::json& doc) {
  const nlohmann::json& job = doc["jobs"][0];
  return job.contains("bamkit") ? job["bamkit"]["stats"] : doc["bamkit"]["stats"];
}

}  // namespace bam::test
