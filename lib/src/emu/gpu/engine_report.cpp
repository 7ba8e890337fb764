// The GPU-emulated drives' engine as the reports name it.
#include "bam/emu/gpu/engine_report.hpp"

#include "bam/config/run_config.hpp"

namespace bam::emu::gpu {

nlohmann::json engine_report(const emulated_drives& drives) {
  return {{"engine_warps", drives.engine_warps()},
          {"engine_blocks", drives.engine_blocks()},
          {"engine_app_warps", drives.engine_app_warps()},
          {"engine_placement",
           to_string(drives.engine_on_first_sms() ? gpu_engine_placement::first_sms
                                                  : gpu_engine_placement::scheduler)},
          {"engine_sms", drives.engine_sms()},
          {"engine_handovers", drives.handovers()}};
}

}  // namespace bam::emu::gpu
