// Status and opcode names (bam/nvme/names.hpp): specification spellings, unknown codes, describe()
// and the fmt / ostream formatting of statuses.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sstream>
#include <string>

#include "bam/nvme/names.hpp"

namespace {
using namespace bam::nvme;

TEST(NvmeNames, StatusNamesOfEveryNamedCode) {
  EXPECT_EQ(status_name(sc::success), "Successful Completion");
  EXPECT_EQ(status_name(sc::invalid_opcode), "Invalid Command Opcode");
  EXPECT_EQ(status_name(sc::invalid_field), "Invalid Field in Command");
  EXPECT_EQ(status_name(sc::command_id_conflict), "Command ID Conflict");
  EXPECT_EQ(status_name(sc::data_transfer_error), "Data Transfer Error");
  EXPECT_EQ(status_name(sc::internal_error), "Internal Error");
  EXPECT_EQ(status_name(sc::abort_requested), "Command Abort Requested");
  EXPECT_EQ(status_name(sc::aborted_sq_deletion), "Command Aborted due to SQ Deletion");
  EXPECT_EQ(status_name(sc::invalid_namespace), "Invalid Namespace or Format");
  EXPECT_EQ(status_name(sc::command_sequence_error), "Command Sequence Error");
  EXPECT_EQ(status_name(sc::invalid_sgl_descriptor), "Invalid SGL Segment Descriptor");
  EXPECT_EQ(status_name(sc::prp_offset_invalid), "PRP Offset Invalid");
  EXPECT_EQ(status_name(sc::lba_out_of_range), "LBA Out of Range");
  EXPECT_EQ(status_name(sc::capacity_exceeded), "Capacity Exceeded");
  EXPECT_EQ(status_name(sc::namespace_not_ready), "Namespace Not Ready");
  EXPECT_EQ(status_name(sc::invalid_cq), "Completion Queue Invalid");
  EXPECT_EQ(status_name(sc::invalid_queue_id), "Invalid Queue Identifier");
  EXPECT_EQ(status_name(sc::invalid_queue_size), "Invalid Queue Size");
  EXPECT_EQ(status_name(sc::invalid_log_page), "Invalid Log Page");
  EXPECT_EQ(status_name(sc::invalid_queue_deletion), "Invalid Queue Deletion");
  EXPECT_EQ(status_name(sc::feature_not_changeable), "Feature Not Changeable");
  EXPECT_EQ(status_name(sc::write_fault), "Write Fault");
  EXPECT_EQ(status_name(sc::unrecovered_read_error), "Unrecovered Read Error");
  EXPECT_EQ(status_name(sc::access_denied), "Access Denied");
  EXPECT_EQ(status_name(sc::deallocated_or_unwritten), "Deallocated or Unwritten Logical Block");
  EXPECT_EQ(status_name(sc::host_timeout), "Host Timeout (bamkit)");
  EXPECT_EQ(status_name(status{3, 0x71}), "Command Aborted By Host");
}

TEST(NvmeNames, SameCodeDifferentTypeDiffers) {
  // SC 0x80 means LBA Out of Range (generic), Conflicting Attributes (command specific) and
  // Write Fault (media).
  EXPECT_EQ(status_name(status{0, 0x80}), "LBA Out of Range");
  EXPECT_EQ(status_name(status{1, 0x80}), "Conflicting Attributes");
  EXPECT_EQ(status_name(status{2, 0x80}), "Write Fault");
}

TEST(NvmeNames, UnknownStatus) {
  EXPECT_EQ(status_name(status{0, 0x17}), "Unknown status");  // reserved
  EXPECT_EQ(status_name(status{0, 0xff}), "Unknown status");
  EXPECT_EQ(status_name(status{1, 0x04}), "Unknown status");
  EXPECT_EQ(status_name(status{2, 0x00}), "Unknown status");
  EXPECT_EQ(status_name(status{5, 0x00}), "Unknown status");  // reserved type
  EXPECT_EQ(status_name(status{7, 0x01}), "Unknown status");
}

TEST(NvmeNames, DnrAndMoreDoNotChangeTheName) {
  status s = sc::lba_out_of_range;
  s.dnr = true;
  s.more = true;
  EXPECT_EQ(status_name(s), "LBA Out of Range");
}

TEST(NvmeNames, Describe) {
  EXPECT_EQ(describe(sc::lba_out_of_range), "LBA Out of Range (sct 0x0, sc 0x80)");
  EXPECT_EQ(describe(sc::success), "Successful Completion (sct 0x0, sc 0x00)");
  EXPECT_EQ(describe(sc::invalid_queue_id), "Invalid Queue Identifier (sct 0x1, sc 0x01)");
  EXPECT_EQ(describe(status{0, 0x17}), "Unknown status (sct 0x0, sc 0x17)");
  status s = sc::unrecovered_read_error;
  s.dnr = true;
  EXPECT_EQ(describe(s), "Unrecovered Read Error (sct 0x2, sc 0x81, dnr)");
  s.more = true;
  EXPECT_EQ(describe(s), "Unrecovered Read Error (sct 0x2, sc 0x81, dnr, more)");
  EXPECT_EQ(describe(sc::host_timeout), "Host Timeout (bamkit) (sct 0x7, sc 0xf0)");
}

TEST(NvmeNames, FmtAndOstream) {
  EXPECT_EQ(fmt::format("{}", sc::prp_offset_invalid), "PRP Offset Invalid (sct 0x0, sc 0x13)");
  EXPECT_EQ(fmt::format("[{:>40}]", sc::write_fault), "[          Write Fault (sct 0x2, sc 0x80)]");
  std::ostringstream os;
  os << sc::invalid_field;
  EXPECT_EQ(os.str(), "Invalid Field in Command (sct 0x0, sc 0x02)");
  EXPECT_EQ(testing::PrintToString(sc::access_denied), "Access Denied (sct 0x2, sc 0x86)");
}

TEST(NvmeNames, Opcodes) {
  EXPECT_EQ(opcode_name(admin_opcode::delete_io_sq), "Delete I/O Submission Queue");
  EXPECT_EQ(opcode_name(admin_opcode::create_io_sq), "Create I/O Submission Queue");
  EXPECT_EQ(opcode_name(admin_opcode::get_log_page), "Get Log Page");
  EXPECT_EQ(opcode_name(admin_opcode::delete_io_cq), "Delete I/O Completion Queue");
  EXPECT_EQ(opcode_name(admin_opcode::create_io_cq), "Create I/O Completion Queue");
  EXPECT_EQ(opcode_name(admin_opcode::identify), "Identify");
  EXPECT_EQ(opcode_name(admin_opcode::abort), "Abort");
  EXPECT_EQ(opcode_name(admin_opcode::set_features), "Set Features");
  EXPECT_EQ(opcode_name(admin_opcode::get_features), "Get Features");
  EXPECT_EQ(admin_opcode_name(0x80), "Format NVM");
  EXPECT_EQ(admin_opcode_name(0x03), "Unknown opcode");
  EXPECT_EQ(opcode_name(nvm_opcode::flush), "Flush");
  EXPECT_EQ(opcode_name(nvm_opcode::write), "Write");
  EXPECT_EQ(opcode_name(nvm_opcode::read), "Read");
  EXPECT_EQ(opcode_name(nvm_opcode::write_zeroes), "Write Zeroes");
  EXPECT_EQ(opcode_name(nvm_opcode::dataset_management), "Dataset Management");
  EXPECT_EQ(nvm_opcode_name(0x05), "Compare");
  EXPECT_EQ(nvm_opcode_name(0x03), "Unknown opcode");
  EXPECT_EQ(nvm_opcode_name(0xff), "Unknown opcode");
}

}  // namespace
