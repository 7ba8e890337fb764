// The GPU-emulated drives' engine as the reports name it.
#include "bam/emu/gpu/engine_report.hpp"

namespace bam::emu::gpu {

nlohmann::json engine_report(const emulated_drives& drives) {
  return {{"engine_warps", drives.engine_warps()},
          {"engine_blocks", drives.engine_blocks()},
          {"engine_app_warps", drives.engine_app_warps()},
          {"engine_placement", drives.engine_on_first_sms() ? "first-sms" : "scheduler"},
          {"engine_sms", drives.engine_sms()},
          {"engine_handovers", drives.handovers()}};
}

}  // namespace bam::emu::gpu
