// Faults (issue 14): the effective faults of each SSD, their checks across keys (part of
// validate) and the resolution of queues.timeout_ms.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "bam/config/config_io.hpp"
#include "bam/detail/expects.hpp"

namespace bam {

namespace {
/// Backends whose SSDs are emulated, so that they can inject faults.
bool injects_faults(backend_kind b) {
  return b == backend_kind::host || b == backend_kind::emulated;
}
}  // namespace

fault_settings faults_of(const storage_config& s, std::uint32_t ssd) {
  if (s.faults_per_ssd.empty()) return s.faults;
  BAM_EXPECTS(ssd < s.faults_per_ssd.size(), "faults_of: an SSD storage.faults_per_ssd lacks");
  return s.faults_per_ssd[ssd].over(s.faults);
}

bool faults_enabled(const storage_config& s) {
  if (s.faults_per_ssd.empty()) return s.faults.any();
  return std::any_of(s.faults_per_ssd.begin(), s.faults_per_ssd.end(),
                     [&](const fault_overrides& o) { return o.over(s.faults).any(); });
}

std::uint64_t command_timeout_ns(const run_config& c) {
  constexpr std::uint64_t ms = 1'000'000;
  if (c.queues.timeout_ms != 0) return c.queues.timeout_ms * ms;
  if (!faults_enabled(c.storage)) return 30'000 * ms;
  std::uint64_t longest_us = 0;
  const std::uint32_t n = c.storage.faults_per_ssd.empty() ? 1 : c.storage.ssd_count;
  for (std::uint32_t i = 0; i < n; ++i) {
    const fault_settings f = faults_of(c.storage, i);
    if (f.delay_fraction > 0) longest_us = std::max(longest_us, f.delay_us);
  }
  return 1'000 * ms + longest_us * 1'000;
}

void validate_faults(const run_config& c) {
  const storage_config& s = c.storage;
  const bool per_ssd = !s.faults_per_ssd.empty();
  if (per_ssd && s.faults_per_ssd.size() != s.ssd_count) {
    throw config_error("storage.faults_per_ssd",
                       fmt::format("{} entries for storage.ssd_count = {}, allowed exactly one "
                                   "per SSD, or [] (storage.faults for every SSD)",
                                   s.faults_per_ssd.size(), s.ssd_count));
  }
  const std::uint32_t n = per_ssd ? s.ssd_count : 1;
  for (std::uint32_t i = 0; i < n; ++i) {
    const fault_settings f = faults_of(s, i);
    const std::string key =
        per_ssd ? fmt::format("storage.faults_per_ssd[{}]", i) : std::string("storage.faults");
    const double sum = f.error_fraction + f.delay_fraction + f.drop_fraction;
    if (sum > 1) {
      throw config_error(key,
                         fmt::format("error_fraction + delay_fraction + drop_fraction = {:.6g} "
                                     "({} + {} + {}) is above 1, allowed a sum in [0, 1]",
                                     sum, f.error_fraction, f.delay_fraction, f.drop_fraction));
    }
    if (f.delay_fraction > 0 && f.delay_us == 0) {
      throw config_error(key + ".delay_us",
                         fmt::format("0 with delay_fraction = {}: a delay needs a length, allowed "
                                     "[1, 3600000000] (or delay_fraction = 0)",
                                     f.delay_fraction));
    }
  }
  if (faults_enabled(s) && !injects_faults(s.backend)) {
    throw config_error(per_ssd ? "storage.faults_per_ssd" : "storage.faults",
                       fmt::format("faults with backend \"{}\": only emulated SSDs inject faults, "
                                   "allowed with backend host|emulated",
                                   to_string(s.backend)));
  }
}

}  // namespace bam
