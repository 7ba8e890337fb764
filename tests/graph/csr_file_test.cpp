// The .csr file: what write_csr lays down (header fields, aligned sections, XXH64 over header
// and payload) reads back equal; every corruption is refused naming the byte offset; a failed
// write leaves nothing behind.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <random>

#include "bam/graph/csr_file.hpp"
#include "bam/storage/checksum.hpp"
#include "graph_test_util.hpp"

namespace bam::test {
namespace {

using graph::csr_header;

graph::csr_graph small_graph(bool weighted) {
  // 0 -> 1, 2; 1 -> 0; 2 -> 0, 2 (a self-loop); 3 isolated; 4 -> 1
  graph::csr_graph g = graph_of({{1, 2}, {0}, {0, 2}, {}, {1}});
  if (weighted) g.weights = {0.5f, 1.5f, 2.0f, -3.25f, 4.0f, 1e-7f};
  g.id_base = 1;
  return g;
}

template <class T>
T field_at(const std::vector<char>& b, std::size_t offset) {
  T v;
  std::memcpy(&v, b.data() + offset, sizeof v);
  return v;
}

template <class T>
void set_field(std::vector<char>& b, std::size_t offset, T v) {
  std::memcpy(b.data() + offset, &v, sizeof v);
}

/// The XXH64 the format defines, recomputed from the file's bytes.
std::uint64_t checksum_of_file(const std::vector<char>& b) {
  const auto h = field_at<csr_header>(b, 0);
  checksum64_stream s;
  s.update(b.data(), offsetof(csr_header, checksum));
  s.update(b.data() + h.offsets_offset, h.offsets_bytes);
  s.update(b.data() + h.neighbours_offset, h.neighbours_bytes);
  if (h.weights_bytes) s.update(b.data() + h.weights_offset, h.weights_bytes);
  return s.digest();
}

void fix_checksum(std::vector<char>& b) {
  set_field(b, offsetof(csr_header, checksum), checksum_of_file(b));
}

TEST(CsrFile, HeaderStatesTheLayoutAndTheChecksumCoversHeaderAndPayload) {
  temp_dir dir;
  const auto path = dir / "g.csr";
  const graph::csr_graph g = small_graph(true);
  const csr_header written = graph::write_csr(g, path);
  const std::vector<char> b = read_bytes(path);
  const auto h = field_at<csr_header>(b, 0);
  EXPECT_EQ(std::string(h.magic, 6), "BAMCSR");
  EXPECT_EQ(h.version, 1u);
  EXPECT_EQ(h.header_bytes, 128u);
  EXPECT_EQ(h.vertex_count, 5u);
  EXPECT_EQ(h.edge_count, 6u);
  EXPECT_EQ(h.neighbour_bytes, 4u);
  EXPECT_EQ(h.flags, graph::csr_flag_weights);
  EXPECT_EQ(h.id_base, 1u);
  EXPECT_EQ(h.section_alignment, 65536u);
  EXPECT_EQ(h.offsets_offset, 65536u);
  EXPECT_EQ(h.offsets_bytes, 6u * 8);
  EXPECT_EQ(h.neighbours_offset, 2u * 65536);
  EXPECT_EQ(h.neighbours_bytes, 6u * 4);
  EXPECT_EQ(h.weights_offset, 3u * 65536);
  EXPECT_EQ(h.weights_bytes, 6u * 4);
  EXPECT_EQ(h.file_bytes, b.size());
  EXPECT_EQ(h.file_bytes, 3u * 65536 + 24);
  EXPECT_EQ(h.checksum, checksum_of_file(b));
  EXPECT_EQ(h.checksum, written.checksum);
  EXPECT_EQ(field_at<std::uint64_t>(b, h.offsets_offset + 8 * 3), 5u);  // offsets[3]
  EXPECT_EQ(field_at<std::uint32_t>(b, h.neighbours_offset + 4 * 4), 2u);
  EXPECT_EQ(field_at<float>(b, h.weights_offset + 4 * 3), -3.25f);
  // Padding between sections is zero.
  for (std::size_t i = h.offsets_offset + h.offsets_bytes; i < h.neighbours_offset; i += 4093)
    EXPECT_EQ(b[i], 0);
  EXPECT_EQ(graph::read_csr_header(path).checksum, h.checksum);
}

TEST(CsrFile, ReadsBackWhatWasWritten) {
  temp_dir dir;
  for (bool weighted : {false, true}) {
    graph::csr_graph g = small_graph(weighted);
    g.symmetric = !weighted;
    graph::write_csr(g, dir / "g.csr");
    const graph::csr_graph r = graph::read_csr(dir / "g.csr");
    expect_same_graph(g, r);
    EXPECT_EQ(r.symmetric, g.symmetric);
    EXPECT_EQ(r.id_base, 1u);
    const graph::csr_graph l = graph::load_graph(dir / "g.csr");
    expect_same_graph(g, l);
  }
  // No temporary file is left beside the output.
  EXPECT_EQ(files_in(dir.path()), std::set<std::string>{"g.csr"});
}

TEST(CsrFile, EmptyGraphRoundTrips) {
  temp_dir dir;
  graph::csr_graph g;
  g.offsets = {0};
  graph::write_csr(g, dir / "e.csr");
  const graph::csr_graph r = graph::read_csr(dir / "e.csr");
  EXPECT_EQ(r.vertex_count, 0u);
  EXPECT_EQ(r.offsets, std::vector<std::uint64_t>{0});
}

class CsrCorrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    graph::write_csr(small_graph(false), path);
    bytes = read_bytes(path);
    h = field_at<csr_header>(bytes, 0);
  }
  std::string error_after_writing() {
    write_bytes(path, bytes);
    return input_error_of([&] { graph::read_csr(path); });
  }
  temp_dir dir;
  std::string path = dir / "g.csr";
  std::vector<char> bytes;
  csr_header h{};
};

TEST_F(CsrCorrupt, ShorterThanTheHeader) {
  bytes.resize(100);
  const std::string e = error_after_writing();
  EXPECT_NE(e.find("g.csr: byte 0: the file is 100 bytes, shorter than the 128-byte header"),
            std::string::npos)
      << e;
}

TEST_F(CsrCorrupt, BadMagic) {
  bytes[3] = 'X';
  EXPECT_NE(error_after_writing().find("byte 0: not a bamkit .csr file"), std::string::npos);
}

TEST_F(CsrCorrupt, UnknownVersion) {
  set_field<std::uint32_t>(bytes, offsetof(csr_header, version), 7);
  EXPECT_NE(error_after_writing().find("byte 8: version 7"), std::string::npos);
}

TEST_F(CsrCorrupt, SectionOffsetThatDoesNotFollowTheLayout) {
  set_field<std::uint64_t>(bytes, offsetof(csr_header, neighbours_offset), 4096);
  const std::string e = error_after_writing();
  EXPECT_NE(e.find("byte 64: neighbours section offset is 4096, expected 131072"),
            std::string::npos)
      << e;
}

TEST_F(CsrCorrupt, Truncated) {
  bytes.resize(bytes.size() - 5);
  const std::string e = error_after_writing();
  EXPECT_NE(e.find("byte " + std::to_string(h.file_bytes - 5) + ": the header says the file is " +
                   std::to_string(h.file_bytes) + " bytes, it is " +
                   std::to_string(h.file_bytes - 5) + " (truncated)"),
            std::string::npos)
      << e;
}

TEST_F(CsrCorrupt, NeighbourOutOfRangeNamesItsByte) {
  set_field<std::uint32_t>(bytes, h.neighbours_offset + 4 * 3, 9);
  fix_checksum(bytes);  // a consistent file whose contents are wrong
  const std::string e = error_after_writing();
  EXPECT_NE(e.find("byte " + std::to_string(h.neighbours_offset + 12) +
                   ": neighbour 9 (edge 3) >= vertex count 5"),
            std::string::npos)
      << e;
}

TEST_F(CsrCorrupt, OffsetsThatGoBackwards) {
  set_field<std::uint64_t>(bytes, h.offsets_offset + 8 * 2, 6);  // offsets[2] = 6 > offsets[3] = 5
  fix_checksum(bytes);
  const std::string e = error_after_writing();
  EXPECT_NE(e.find("byte " + std::to_string(h.offsets_offset + 24) +
                   ": offsets[3] = 5 is less than offsets[2] = 6"),
            std::string::npos)
      << e;
}

TEST_F(CsrCorrupt, LastOffsetIsNotTheEdgeCount) {
  set_field<std::uint64_t>(bytes, h.offsets_offset + 8 * 5, 5);
  fix_checksum(bytes);
  const std::string e = error_after_writing();
  EXPECT_NE(e.find("byte " + std::to_string(h.offsets_offset + 40) +
                   ": the last offset is 5, the edge count 6"),
            std::string::npos)
      << e;
}

TEST_F(CsrCorrupt, FlippedPayloadBitFailsTheChecksum) {
  bytes[h.neighbours_offset + 4 * 5] ^= 1;  // neighbour 1 becomes 0: still in range
  const std::string e = error_after_writing();
  EXPECT_NE(e.find("byte 120: checksum mismatch"), std::string::npos) << e;
}

TEST(CsrFile, EveryFlippedByteIsRefusedUnlessItIsPadding) {
  temp_dir dir;
  const std::string path = dir / "g.csr";
  const graph::csr_graph g = small_graph(true);
  const csr_header h = graph::write_csr(g, path);
  const std::vector<char> good = read_bytes(path);
  auto in_section = [&](std::uint64_t at) {
    return at < sizeof(csr_header) ||
           (at >= h.offsets_offset && at < h.offsets_offset + h.offsets_bytes) ||
           (at >= h.neighbours_offset && at < h.neighbours_offset + h.neighbours_bytes) ||
           (at >= h.weights_offset && at < h.weights_offset + h.weights_bytes);
  };
  std::mt19937_64 rng(5);
  int refused = 0;
  for (int k = 0; k < 400; ++k) {
    std::vector<char> b = good;
    // Half the flips in the header and sections, half anywhere.
    std::uint64_t at = rng() % b.size();
    if (k % 2 == 0) {
      const std::uint64_t starts[] = {0, h.offsets_offset, h.neighbours_offset, h.weights_offset};
      const std::uint64_t lens[] = {sizeof(csr_header), h.offsets_bytes, h.neighbours_bytes,
                                    h.weights_bytes};
      const int s = static_cast<int>(rng() % 4);
      at = starts[s] + rng() % lens[s];
    }
    b[at] = static_cast<char>(b[at] ^ static_cast<char>(1 + rng() % 255));
    write_bytes(path, b);
    try {
      const graph::csr_graph r = graph::read_csr(path);
      EXPECT_FALSE(in_section(at)) << "a flip at byte " << at << " was not noticed";
      expect_same_graph(r, g);
    } catch (const graph::input_error& e) {
      EXPECT_TRUE(in_section(at)) << "a flip in padding at " << at << " refused: " << e.what();
      ++refused;
    }
  }
  EXPECT_GE(refused, 200);  // every flip aimed at the header or a section
  // Every truncation is refused.
  for (int k = 0; k < 50; ++k) {
    std::vector<char> b = good;
    b.resize(rng() % b.size());
    write_bytes(path, b);
    EXPECT_THROW(graph::read_csr(path), graph::input_error) << b.size() << " bytes";
  }
}

TEST(CsrFile, WriteIntoAMissingDirectoryFailsAndLeavesNothing) {
  temp_dir dir;
  const std::string path = dir / "no-such-dir/g.csr";
  EXPECT_THROW(graph::write_csr(small_graph(false), path), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(files_in(dir.path()).empty());
}

TEST(CsrFile, MissingFileIsAnInputError) {
  const std::string e = input_error_of([] { graph::read_csr("/nonexistent/x.csr"); });
  EXPECT_NE(e.find("/nonexistent/x.csr: cannot open"), std::string::npos) << e;
}

}  // namespace
}  // namespace bam::test
