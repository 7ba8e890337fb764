// Emulated controller: file media keeps its blocks across controller instances.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "bam/emu/emulated_controller.hpp"
#include "raw_host.hpp"

namespace {
using namespace bam;
namespace sc = nvme::sc;

emu::controller_options file_options(const std::string& path) {
  emu::controller_options o;
  o.lba_size = 4096;
  o.namespace_lbas = 64;
  o.media = emu::media_kind::file;
  o.media_path = path;
  return o;
}

nvme::command rw(nvme::nvm_opcode op, std::uint64_t slba, const dma_buffer& b) {
  nvme::command c = test::io_cmd(op, slba, 1);
  c.prp1 = b.bus_address();
  return c;
}

TEST(EmuMedia, FileMediaPersistsAcrossInstances) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("bam_emu_media_" + std::to_string(::getpid()) + ".img"))
                               .string();
  std::filesystem::remove(path);
  {
    emu::emulated_controller c(file_options(path));
    c.start();
    test::raw_host h(c);
    ASSERT_TRUE(h.enable().ready());
    auto q = h.create_pair(1, 4);
    dma_buffer b(c.allocator(), 4096);
    for (int i = 0; i < 4096; ++i)
      b.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(i * 7);
    ASSERT_EQ(q->run(rw(nvme::nvm_opcode::write, 17, b)).status(), sc::success);
    ASSERT_EQ(q->run(test::io_cmd(nvme::nvm_opcode::flush)).status(), sc::success);
  }
  EXPECT_EQ(std::filesystem::file_size(path), 64u * 4096);
  {
    emu::emulated_controller c(file_options(path));
    c.start();
    test::raw_host h(c);
    ASSERT_TRUE(h.enable().ready());
    auto q = h.create_pair(1, 4);
    dma_buffer b(c.allocator(), 4096);
    ASSERT_EQ(q->run(rw(nvme::nvm_opcode::read, 17, b)).status(), sc::success);
    for (int i = 0; i < 4096; ++i)
      ASSERT_EQ(b.as<std::uint8_t>()[i], static_cast<std::uint8_t>(i * 7)) << i;
    ASSERT_EQ(q->run(rw(nvme::nvm_opcode::read, 16, b)).status(), sc::success);
    EXPECT_EQ(b.as<std::uint8_t>()[100], 0u);  // never written
  }
  std::filesystem::remove(path);
}

TEST(EmuMedia, FileMediaNeedsAPath) {
  emu::controller_options o;
  o.media = emu::media_kind::file;
  EXPECT_THROW(emu::emulated_controller{o}, std::invalid_argument);
}
}  // namespace
