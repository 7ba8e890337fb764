// Named regions of a dataset and their manifest (bam/storage/regions.hpp, manifest.hpp).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "bam/storage/checksum.hpp"
#include "bam/storage/manifest.hpp"
#include "bam/storage/regions.hpp"
#include "bam/storage/stripes.hpp"

namespace {

using bam::region_table;

const bam::dataset_geometry geometry{4, 512};

TEST(RegionTable, RegionsStartAtStripeUnitsAfterTheManifest) {
  region_table t;
  const bam::region a = t.add("graph.offsets", 1000);
  EXPECT_EQ(a.offset, 65536u);
  const bam::region b = t.add("graph.edges", 65536);
  EXPECT_EQ(b.offset, 131072u);
  const bam::region c = t.add("taxi.trip_distance", 1);
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
  EXPECT_THROW(t.add(std::string(56, 'n'), 10), std::invalid_argument);
  EXPECT_EQ(t.add(std::string(55, 'n'), 10).name.size(), 55u);  // the longest a manifest holds
  EXPECT_THROW(t.add(std::string("a\0b", 3), 10), std::invalid_argument);
  EXPECT_THROW(t.add("a", 10), std::invalid_argument);
  EXPECT_THROW(t.add("b", 0), std::invalid_argument);
  EXPECT_EQ(t.regions().size(), 2u);
  try {
    t.at("missing");
    FAIL() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("\"missing\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("regions: a, nnn"), std::string::npos) << e.what();
  }
}

TEST(RegionTable, TheManifestRoundTrips) {
  region_table t;
  t.add("graph.offsets", 8 * 1001);
  t.add("graph.edges", 4 * 123456);
  const std::vector<std::byte> payload(4 * 123456, std::byte{7});
  t.mark_written("graph.edges", payload.size() - 3,
                 bam::checksum64(payload.data(), payload.size() - 3));
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
  EXPECT_EQ(back.regions()[1].written_bytes, payload.size() - 3);
  EXPECT_EQ(back.regions()[1].checksum, bam::checksum64(payload.data(), payload.size() - 3));
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

/// `good` with entry `i` changed by `change` and the checksum made valid again: what a manifest
/// written by other code (or damaged before its checksum was taken) could hold.
template <class F>
std::vector<std::byte> with_entry(std::vector<std::byte> good, std::size_t i, F change) {
  bam::manifest_entry e;
  std::byte* at = good.data() + sizeof(bam::manifest_header) + i * sizeof e;
  std::memcpy(&e, at, sizeof e);
  change(e);
  std::memcpy(at, &e, sizeof e);
  bam::manifest_header h;
  std::memcpy(&h, good.data(), sizeof h);
  h.checksum = 0;
  bam::checksum64_stream sum;
  sum.update(&h, sizeof h);
  sum.update(good.data() + sizeof h, good.size() - sizeof h);
  h.checksum = sum.digest();
  std::memcpy(good.data(), &h, sizeof h);
  return good;
}

TEST(RegionTable, ManifestEntriesThatOverlapOrLieAreRefusedThoughTheChecksumHolds) {
  region_table t;
  t.add("a", 100000);
  t.add("b", 100);
  const std::vector<std::byte> good = t.encode(geometry);
  ASSERT_EQ(region_table::decode(good, geometry).regions().size(), 2u);
  const auto refused = [&](const std::vector<std::byte>& m, const char* why) {
    const std::string e = decode_error(m, geometry);
    EXPECT_NE(e.find(why), std::string::npos) << e;
  };
  refused(with_entry(good, 1, [](bam::manifest_entry& e) { e.offset = 65536 * 2; }),
          "overlaps the one before");
  refused(with_entry(good, 1, [](bam::manifest_entry& e) { e.offset += 512; }), "misaligned");
  refused(with_entry(good, 1, [](bam::manifest_entry& e) { e.name[0] = 'a'; }), "repeats a name");
  refused(with_entry(good, 1, [](bam::manifest_entry& e) { e.written_bytes = 101; }),
          "past its end");
  refused(with_entry(good, 1, [](bam::manifest_entry& e) { e.bytes = ~std::uint64_t{0}; }),
          "past its end");
  refused(with_entry(good, 0, [](bam::manifest_entry& e) { e.flags = 6; }), "does not know");
  refused(with_entry(good, 0, [](bam::manifest_entry& e) { e.name.fill('x'); }), "no valid name");
}

TEST(Stripes, PiecesOfAnUnalignedRangeFollowTheStripeRule) {
  // Bytes [65536 * 3 - 100, 65536 * 5 + 7) over 3 SSDs: the end of unit 2, units 3 and 4, the
  // start of unit 5.
  std::vector<bam::stripe_piece> got;
  bam::for_each_stripe_piece(65536 * 3 - 100, 2 * 65536 + 107, 3,
                             [&](const bam::stripe_piece& p) { got.push_back(p); });
  ASSERT_EQ(got.size(), 4u);
  const std::uint64_t ssd[] = {2, 0, 1, 2}, off[] = {65536 - 100, 65536, 65536, 65536};
  const std::uint64_t len[] = {100, 65536, 65536, 7}, from[] = {0, 100, 65636, 131172};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(got[i].ssd, ssd[i]) << i;
    EXPECT_EQ(got[i].ssd_offset, off[i]) << i;
    EXPECT_EQ(got[i].bytes, len[i]) << i;
    EXPECT_EQ(got[i].range_offset, from[i]) << i;
  }
}

TEST(RegionTable, TooManyRegionsForOneStripeUnitAreRefused) {
  region_table t;
  for (int i = 0; i < 682; ++i) {
    std::string name = "r";
    name += std::to_string(i);
    t.add(name, 1);
  }
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

// The one text form of a checksum: written as 16 lower-case hex digits, read back only so.
TEST(Checksum, TextFormRoundTripsAndNothingElseParses) {
  EXPECT_EQ(bam::checksum_hex(0xef46db3751d8e999ull), "ef46db3751d8e999");
  EXPECT_EQ(bam::checksum_hex(0x1a), "000000000000001a");
  for (const std::uint64_t v : {0ull, 1ull, 0xef46db3751d8e999ull, ~0ull})
    EXPECT_EQ(bam::parse_checksum_hex(bam::checksum_hex(v)), v);
  for (const char* bad :
       {"", "1a", "EF46DB3751D8E999", "ef46db3751d8e99", "ef46db3751d8e9990", " ef46db3751d8e99",
        "+f46db3751d8e999", "0xf46db3751d8e99", "ef46db3751d8e99g"})
    EXPECT_FALSE(bam::parse_checksum_hex(bad).has_value()) << bad;
}

}  // namespace
