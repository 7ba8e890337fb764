// write_file_to_ssd / read_ssd_to_file and the bam-ssd-copy tool against host emulated
// controllers: file -> SSD -> file equals byte for byte, partial last LBAs padded with zeros.
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/io/ssd_copy.hpp"
#include "bam/nvme/commands.hpp"

namespace bam {
namespace {

namespace fs = std::filesystem;

struct temp_dir {
  fs::path path;
  temp_dir() {
    std::string t = (fs::temp_directory_path() / "bamkit-ssdcopy-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::vector<char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<char> v(n);
  for (char& c : v)
    c = static_cast<char>(rng() & 0xff);
  return v;
}

void write_file(const fs::path& p, const std::vector<char>& v) {
  std::ofstream(p, std::ios::binary).write(v.data(), static_cast<std::streamsize>(v.size()));
}

std::vector<char> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class SsdCopy : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(SsdCopy, RoundTripOddSizesAndPadding) {
  temp_dir dir;
  emu::controller_options o;
  o.lba_size = GetParam();
  o.namespace_lbas = (8u << 20) / o.lba_size;
  o.mdts = 3;  // 32 KiB per command: big files take many commands
  emu::emulated_controller ctrl(o);
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator(), {});
  io_queue_pair qp = drv.create_io_queue_pair(8);
  const auto q = qp.ref();
  ssd_copy_options opts;
  opts.lba_size = drv.info().lba_size;
  opts.namespace_lbas = drv.info().namespace_lbas;
  opts.max_transfer_bytes = drv.info().max_transfer_bytes;
  ASSERT_EQ(opts.max_transfer_bytes, 32u * 1024);

  const std::uint64_t lba = GetParam();
  std::uint64_t start = 7;
  for (std::size_t size : {std::size_t{1}, std::size_t{511}, std::size_t{4097},
                           std::size_t{100'003}, std::size_t{GetParam() * 3}}) {
    const auto data = random_bytes(size, static_cast<unsigned>(size));
    write_file(dir.path / "in", data);
    // Fill the LBA after the data with 0xff so that padding is seen to be written as zeros.
    const std::uint64_t lbas = (size + lba - 1) / lba;
    {
      dma_buffer ff(ctrl.allocator(), 4096);
      std::memset(ff.as<char>(), 0xff, 4096);
      ASSERT_TRUE(q.submit_and_wait(nvme::write(1, start + lbas - 1, 1, {ff.bus_address(), 0}))
                      .status()
                      .ok());
    }
    const ssd_copy_result w = write_file_to_ssd(q, ctrl.allocator(), dir.path / "in", start, opts);
    EXPECT_EQ(w.bytes, size);
    EXPECT_EQ(w.lbas, lbas);
    EXPECT_EQ(w.padding_bytes, lbas * lba - size);
    EXPECT_EQ(w.commands, (size + 32767) / 32768);

    const ssd_copy_result r =
        read_ssd_to_file(q, ctrl.allocator(), start, size, dir.path / "out", opts);
    EXPECT_EQ(r.bytes, size);
    EXPECT_EQ(r.lbas, lbas);
    EXPECT_EQ(read_file(dir.path / "out"), data) << "size " << size;

    // The whole LBAs: data then zeros.
    read_ssd_to_file(q, ctrl.allocator(), start, lbas * lba, dir.path / "whole", opts);
    auto whole = read_file(dir.path / "whole");
    ASSERT_EQ(whole.size(), lbas * lba);
    EXPECT_TRUE(std::equal(data.begin(), data.end(), whole.begin()));
    for (std::size_t i = size; i < whole.size(); ++i)
      ASSERT_EQ(whole[i], 0) << "padding byte " << i;
    start += lbas + 3;
  }
  drv.shutdown();
}

INSTANTIATE_TEST_SUITE_P(LbaSizes, SsdCopy, ::testing::Values(512u, 4096u));

TEST(SsdCopyErrors, BeyondTheNamespaceAndMissingFile) {
  temp_dir dir;
  emu::controller_options o;
  o.namespace_lbas = 64;
  emu::emulated_controller ctrl(o);
  ctrl.start();
  controller_driver drv(ctrl.bar(), ctrl.allocator(), {});
  io_queue_pair qp = drv.create_io_queue_pair(2);
  ssd_copy_options opts;
  opts.namespace_lbas = drv.info().namespace_lbas;
  write_file(dir.path / "in", random_bytes(1024, 1));  // 2 LBAs
  EXPECT_THROW(write_file_to_ssd(qp.ref(), ctrl.allocator(), dir.path / "in", 63, opts),
               std::invalid_argument);
  EXPECT_NO_THROW(write_file_to_ssd(qp.ref(), ctrl.allocator(), dir.path / "in", 62, opts));
  EXPECT_THROW(read_ssd_to_file(qp.ref(), ctrl.allocator(), 60, 5 * 512, dir.path / "o", opts),
               std::invalid_argument);
  EXPECT_THROW(write_file_to_ssd(qp.ref(), ctrl.allocator(), dir.path / "missing", 0, opts),
               std::runtime_error);
  // Without the namespace check the controller's own error comes back as a failed command.
  opts.namespace_lbas = 0;
  try {
    write_file_to_ssd(qp.ref(), ctrl.allocator(), dir.path / "in", 63, opts);
    ADD_FAILURE() << "no ssd_io_error";
  } catch (const ssd_io_error& e) {
    EXPECT_EQ(e.status(), nvme::sc::lba_out_of_range) << e.what();
  }
  drv.shutdown();
}

int sh(const std::string& cmd) {
  return std::system((cmd + " >/dev/null 2>&1").c_str());
}

TEST(SsdCopyTool, PutThenGetThroughAnEmulatedMediaFile) {
  temp_dir dir;
  const std::string bin = BAM_SSD_COPY_BIN;
  const auto data = random_bytes(70'001, 9);
  write_file(dir.path / "in", data);
  const std::string media = (dir.path / "media").string();
  ASSERT_EQ(sh(bin + " put --emulated " + media + " --lba 1000 " + (dir.path / "in").string()), 0);
  // A second process (a new controller over the same media file) reads it back.
  ASSERT_EQ(sh(bin + " get --emulated " + media + " --lba 1000 --bytes 70001 " +
               (dir.path / "out").string()),
            0);
  EXPECT_EQ(read_file(dir.path / "out"), data);
  // Shifted by one LBA: runs, but gets other bytes.
  ASSERT_EQ(sh(bin + " get --emulated " + media + " --lba 999 --bytes 70001 " +
               (dir.path / "out2").string()),
            0);
  EXPECT_NE(read_file(dir.path / "out2"), data);
  // Exit statuses: 2 invalid command line or LBAs, 1 a device that cannot be opened.
  EXPECT_EQ(WEXITSTATUS(sh(bin + " put --lba 0 " + (dir.path / "in").string())), 2);  // no device
  EXPECT_EQ(WEXITSTATUS(sh(bin + " put --lba 0 --bogus " + (dir.path / "in").string())), 2);
  EXPECT_EQ(WEXITSTATUS(sh(bin + " get --emulated " + media + " --lba 131071 --bytes 4096 " +
                           (dir.path / "out3").string())),
            2);  // beyond the namespace
  EXPECT_EQ(WEXITSTATUS(sh(bin + " put --device " + (dir.path / "nodev").string() + " --lba 0 " +
                           (dir.path / "in").string())),
            1);
}

}  // namespace
}  // namespace bam
