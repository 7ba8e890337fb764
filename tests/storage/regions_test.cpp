// Named regions of a dataset and their manifest (bam/storage/regions.hpp, manifest.hpp).
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/storage/checksum.hpp"
#include "bam/storage/regions.hpp"

namespace {

using bam::region_table;

const bam::dataset_geometry geometry{4, 512};

TEST(RegionTable, RegionsStartAtStripeUnitsAfterTheManifest) {
  region_table t;
  const bam::region& a = t.add("graph.offsets", 1000);
  EXPECT_EQ(a.offset, 65536u);
  const bam::region& b = t.add("graph.edges", 65536);
  EXPECT_EQ(b.offset, 131072u);
  const bam::region& c = t.add("taxi.trip_distance", 1);
  EXPECT_EQ(c.offset, 196608u);
  EXPECT_EQ(t.end(), 196609u);
  // Without a manifest the first region starts at 0.
  region_table scratch(0);
  EXPECT_EQ(scratch.add("x", 8).offset, 0u);
  // Element 0 of a region starts a line for every line size.
  for (std::uint32_t line = 512; line <= 65536; line *= 2)
    EXPECT_EQ(b.as_range<std::uint32_t>(line).first_line * line, b.offset) << line;
  EXPECT_EQ(b.as_range<std::uint32_t>(4096).elements, 16384u);
}

TEST(RegionTable, BadNamesAndSizesAreRefusedAndChangeNothing) {
  region_table t;
  t.add("a", 10);
  EXPECT_THROW(t.add("", 10), std::invalid_argument);
  EXPECT_THROW(t.add(std::string(64, 'n'), 10), std::invalid_argument);
  EXPECT_THROW(t.add("a", 10), std::invalid_argument);
  EXPECT_THROW(t.add("b", 0), std::invalid_argument);
  EXPECT_EQ(t.regions().size(), 1u);
  try {
    t.at("missing");
    FAIL() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("\"missing\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("regions: a"), std::string::npos) << e.what();
  }
}

TEST(RegionTable, TheManifestRoundTrips) {
  region_table t;
  t.add("graph.offsets", 8 * 1001);
  t.add("graph.edges", 4 * 123456);
  const std::vector<std::byte> payload(4 * 123456, std::byte{7});
  t.mark_written("graph.edges", bam::checksum64(payload.data(), payload.size()));
  const std::vector<std::byte> m = t.encode(geometry);
  ASSERT_TRUE(region_table::has_manifest(m));
  const region_table back = region_table::decode(m, geometry);
  ASSERT_EQ(back.regions().size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.regions()[i].name, t.regions()[i].name);
    EXPECT_EQ(back.regions()[i].offset, t.regions()[i].offset);
    EXPECT_EQ(back.regions()[i].bytes, t.regions()[i].bytes);
    EXPECT_EQ(back.regions()[i].written, t.regions()[i].written);
  }
  EXPECT_FALSE(back.regions()[0].written);
  EXPECT_EQ(back.regions()[1].checksum, bam::checksum64(payload.data(), payload.size()));
  // A region added after reading goes after the others.
  region_table more = back;
  EXPECT_EQ(more.add("next", 1).offset, t.end() + (65536 - t.end() % 65536));
}

/// The message of the runtime_error that decoding `m` throws (empty when it does not).
std::string decode_error(const std::vector<std::byte>& m, const bam::dataset_geometry& g) {
  try {
    region_table::decode(m, g);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(RegionTable, DamagedOrForeignManifestsAreRefusedNamingWhy) {
  region_table t;
  t.add("a", 100);
  const std::vector<std::byte> good = t.encode(geometry);
  std::vector<std::byte> flipped = good;
  flipped[48 + 70] ^= std::byte{1};  // a bit of region a's offset
  EXPECT_NE(decode_error(flipped, geometry).find("checksum"), std::string::npos);
  std::vector<std::byte> zeros(good.size());
  EXPECT_FALSE(region_table::has_manifest(zeros));
  EXPECT_NE(decode_error(zeros, geometry).find("not a bamkit dataset"), std::string::npos);
  const std::string other = decode_error(good, bam::dataset_geometry{2, 512});
  EXPECT_NE(other.find("4 SSD(s)"), std::string::npos) << other;
  EXPECT_NE(other.find("storage.ssd_count"), std::string::npos) << other;
  EXPECT_NE(decode_error(good, bam::dataset_geometry{4, 4096}).find("LBAs"), std::string::npos);
  std::vector<std::byte> newer = good;
  newer[8] = std::byte{2};  // version 2
  EXPECT_NE(decode_error(newer, geometry).find("version 2"), std::string::npos);
}

TEST(RegionTable, TooManyRegionsForOneStripeUnitAreRefused) {
  region_table t;
  for (int i = 0; i < 682; ++i)
    t.add("r" + std::to_string(i), 1);
  EXPECT_NO_THROW(t.encode(geometry));  // 48 + 682 * 96 = 65520 bytes
  t.add("one-more", 1);
  EXPECT_THROW(t.encode(geometry), std::length_error);
}

TEST(Checksum, StreamedEqualsOneShotAndDiffersOnAnyBit) {
  std::vector<unsigned char> d(100000);
  for (std::size_t i = 0; i < d.size(); ++i)
    d[i] = static_cast<unsigned char>(i * 131 + 7);
  const std::uint64_t one = bam::checksum64(d.data(), d.size());
  bam::checksum64_stream s;
  s.update(d.data(), 333);
  s.update(d.data() + 333, d.size() - 333);
  EXPECT_EQ(s.digest(), one);
  d[4242] ^= 0x10;
  EXPECT_NE(bam::checksum64(d.data(), d.size()), one);
  // XXH64 of the empty input with seed 0 (the algorithm's published value).
  EXPECT_EQ(bam::checksum64(nullptr, 0), 0xef46db3751d8e999ull);
}

}  // namespace
