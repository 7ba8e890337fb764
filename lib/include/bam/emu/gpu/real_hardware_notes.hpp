// bam/emu/gpu/real_hardware_notes.hpp: API. What a run on GPU-emulated SSDs differs in from real
// hardware, in words, for the reports' `real_hardware` lines (one text for every tool). Host code,
// no CUDA needed.
#pragma once
#include <string>

#include "bam/config/enums.hpp"

namespace bam::emu::gpu {

/// Where the emulated drives' media are and what that costs that a real SSD would not pay (or
/// does not show): with `pinned_host` media every read and write crosses PCIe, and small random
/// reads of pinned memory also pay an address translation that grows with the footprint;
/// with GPU media no data crosses PCIe. Either way the engine serving the drives runs on SMs
/// of this GPU.
std::string emulated_media_note(bool pinned_host);

/// What the run's storage.protocol made the GPU threads do, and what real hardware would differ
/// in: the hardware protocol's doorbells, completions and ordering read (which a read's latency
/// includes), or the emulator protocol's device scope, an upper bound.
std::string protocol_note(storage_protocol p);

}  // namespace bam::emu::gpu
