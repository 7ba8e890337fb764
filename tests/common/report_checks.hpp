// tests/common/report_checks.hpp: checks of report contents that several tools' tests share.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>

#include <nlohmann/json.hpp>

namespace bam::test {

/// A version-2 report whose bamkit.ceilings were measured on a GPU: every key of the one shape,
/// random reads of `io_size` over `over_bytes`, each figure a median of 5.
inline void expect_gpu_ceilings(const nlohmann::json& doc, std::uint64_t io_size,
                                std::uint64_t over_bytes) {
  EXPECT_EQ(doc["bamkit"]["schema_version"], 2);
  const nlohmann::json& c = doc["bamkit"]["ceilings"];
  EXPECT_GT(c["h2d_memcpy_gbps"].get<double>(), 0.0);
  EXPECT_GT(c["direct_reads_per_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(c["direct_read_gbps"].get<double>(),
                   c["direct_reads_per_s"].get<double>() * double(io_size) / 1e9);
  EXPECT_EQ(c["io_size"], io_size);
  EXPECT_EQ(c["over_bytes"], over_bytes);
  EXPECT_EQ(c["median_of"], 5);
  EXPECT_TRUE(c["method"].is_string());
}

}  // namespace bam::test
