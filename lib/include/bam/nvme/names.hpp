// bam/nvme/names.hpp: API. Human-readable names of NVMe status codes and opcodes, as the
// specification spells them, for logs, errors and reports. Host only (lib/src/nvme/names.cpp);
// a fmt formatter for `status` is declared outside CUDA compilation.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "bam/nvme/spec.hpp"

namespace bam::nvme {

/// The specification's name of a status ("Successful Completion", "LBA Out of Range", ...);
/// "Unknown status" for codes it does not know. DNR and More are ignored.
std::string_view status_name(status s);

/// The status whose status_name() is `name`, compared ignoring case and with '_' taken for ' '
/// ("Unrecovered Read Error", "unrecovered_read_error"); nullopt for a name no status has.
std::optional<status> status_from_name(std::string_view name);

/// Name plus codes, e.g. "LBA Out of Range (sct 0x0, sc 0x80)"; ", dnr" / ", more" are appended
/// inside the parentheses when those bits are set.
std::string describe(status s);

/// Admin command set opcode names ("Create I/O Submission Queue", ...); "Unknown opcode" else.
std::string_view admin_opcode_name(std::uint8_t opcode);
inline std::string_view opcode_name(admin_opcode op) {
  return admin_opcode_name(static_cast<std::uint8_t>(op));
}

/// NVM command set I/O opcode names ("Read", "Write Zeroes", ...); "Unknown opcode" else.
std::string_view nvm_opcode_name(std::uint8_t opcode);
inline std::string_view opcode_name(nvm_opcode op) {
  return nvm_opcode_name(static_cast<std::uint8_t>(op));
}

/// Streams describe(s) (GoogleTest uses it to print statuses).
std::ostream& operator<<(std::ostream& os, status s);

}  // namespace bam::nvme

#if !defined(__CUDACC__)
#include <fmt/format.h>

/// fmt::format("{}", status) gives describe(status); string format specs (width, fill) apply.
template <>
struct fmt::formatter<bam::nvme::status> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(const bam::nvme::status& s, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(bam::nvme::describe(s), ctx);
  }
};
#endif
