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
       "SSD's controller would not take from the application (what they cost it: "
       "docs/gpu-engine.md, \"The engine's SM share against the application's\")";
  return s;
}

std::string protocol_note(storage_protocol p) {
  return p == storage_protocol::hardware
             ? "storage.protocol hardware: the GPU threads ran what a real controller needs "
               "(doorbells: a system-scope fence and a volatile store; completions polled at "
               "system scope; after every read, before its data was used, the coalesced "
               "ordering read of BaM paper 4.4 on the drive's own queue pair, whose wait a "
               "read's latency includes: about one more read of its drive where a drive has at "
               "most about a thousand reads in flight, docs/gpu-engine.md, \"Where the hardware "
               "protocol's reads wait for their "
               "ordering\"). On real hardware the doorbell store and the controller's fetches, "
               "DMA and completion writes cross PCIe; here queues and doorbells are in GPU "
               "memory and the engine, on this GPU, serves them at the timing model's pace"
             : "storage.protocol emulator: device-scope doorbells and completion polling and no "
               "ordering read, possible only because the controller runs on this GPU: an upper "
               "bound, no real SSD allows it (storage.protocol hardware runs what one needs)";
}

}  // namespace bam::emu::gpu
