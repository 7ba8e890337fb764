// Names of NVMe status codes and opcodes (NVM Express Base 2.0, NVM Command Set 1.0).
#include "bam/nvme/names.hpp"

#include <cctype>
#include <cstddef>
#include <ostream>

#include <fmt/format.h>

namespace bam::nvme {
namespace {

struct code_name {
  std::uint8_t code;
  std::string_view name;
};

template <std::size_t N>
std::string_view lookup(const code_name (&table)[N], std::uint8_t code) {
  for (const code_name& e : table) {
    if (e.code == code) return e.name;
  }
  return {};
}

constexpr code_name generic_names[] = {
    {0x00, "Successful Completion"},
    {0x01, "Invalid Command Opcode"},
    {0x02, "Invalid Field in Command"},
    {0x03, "Command ID Conflict"},
    {0x04, "Data Transfer Error"},
    {0x05, "Commands Aborted due to Power Loss Notification"},
    {0x06, "Internal Error"},
    {0x07, "Command Abort Requested"},
    {0x08, "Command Aborted due to SQ Deletion"},
    {0x09, "Command Aborted due to Failed Fused Command"},
    {0x0a, "Command Aborted due to Missing Fused Command"},
    {0x0b, "Invalid Namespace or Format"},
    {0x0c, "Command Sequence Error"},
    {0x0d, "Invalid SGL Segment Descriptor"},
    {0x0e, "Invalid Number of SGL Descriptors"},
    {0x0f, "Data SGL Length Invalid"},
    {0x10, "Metadata SGL Length Invalid"},
    {0x11, "SGL Descriptor Type Invalid"},
    {0x12, "Invalid Use of Controller Memory Buffer"},
    {0x13, "PRP Offset Invalid"},
    {0x14, "Atomic Write Unit Exceeded"},
    {0x15, "Operation Denied"},
    {0x16, "SGL Offset Invalid"},
    {0x18, "Host Identifier Inconsistent Format"},
    {0x19, "Keep Alive Timer Expired"},
    {0x1a, "Keep Alive Timeout Invalid"},
    {0x1b, "Command Aborted due to Preempt and Abort"},
    {0x1c, "Sanitize Failed"},
    {0x1d, "Sanitize In Progress"},
    {0x1e, "SGL Data Block Granularity Invalid"},
    {0x1f, "Command Not Supported for Queue in CMB"},
    {0x20, "Namespace is Write Protected"},
    {0x21, "Command Interrupted"},
    {0x22, "Transient Transport Error"},
    {0x80, "LBA Out of Range"},
    {0x81, "Capacity Exceeded"},
    {0x82, "Namespace Not Ready"},
    {0x83, "Reservation Conflict"},
    {0x84, "Format In Progress"},
};

constexpr code_name command_specific_names[] = {
    {0x00, "Completion Queue Invalid"},
    {0x01, "Invalid Queue Identifier"},
    {0x02, "Invalid Queue Size"},
    {0x03, "Abort Command Limit Exceeded"},
    {0x05, "Asynchronous Event Request Limit Exceeded"},
    {0x06, "Invalid Firmware Slot"},
    {0x07, "Invalid Firmware Image"},
    {0x08, "Invalid Interrupt Vector"},
    {0x09, "Invalid Log Page"},
    {0x0a, "Invalid Format"},
    {0x0b, "Firmware Activation Requires Conventional Reset"},
    {0x0c, "Invalid Queue Deletion"},
    {0x0d, "Feature Identifier Not Saveable"},
    {0x0e, "Feature Not Changeable"},
    {0x0f, "Feature Not Namespace Specific"},
    {0x10, "Firmware Activation Requires NVM Subsystem Reset"},
    {0x11, "Firmware Activation Requires Controller Level Reset"},
    {0x12, "Firmware Activation Requires Maximum Time Violation"},
    {0x13, "Firmware Activation Prohibited"},
    {0x14, "Overlapping Range"},
    {0x80, "Conflicting Attributes"},
    {0x81, "Invalid Protection Information"},
    {0x82, "Attempted Write to Read Only Range"},
};

constexpr code_name media_names[] = {
    {0x80, "Write Fault"},
    {0x81, "Unrecovered Read Error"},
    {0x82, "End-to-end Guard Check Error"},
    {0x83, "End-to-end Application Tag Check Error"},
    {0x84, "End-to-end Reference Tag Check Error"},
    {0x85, "Compare Failure"},
    {0x86, "Access Denied"},
    {0x87, "Deallocated or Unwritten Logical Block"},
};

constexpr code_name path_names[] = {
    {0x00, "Internal Path Error"},
    {0x01, "Asymmetric Access Persistent Loss"},
    {0x02, "Asymmetric Access Inaccessible"},
    {0x03, "Asymmetric Access Transition"},
    {0x60, "Controller Pathing Error"},
    {0x70, "Host Pathing Error"},
    {0x71, "Command Aborted By Host"},
};

// bamkit's own codes, in the vendor-specific type.
constexpr code_name vendor_names[] = {
    {sc::host_timeout.sc, "Host Timeout (bamkit)"},
    {sc::host_queue_failed.sc, "Host Queue Failed (bamkit)"},
};

}  // namespace

std::string_view status_name(status s) {
  std::string_view name;
  switch (static_cast<status_type>(s.sct)) {
    case status_type::generic:
      name = lookup(generic_names, s.sc);
      break;
    case status_type::command_specific:
      name = lookup(command_specific_names, s.sc);
      break;
    case status_type::media:
      name = lookup(media_names, s.sc);
      break;
    case status_type::path:
      name = lookup(path_names, s.sc);
      break;
    case status_type::vendor:
      name = lookup(vendor_names, s.sc);
      break;
  }
  return name.empty() ? std::string_view{"Unknown status"} : name;
}

std::optional<status> status_from_name(std::string_view name) {
  auto same = [](std::string_view spelled, std::string_view official) {
    if (spelled.size() != official.size()) return false;
    for (std::size_t i = 0; i < spelled.size(); ++i) {
      const char a = spelled[i] == '_' ? ' ' : spelled[i];
      if (std::tolower(static_cast<unsigned char>(a)) !=
          std::tolower(static_cast<unsigned char>(official[i])))
        return false;
    }
    return true;
  };
  auto find = [&](const auto& table, status_type type) -> std::optional<status> {
    for (const code_name& e : table) {
      if (same(name, e.name)) return status{static_cast<std::uint8_t>(type), e.code};
    }
    return std::nullopt;
  };
  for (auto found : {find(generic_names, status_type::generic),
                     find(command_specific_names, status_type::command_specific),
                     find(media_names, status_type::media), find(path_names, status_type::path),
                     find(vendor_names, status_type::vendor)}) {
    if (found) return found;
  }
  return std::nullopt;
}

std::string describe(status s) {
  return fmt::format("{} (sct {:#x}, sc {:#04x}{}{})", status_name(s), s.sct, s.sc,
                     s.dnr ? ", dnr" : "", s.more ? ", more" : "");
}

constexpr code_name admin_opcode_names[] = {
    {0x00, "Delete I/O Submission Queue"},
    {0x01, "Create I/O Submission Queue"},
    {0x02, "Get Log Page"},
    {0x04, "Delete I/O Completion Queue"},
    {0x05, "Create I/O Completion Queue"},
    {0x06, "Identify"},
    {0x08, "Abort"},
    {0x09, "Set Features"},
    {0x0a, "Get Features"},
    {0x0c, "Asynchronous Event Request"},
    {0x0d, "Namespace Management"},
    {0x10, "Firmware Commit"},
    {0x11, "Firmware Image Download"},
    {0x14, "Device Self-test"},
    {0x15, "Namespace Attachment"},
    {0x18, "Keep Alive"},
    {0x7c, "Doorbell Buffer Config"},
    {0x80, "Format NVM"},
    {0x84, "Sanitize"},
};

constexpr code_name nvm_opcode_names[] = {
    {0x00, "Flush"},
    {0x01, "Write"},
    {0x02, "Read"},
    {0x04, "Write Uncorrectable"},
    {0x05, "Compare"},
    {0x08, "Write Zeroes"},
    {0x09, "Dataset Management"},
    {0x0c, "Verify"},
    {0x0d, "Reservation Register"},
    {0x0e, "Reservation Report"},
    {0x11, "Reservation Acquire"},
    {0x15, "Reservation Release"},
};

std::string_view admin_opcode_name(std::uint8_t opcode) {
  const std::string_view name = lookup(admin_opcode_names, opcode);
  return name.empty() ? std::string_view{"Unknown opcode"} : name;
}

std::string_view nvm_opcode_name(std::uint8_t opcode) {
  const std::string_view name = lookup(nvm_opcode_names, opcode);
  return name.empty() ? std::string_view{"Unknown opcode"} : name;
}

std::ostream& operator<<(std::ostream& os, status s) {
  return os << describe(s);
}

}  // namespace bam::nvme
