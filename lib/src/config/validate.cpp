// Cross-key validation of run_config, and validation against a backend's capabilities.
#include <fmt/format.h>

#include "bam/cache/cache_config.hpp"
#include "bam/config/config_io.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam {
namespace {

/// The file baselines (uring, cufile) read one file: media.kind=file, one SSD.
void check_one_file(const storage_config& s) {
  const char* backend = to_string(s.backend);
  if (s.media.kind != media_kind::file) {
    throw config_error("storage.media.kind",
                       fmt::format("\"{}\" is not allowed with backend \"{}\", allowed file",
                                   to_string(s.media.kind), backend));
  }
  if (s.ssd_count != 1) {
    throw config_error("storage.ssd_count",
                       fmt::format("{} is out of range for backend \"{}\" (one file), "
                                   "allowed [1, 1]",
                                   s.ssd_count, backend));
  }
}

}  // namespace

void validate(const run_config& c) {
  validate_ranges(c);
  const storage_config& s = c.storage;
  const workload_config& w = c.workload;
  const std::uint64_t lba = s.lba_size;

  if (!resolve(s.model)) {
    throw config_error("storage.model",
                       fmt::format("unknown preset \"{}\", allowed {}, a model file "
                                   "(a path ending in .json) or an inline object",
                                   s.model.name, fmt::join(ssd_model_names(), "|")));
  }
  if (s.media.size_bytes % lba != 0) {
    throw config_error("storage.media.size_bytes",
                       fmt::format("{} is not a multiple of storage.lba_size ({}), allowed "
                                   "multiples of {}",
                                   s.media.size_bytes, lba, lba));
  }
  if (s.media.kind == media_kind::file && s.media.path.empty()) {
    throw config_error("storage.media.path", "required when storage.media.kind is \"file\"");
  }
  switch (s.backend) {
    case backend_kind::host:
      if (s.media.kind == media_kind::gpu) {
        throw config_error("storage.media.kind",
                           "\"gpu\" is not allowed with backend \"host\", allowed host|file");
      }
      break;
    case backend_kind::uring:
      check_one_file(s);
      if (c.workload.op != io_op::read) {
        throw config_error("workload.op", fmt::format("\"{}\" is not allowed with backend "
                                                      "\"uring\", allowed read",
                                                      to_string(c.workload.op)));
      }
      if (c.uring.direct && w.io_size % 4096 != 0) {
        throw config_error("workload.io_size",
                           fmt::format("{} with uring.direct = true (O_DIRECT): allowed "
                                       "multiples of 4096",
                                       w.io_size));
      }
      break;
    case backend_kind::cufile:
      check_one_file(s);
      if (w.outstanding != 1) {
        throw config_error("workload.outstanding",
                           fmt::format("{} is out of range for backend \"cufile\" (synchronous "
                                       "cuFileRead/cuFileWrite: one I/O in flight per thread, "
                                       "use more workload.threads), allowed [1, 1]",
                                       w.outstanding));
      }
      if (w.io_size % 4096 != 0) {
        throw config_error("workload.io_size",
                           fmt::format("{} with backend \"cufile\" (O_DIRECT, GPU pages): "
                                       "allowed multiples of 4096",
                                       w.io_size));
      }
      break;
    case backend_kind::nvme:
      validate_device_paths(s);
      break;
    case backend_kind::emulated:
      if (s.media.kind == media_kind::file) {
        throw config_error("storage.media.kind",
                           "\"file\" is not allowed with backend \"emulated\", allowed host|gpu");
      }
      break;
    case backend_kind::zerocopy:
      if (s.media.kind != media_kind::host) {
        throw config_error("storage.media.kind",
                           fmt::format("\"{}\" is not allowed with backend \"zerocopy\" (GPU "
                                       "threads read pinned host memory), allowed host",
                                       to_string(s.media.kind)));
      }
      break;
  }

  validate_faults(c);  // faults (issue 14)

  if (s.nvme_ordering_read == "on" && s.backend != backend_kind::nvme) {
    throw config_error("storage.nvme_ordering_read",
                       fmt::format("\"on\" is not allowed with backend \"{}\", allowed auto|off "
                                   "(the nvme backend's switch; backend emulated issues the "
                                   "ordering read with storage.protocol hardware)",
                                   to_string(s.backend)));
  }

  // ---- storage.protocol (issue 14: honest emulation) ----
  if (s.protocol == storage_protocol::emulator && s.backend != backend_kind::emulated) {
    throw config_error(
        "storage.protocol",
        fmt::format("\"emulator\" is not allowed with backend \"{}\", allowed "
                    "hardware (device-scope doorbells need the controller on the "
                    "GPU: backend emulated; {})",
                    to_string(s.backend),
                    s.backend == backend_kind::nvme || s.backend == backend_kind::host
                        ? "this backend's queues already run the real protocol"
                        : "this backend has no NVMe queues"));
  }
  // ---- end storage.protocol ----

  if (w.io_size % lba != 0) {
    throw config_error("workload.io_size",
                       fmt::format("{} is not a multiple of storage.lba_size ({}), allowed "
                                   "multiples of {} in [{}, {}]",
                                   w.io_size, lba, lba, lba, c.dataset()));
  }
  if (w.dataset_bytes > s.media.size_bytes) {
    throw config_error(
        "workload.dataset_bytes",
        fmt::format("{} is larger than the media (storage.media.size_bytes = {}), "
                    "allowed [{}, {}] or 0 (the whole media)",
                    w.dataset_bytes, s.media.size_bytes, w.io_size, s.media.size_bytes));
  }
  if (w.io_size > c.dataset()) {
    throw config_error("workload.io_size",
                       fmt::format("{} is larger than the dataset ({} bytes), allowed multiples "
                                   "of {} in [{}, {}]",
                                   w.io_size, c.dataset(), lba, lba, c.dataset()));
  }
  if (w.ios == 0 && w.duration_s == 0) {
    throw config_error("workload.ios",
                       "0 with workload.duration_s = 0 would never stop, allowed: ios >= 1 or "
                       "duration_s > 0");
  }
  if (c.cache.line_size % lba != 0) {
    throw config_error("cache.line_size",
                       fmt::format("{} is not a multiple of storage.lba_size ({}), allowed "
                                   "powers of two in [{}, {}]",
                                   c.cache.line_size, lba, lba, max_line_bytes));
  }
  if (c.cache.capacity % c.cache.line_size != 0) {
    throw config_error("cache.capacity",
                       fmt::format("{} is not a multiple of cache.line_size ({}), allowed "
                                   "multiples of {}",
                                   c.cache.capacity, c.cache.line_size, c.cache.line_size));
  }
  if (c.graph.source && c.graph.sources != 1) {
    throw config_error("graph.sources",
                       fmt::format("{} with graph.source = {} given, allowed 1 (a given source) "
                                   "or graph.source = null (sources picked)",
                                   c.graph.sources, *c.graph.source));
  }
}

void validate_against(const run_config& c, const backend_caps& caps) {
  const char* backend = to_string(c.storage.backend);
  if (caps.max_ssds != 0 && c.storage.ssd_count > caps.max_ssds) {
    throw config_error("storage.ssd_count",
                       fmt::format("{} is above the {} SSDs backend \"{}\" has, allowed [1, {}]",
                                   c.storage.ssd_count, caps.max_ssds, backend, caps.max_ssds));
  }
  if (caps.max_queue_entries != 0 && c.queues.depth > caps.max_queue_entries) {
    throw config_error("queues.depth",
                       fmt::format("{} is above the controller's maximum queue size {} (CAP.MQES "
                                   "+ 1), allowed [{}, {}]",
                                   c.queues.depth, caps.max_queue_entries, min_queue_entries,
                                   caps.max_queue_entries));
  }
  if (caps.max_pairs_per_ssd != 0 && c.queues.pairs_per_ssd > caps.max_pairs_per_ssd) {
    throw config_error(
        "queues.pairs_per_ssd",
        fmt::format("{} is above the {} I/O queue pairs the controller grants, "
                    "allowed [1, {}]",
                    c.queues.pairs_per_ssd, caps.max_pairs_per_ssd, caps.max_pairs_per_ssd));
  }
  if (caps.max_transfer_bytes != 0 && c.workload.io_size > caps.max_transfer_bytes) {
    throw config_error("workload.io_size",
                       fmt::format("{} is above the controller's maximum transfer size {} "
                                   "(MDTS), allowed multiples of {} in [{}, {}]",
                                   c.workload.io_size, caps.max_transfer_bytes, c.storage.lba_size,
                                   c.storage.lba_size, caps.max_transfer_bytes));
  }
  if (caps.media_bytes != 0 && c.dataset() > caps.media_bytes) {
    throw config_error(
        "workload.dataset_bytes",
        fmt::format("{} bytes is larger than the media ({} bytes), allowed "
                    "[{}, {}]",
                    c.dataset(), caps.media_bytes, c.workload.io_size, caps.media_bytes));
  }
  if (caps.max_threads != 0 && c.workload.threads > caps.max_threads) {
    throw config_error(
        "workload.threads",
        fmt::format("{} is above the {} threads backend \"{}\" supports, allowed "
                    "[1, {}]",
                    c.workload.threads, caps.max_threads, backend, caps.max_threads));
  }
}

}  // namespace bam
