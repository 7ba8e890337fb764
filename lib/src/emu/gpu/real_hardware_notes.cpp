// What a run on GPU-emulated SSDs differs in from real hardware, in words.
#include "bam/emu/gpu/real_hardware_notes.hpp"

namespace bam::emu::gpu {

std::string emulated_media_note(bool pinned_host) {
  std::string s =
      pinned_host
          ? "media in pinned host memory: every read and write crosses PCIe, as a real SSD's DMA "
            "would; small random reads of pinned memory also pay an address translation that "
            "grows with the footprint, however the memory is pinned (docs/gpu-engine.md, \"The "
            "pinned footprint's fall is the platform's\"), which a real SSD's flash does not: "
            "compare a rate with report.measure_ceilings, which reads the same footprint; past "
            "the GPU's translation reach the GPU divides those reads unevenly among SMs, so where "
            "the engine's blocks land decides which queues wait (gpu.engine_placement; "
            "docs/gpu-engine.md, \"Where the engine's blocks land\")"
          : "media in GPU memory: no data crosses PCIe, where a real SSD's DMA would";
  s += "; the engine that serves the drives runs on SMs of this GPU (engine_sms), which a real "
       "SSD's controller would not take from the application";
  return s;
}

}  // namespace bam::emu::gpu
