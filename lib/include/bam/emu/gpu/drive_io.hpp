// bam/emu/gpu/drive_io.hpp: API. Block reads and writes by GPU (or host) threads through the queues
// of emulated drives (drives_view): build the NVMe command, submit, wait (with a timeout).
// Buffers are addressed by their virtual address, which emulated controllers use as the bus
// address; a buffer of up to 4 KiB needs only PRP1 when it does not cross a 4 KiB page.
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/nvme/commands.hpp"
#include "bam/queue/queue_pair_ref.hpp"

namespace bam::emu::gpu {

/// The handle of queue `queue` of drive `drive` (the engine runs on this GPU: device scope).
BAM_HD inline queue_pair_ref<device_doorbell> drive_queue(const drives_view& v, std::uint32_t drive,
                                                          std::uint32_t queue) {
  return queue_pair_ref<device_doorbell>(v.queues[drive * v.queues_per_drive + queue]);
}

/// Reads or writes `nlb` blocks at `lba` of `drive` through `queue`; `prp` names the buffer.
/// Returns the completion (status sc::host_timeout when nothing arrived within `timeout_ns`).
BAM_HD inline nvme::completion block_io(const drives_view& v, std::uint32_t drive,
                                        std::uint32_t queue, bool write, std::uint64_t lba,
                                        std::uint32_t nlb, nvme::prp_pair prp,
                                        std::uint64_t timeout_ns) {
  const nvme::command c = write ? nvme::write(1, lba, nlb, prp) : nvme::read(1, lba, nlb, prp);
  return drive_queue(v, drive, queue).submit_and_wait(c, timeout_ns);
}

/// block_io for a buffer that fits in one 4 KiB page.
BAM_HD inline nvme::completion block_io(const drives_view& v, std::uint32_t drive,
                                        std::uint32_t queue, bool write, std::uint64_t lba,
                                        std::uint32_t nlb, void* buffer, std::uint64_t timeout_ns) {
  return block_io(v, drive, queue, write, lba, nlb,
                  nvme::prp_pair{reinterpret_cast<std::uintptr_t>(buffer), 0}, timeout_ns);
}

}  // namespace bam::emu::gpu
