// bam/emu/faults_of_config.hpp: API. The faults of a run config's SSDs (storage.faults,
// storage.faults_per_ssd) as the emulators take them: the host emulated controllers
// (controller_options::faults) and the GPU engine (drive_config::faults).
#pragma once
#include <cstdint>

#include "bam/config/run_config.hpp"
#include "bam/emu/fault_injection.hpp"

namespace bam::emu {

/// SSD `ssd`'s faults (faults_of), with the delay in ns and the status as SCT and SC.
fault_config fault_config_of(const run_config& c, std::uint32_t ssd);

}  // namespace bam::emu
