// queue_runner.hpp: the workload loop shared by the backends whose CPU threads drive BaM queue
// pairs (host: emulated controllers, nvme: controllers bound to bamkit.ko). Creates the queue
// pairs, runs the optional verify fill and the measured phase, and reports queue statistics.
#pragma once
#include <vector>

#include "bam/dma.hpp"
#include "bam/driver/controller_driver.hpp"
#include "bam/harness/backend.hpp"

namespace bam::tools {

/// One SSD as the runner sees it: its driver and the allocator of memory it can DMA into.
struct queue_ssd {
  controller_driver* driver = nullptr;
  dma_allocator* data_allocator = nullptr;
};

/// Runs `c`'s workload on `ssds` (c.storage.ssd_count of them): pairs_per_ssd queue pairs of
/// c.queues.depth entries per SSD, thread t on pair t % pairs_per_ssd of every SSD, each thread
/// keeping workload.outstanding I/Os in flight in DMA memory of its own per SSD. Doorbell is
/// memory_doorbell for emulated controllers and mmio_doorbell for real ones. A thread waits for
/// its I/Os oldest first: with outstanding > 1 this needs a controller that completes each
/// queue's commands in order (the host emulated one does; see nvme_backend.cpp). tool_stats gets
/// "queues", "doorbell_writes_per_command" and, with hooks.verify, the verify counts.
template <class Doorbell>
run_result run_queue_workload(const run_config& c, const run_hooks& hooks,
                              const std::vector<queue_ssd>& ssds);

/// Throws config_error("workload.outstanding") when the I/Os in flight on one queue pair could
/// fill it (a thread waits for its oldest I/O, so a full queue could deadlock across SSDs).
void check_outstanding_fits(const run_config& c);

}  // namespace bam::tools
