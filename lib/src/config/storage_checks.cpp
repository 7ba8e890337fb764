// The nvme backend's storage keys: device path checks (part of validate) and the resolution of
// storage.nvme_ordering_read.
#include <fmt/format.h>

#include <bit>
#include <filesystem>
#include <set>
#include <system_error>

#include "bam/config/config_io.hpp"

namespace bam {

void validate_device_paths(const storage_config& s) {
  const char* key = "storage.device_paths";
  if (s.ssd_count != s.device_paths.size()) {
    throw config_error(key, fmt::format("{} device file(s) for storage.ssd_count = {}: backend "
                                        "\"nvme\" needs exactly one per SSD",
                                        s.device_paths.size(), s.ssd_count));
  }
  std::set<std::string> seen;
  for (const std::string& p : s.device_paths) {
    if (p.empty()) throw config_error(key, "an empty path, allowed /dev/bamkit-nvmeN files");
    std::error_code ec;
    const auto st = std::filesystem::status(p, ec);
    if (!std::filesystem::exists(st)) {
      throw config_error(key, fmt::format("\"{}\" does not exist (bind the controller to "
                                          "bamkit.ko: see kmod/README.md)",
                                          p));
    }
    if (!std::filesystem::is_character_file(st)) {
      throw config_error(key, fmt::format("\"{}\" is not a character device, allowed "
                                          "/dev/bamkit-nvmeN files",
                                          p));
    }
    if (!seen.insert(p).second) {
      throw config_error(key, fmt::format("\"{}\" is given twice: one controller per SSD", p));
    }
  }
}

std::uint32_t lba_shift_of(const storage_config& s) {
  return static_cast<std::uint32_t>(std::countr_zero(s.lba_size));
}

bool nvme_ordering_read_enabled(const run_config& c) {
  const std::string& v = c.storage.nvme_ordering_read;
  if (v == "auto") return c.storage.backend == backend_kind::nvme;
  return v == "on";
}

}  // namespace bam
