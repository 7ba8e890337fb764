// The faults of a run config's SSDs, as the emulators take them.
#include "bam/emu/faults_of_config.hpp"

namespace bam::emu {

fault_config fault_config_of(const run_config& c, std::uint32_t ssd) {
  const fault_settings s = faults_of(c.storage, ssd);
  fault_config f;
  f.error_fraction = s.error_fraction;
  f.error_status = nvme::status{static_cast<std::uint8_t>(s.error_status >> 8),
                                static_cast<std::uint8_t>(s.error_status & 0xffu)};
  f.delay_fraction = s.delay_fraction;
  f.delay_ns = s.delay_us * 1000;
  f.drop_fraction = s.drop_fraction;
  f.seed = s.seed;
  return f;
}

}  // namespace bam::emu
