// decode_io: what an emulated controller does with each NVM command, and which status refuses it.
#include <gtest/gtest.h>

#include "bam/emu/nvm_io.hpp"
#include "bam/nvme/commands.hpp"

namespace {

using namespace bam;
constexpr emu::namespace_geometry ns{1, 9, 1000};
constexpr nvme::prp_pair prp{0x10000, 0};

TEST(NvmIo, ReadAndWriteMapToMediaOffsets) {
  const emu::io_request r = emu::decode_io(nvme::read(1, 10, 8, prp), ns);
  EXPECT_TRUE(r.status.ok());
  EXPECT_FALSE(r.write);
  EXPECT_TRUE(r.moves_data);
  EXPECT_EQ(r.media_offset, 10u * 512);
  EXPECT_EQ(r.bytes, 8u * 512);
  const emu::io_request w = emu::decode_io(nvme::write(1, 999, 1, prp), ns);
  EXPECT_TRUE(w.status.ok());
  EXPECT_TRUE(w.write);
  EXPECT_EQ(w.media_offset, 999u * 512);
  const emu::io_request big =
      emu::decode_io(nvme::read(1, 0, 1, prp), emu::namespace_geometry{1, 12, 10});
  EXPECT_EQ(big.bytes, 4096u);
}

TEST(NvmIo, Refusals) {
  EXPECT_EQ(emu::decode_io(nvme::read(1, 1000, 1, prp), ns).status, nvme::sc::lba_out_of_range);
  EXPECT_EQ(emu::decode_io(nvme::read(1, 999, 2, prp), ns).status, nvme::sc::lba_out_of_range);
  EXPECT_EQ(emu::decode_io(nvme::read(2, 0, 1, prp), ns).status, nvme::sc::invalid_namespace);
  nvme::command c = nvme::read(1, 0, 1, prp);
  c.opcode = 0x7f;
  EXPECT_EQ(emu::decode_io(c, ns).status, nvme::sc::invalid_opcode);
  c = nvme::read(1, 0, 1, prp);
  c.flags = 1u << 6;  // SGL
  EXPECT_EQ(emu::decode_io(c, ns).status, nvme::sc::invalid_field);
  // 4097 blocks of 512 B exceed the 2 MiB transfer limit.
  const emu::namespace_geometry large{1, 9, 1u << 20};
  EXPECT_EQ(emu::decode_io(nvme::read(1, 0, 4097, prp), large).status, nvme::sc::invalid_field);
  EXPECT_TRUE(emu::decode_io(nvme::read(1, 0, 4096, prp), large).status.ok());
  const emu::io_request f = emu::decode_io(nvme::flush(1), ns);
  EXPECT_TRUE(f.status.ok());
  EXPECT_FALSE(f.moves_data);
  EXPECT_TRUE(emu::decode_io(nvme::flush(0xffffffffu), ns).status.ok());
  EXPECT_EQ(emu::decode_io(nvme::flush(3), ns).status, nvme::sc::invalid_namespace);
}

}  // namespace
