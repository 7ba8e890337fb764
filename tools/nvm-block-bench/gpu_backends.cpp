// The GPU backends of nvm-block-bench: emulated SSDs on the GPU, and zero-copy reads of pinned
// host memory.
#include "gpu_backends.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "bam/detail/cuda.hpp"
#include "bam/emu/gpu/drives_of_config.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/emu/gpu/engine_report.hpp"
#include "bam/emu/gpu/real_hardware_notes.hpp"
#include "bam/harness/data_pattern.hpp"
#include "bam/harness/gpu_ceilings.hpp"
#include "bam/nvme/names.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam::tools {
namespace {

const char* mapping_doc(gpu_queue_mapping m) {
  return m == gpu_queue_mapping::thread
             ? "gpu.queue_mapping thread: thread t uses queue (t / ssd_count) % pairs_per_ssd of "
               "its SSD; random pattern: SSD t % ssd_count, sequential: the SSD of the I/O"
             : "gpu.queue_mapping warp: thread t, warp w = t / 32 uses queue (w / ssd_count) % "
               "pairs_per_ssd of its SSD; random pattern: SSD w % ssd_count (a warp's lanes "
               "share one queue), sequential: the SSD of the I/O";
}

/// Whether every GPU thread of the run is its queue pair's only user: one command at a time, and
/// no other thread mapped to its queue pair (gpu_io_runner::run_emulated's mapping: a warp's
/// lanes share one queue; a sequential I/O goes to the SSD of its offset on the thread's queue
/// index, which the threads of one SSD stride share).
bool alone_on_queues(const run_config& c) {
  const std::uint64_t threads = c.workload.threads, ssds = c.storage.ssd_count;
  const std::uint64_t pairs = c.queues.pairs_per_ssd;
  if (c.workload.outstanding != 1) return false;
  // Sequential I/O goes to the SSD of its offset: a thread uses one queue only with one SSD.
  if (c.workload.pattern == io_pattern::sequential && ssds != 1) return false;
  if (threads <= 1) return true;
  if (c.gpu.queue_mapping == gpu_queue_mapping::warp) return false;
  return threads <= ssds * pairs;
}

bool exclusive_queues(const run_config& c) {
  return c.gpu.queue_access == gpu_queue_access::automatic && alone_on_queues(c);
}

}  // namespace

void gpu_backend_base::check_common(const run_config& c, const char* name) {
  std::string why;
  if (!cuda_device_usable(why)) {
    throw config_error("storage.backend",
                       fmt::format("\"{}\" needs a CUDA GPU and none is usable ({}), allowed "
                                   "host|uring|nvme on this machine",
                                   name, why));
  }
  if (c.storage.ssd_count > max_ssds) {
    throw config_error("storage.ssd_count",
                       fmt::format("{} is above the {} SSDs backend \"{}\" runs, allowed [1, {}]",
                                   c.storage.ssd_count, max_ssds, name, max_ssds));
  }
  // Zero-copy threads copy one I/O at a time; emulated ones may keep several commands in flight.
  const std::uint32_t most = std::string_view(name) == "emulated" ? max_gpu_outstanding : 1;
  if (c.workload.outstanding > most) {
    throw config_error("workload.outstanding",
                       fmt::format("{} is not supported by backend \"{}\": each GPU thread keeps "
                                   "at most {} I/O in flight, allowed [1, {}]",
                                   c.workload.outstanding, name, most, most));
  }
  if (c.workload.outstanding > 1) {
    // A thread holds the IDs of its commands until it has waited for all of them: the threads
    // of one queue must not hold more than its command IDs (bam/queue/queue_pair_ref.hpp).
    const std::uint64_t queues = std::uint64_t{c.storage.ssd_count} * c.queues.pairs_per_ssd;
    std::uint64_t per_queue = (c.workload.threads + queues - 1) / queues;
    if (c.gpu.queue_mapping == gpu_queue_mapping::warp) per_queue = (per_queue + 31) / 32 * 32;
    const std::uint32_t ids = cid_count_for(c.queues.depth);
    if (per_queue * c.workload.outstanding > ids) {
      throw config_error(
          "workload.outstanding",
          fmt::format("{} commands in flight per thread x up to {} threads per queue exceed the "
                      "{} command IDs of a queue of {} entries: allowed at most {} threads with "
                      "{} in flight, or more queue pairs",
                      c.workload.outstanding, per_queue, ids, c.queues.depth,
                      ids / c.workload.outstanding * queues, c.workload.outstanding));
    }
  }
  caps_.max_ssds = max_ssds;
  caps_.max_transfer_bytes = emu::gpu::max_transfer_bytes;
  caps_.media_bytes = c.storage.media.size_bytes;
}

gpu_io_runner& gpu_backend_base::runner_for(const run_config& c) {
  // One buffer slot per command a thread keeps in flight.
  const std::uint32_t threads = c.workload.threads * c.workload.outstanding;
  const std::uint64_t io = c.workload.io_size;
  if (runner_) {
    // Keep the runner when it fits (allocations are what the residency rule forbids later).
    if (runner_->max_threads() >= threads && runner_->io_size() == io) return *runner_;
    runner_.reset();
  }
  const std::uint64_t need = gpu_io_runner::bytes_needed(threads, io);
  const std::uint64_t free = gpu_free_memory();
  if (need > free / 10 * 9) {
    throw config_error("workload.threads",
                       fmt::format("{} threads x {} B buffers need {} MiB of GPU memory, {} MiB "
                                   "are free: allowed fewer threads or a smaller workload.io_size",
                                   threads, io, need >> 20, free >> 20));
  }
  runner_ = std::make_unique<gpu_io_runner>(threads, io);
  return *runner_;
}

gpu_io_params gpu_backend_base::params_of(const run_config& c, const run_hooks& hooks) {
  gpu_io_params p;
  p.w.threads = c.workload.threads;
  p.outstanding = c.workload.outstanding;
  p.w.ssd_count = c.storage.ssd_count;
  p.w.dataset = c.dataset();
  p.w.sequential = c.workload.pattern == io_pattern::sequential;
  p.w.op = c.workload.op;
  p.w.read_ratio = c.workload.read_ratio;
  p.w.seed = c.workload.seed;
  p.ios = c.workload.ios;
  p.duration_ns = static_cast<std::uint64_t>(c.workload.duration_s * 1e9);
  p.verify = hooks.verify;
  p.timeout_ns = command_timeout_ns(c);
  p.mapping = c.gpu.queue_mapping;
  p.exclusive = exclusive_queues(c);
  return p;
}

run_result gpu_backend_base::result_of(const run_config& c, const gpu_io_result& r,
                                       const run_hooks& hooks) {
  run_result out;
  const auto ns = static_cast<std::uint64_t>(r.kernel_s * 1e9);
  out.runtime_ns = ns;
  out.read.ios = r.reads;
  out.read.io_bytes = r.reads * c.workload.io_size;
  out.read.runtime_ns = ns;
  out.read.lat = r.read_lat;
  out.write.ios = r.writes;
  out.write.io_bytes = r.writes * c.workload.io_size;
  out.write.runtime_ns = ns;
  out.write.lat = r.write_lat;
  out.errors = r.errors;
  for (const auto& [code, n] : r.errors_by_code) {
    const nvme::status status{static_cast<std::uint8_t>(code >> 8),
                              static_cast<std::uint8_t>(code & 0xffu)};
    out.errors_by_status[std::string(nvme::status_name(status))] += n;
    if (status == nvme::sc::host_timeout) out.timeouts += n;
  }
  nlohmann::json& st = out.tool_stats;
  st["kernel_s"] = r.kernel_s;
  st["iops_kernel"] = r.kernel_s > 0 ? double(r.reads + r.writes) / r.kernel_s : 0.0;
  st["per_ssd_ios_threads"] = r.per_ssd;
  st["latency_clock"] =
      "%globaltimer, per command, submission to completion; a read through queues with the "
      "ordering read of BaM paper 4.4 (storage.protocol hardware) to the end of that wait";
  st["timeout_ns"] = command_timeout_ns(c);
  // How much of what the closed loop could offer was in flight: a counted run's blocks start
  // only as others end, and a block holds its SM until its slowest thread ends.
  const double offered = double(r.peak_resident_threads) * c.workload.outstanding;
  st["client_threads"] = {
      {"peak_resident", r.peak_resident_threads},
      {"gpu_sms", r.gpu_sms},
      {"in_flight_share", offered > 0 ? out.in_flight_mean() / offered : 0.0},
      {"method",
       "peak_resident: the most I/O kernel blocks running at once (counted by the blocks) x their "
       "threads (at most workload.threads); gpu_sms: the GPU's SMs, the engine's blocks among "
       "them (emulated); in_flight_share: bamkit.in_flight_mean (Little's law) / (peak_resident x "
       "workload.outstanding)"}};
  if (hooks.verify) {
    st["verified_ios"] = r.verified;
    st["verify_errors"] = r.verify_errors;
    out.verify_mismatches = r.verify_errors;  // reads that differ from the data pattern
  }
  if (hooks.ios_done != nullptr) hooks.ios_done->fetch_add(r.reads + r.writes);
  return out;
}

void gpu_backend_base::fill_pattern_once(const run_config& c) {
  if (filled_) return;
  const std::uint64_t lba = c.storage.lba_size;
  const std::uint64_t blocks = c.storage.media.size_bytes / lba;
  const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  for (std::uint32_t s = 0; s < c.storage.ssd_count; ++s) {
    std::byte* m = pinned_media(s);
    if (m == nullptr) {
      throw config_error("storage.media.kind",
                         "--verify needs the media in host memory, allowed host");
    }
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w) {
      pool.emplace_back([=] {
        const std::uint64_t lo = blocks * w / workers, hi = blocks * (w + 1) / workers;
        fill_pattern(m + lo * lba, lba, pattern_seed, s, lo, hi - lo);
      });
    }
    for (auto& t : pool)
      t.join();
  }
  filled_ = true;
}

nlohmann::json gpu_backend_base::measure_ceilings(const run_config& c) {
  // Over the run's own footprint: the dataset of every SSD's media, read at random as the run
  // reads them (media not in host memory: pinned memory of its own, one dataset's worth).
  std::vector<pinned_span> spans;
  for (std::uint32_t s = 0; s < c.storage.ssd_count; ++s)
    spans.push_back({pinned_media(s), c.dataset()});
  return to_json(measure_run_ceilings(spans, c.dataset(), c.workload.io_size, 5));
}

// ---- emulated ---------------------------------------------------------------------------------

struct emulated_backend::impl {
  std::unique_ptr<emu::gpu::emulated_drives> drives;
  bool preloaded = false;
};

emulated_backend::emulated_backend() : impl_(std::make_unique<impl>()) {}
emulated_backend::~emulated_backend() = default;

std::byte* emulated_backend::pinned_media(std::uint32_t i) const {
  return impl_->drives ? impl_->drives->host_media(i) : nullptr;
}

void emulated_backend::open(const run_config& c) {
  check_common(c, "emulated");
  // Its threads only issue I/O: gpu.engine_placement auto may give the engine SMs they would
  // not use (drives_config_of, "The even engine of nvm-block-bench" in docs/gpu-engine.md).
  const emu::gpu::drives_config dc = emu::gpu::drives_config_of(
      c, {.io_only = true, .gpu_sms = static_cast<std::uint32_t>(cuda_sm_count())});
  try {
    impl_->drives = std::make_unique<emu::gpu::emulated_drives>(dc);
  } catch (const std::invalid_argument& e) {
    throw config_error("storage", e.what());
  }
}

run_result emulated_backend::run(const run_config& c, const run_hooks& hooks) {
  emu::gpu::emulated_drives& drives = *impl_->drives;
  if (hooks.verify) {
    if (!emu::gpu::timing_of(c.storage.model).moves_data) {
      throw config_error("storage.model",
                         "--verify with the \"null\" model, which moves no data: allowed any "
                         "other model");
    }
    fill_pattern_once(c);
  }
  gpu_io_runner& runner = runner_for(c);
  if (!impl_->preloaded) {
    gpu_io_runner::preload();
    impl_->preloaded = true;
  }
  const recovery_counts recovery_before = drives.recovery();
  drives.start();
  const gpu_io_params p = params_of(c, hooks);
  gpu_io_result r;
  try {
    r = c.storage.protocol == storage_protocol::hardware
            ? runner.run_emulated(drives.hardware_ref(), p)
            : runner.run_emulated(drives.ref(), p);
  } catch (...) {
    drives.stop();
    throw;
  }
  drives.stop();
  run_result out = result_of(c, r, hooks);
  out.recovery = drives.recovery().since(recovery_before);
  if (out.recovery.recovery_failures != 0)
    out.tool_stats["recovery_failure"] = drives.recovery_failure();
  const std::vector<queue_totals> q = read_queue_totals(drives.ref().parameters());
  nlohmann::json engine = nlohmann::json::array();
  std::uint64_t sq = 0, cq = 0, timeouts = 0, ordering = 0;
  for (std::uint32_t i = 0; i < c.storage.ssd_count; ++i) {
    const emu::gpu::drive_stats& s = drives.stats()[i];
    out.per_ssd_ios.push_back(s.completed);
    engine.push_back({{"completed", s.completed},
                      {"errors", s.errors},
                      {"dropped", s.dropped},
                      {"delayed", s.delayed},
                      {"aborted", s.aborted},
                      {"ordering_reads", s.ordering_reads},
                      {"sq_doorbell_writes", q[i].sq_doorbell_writes},
                      {"cq_doorbell_writes", q[i].cq_doorbell_writes},
                      {"timeouts", q[i].timeouts},
                      {"queue_commands", q[i].queue_commands},
                      {"queue_commands_min", q[i].queue_commands_min},
                      {"queue_commands_max", q[i].queue_commands_max}});
    sq += q[i].sq_doorbell_writes;
    cq += q[i].cq_doorbell_writes;
    timeouts += q[i].timeouts;
    ordering += s.ordering_reads;
  }
  const std::uint64_t commands = out.total_ios() + out.errors;
  out.tool_stats["ssds"] = engine;
  out.tool_stats["sq_doorbell_writes"] = sq;
  out.tool_stats["cq_doorbell_writes"] = cq;
  out.tool_stats["timeouts"] = timeouts;
  out.tool_stats["protocol"] = to_string(c.storage.protocol);
  out.tool_stats["real_hardware"] =
      emu::gpu::protocol_note(c.storage.protocol) + "; " +
      emu::gpu::emulated_media_note(c.storage.media.kind == media_kind::host);
  out.tool_stats["ordering_reads"] = ordering;
  out.tool_stats["ordering_reads_per_read"] =
      out.read.ios != 0 ? double(ordering) / double(out.read.ios) : 0.0;
  out.tool_stats["doorbell_writes_per_command"] =
      commands != 0 ? double(sq + cq) / double(commands) : 0.0;
  out.tool_stats["thread_mapping"] = mapping_doc(c.gpu.queue_mapping);
  out.tool_stats["queue_access"] =
      p.exclusive
          ? "exclusive: each GPU thread is its queue pair's only user, holds it and submits "
            "without the shared protocol's ticket, locks and batches, ringing the CQ head "
            "doorbell every half ring (bam::queue_hold; gpu.queue_access auto)"
          : "shared: BaM's queue protocol, for any number of threads per queue pair "
            "(queue_pair_ref::submit_and_wait)";
  out.tool_stats.update(emu::gpu::engine_report(drives));
  out.tool_stats["gpu_timer_rate"] = drives.timer_rate();
  return out;
}

// ---- zerocopy ---------------------------------------------------------------------------------

void zerocopy_backend::open(const run_config& c) {
  check_common(c, "zerocopy");
  if (c.storage.media.kind != media_kind::host) {
    throw config_error("storage.media.kind",
                       fmt::format("\"{}\" is not allowed with backend \"zerocopy\" (the GPU "
                                   "reads pinned host memory), allowed host",
                                   to_string(c.storage.media.kind)));
  }
  for (std::uint32_t i = 0; i < c.storage.ssd_count; ++i)
    media_.push_back(alloc_pinned(c.storage.media.size_bytes));
  caps_.max_transfer_bytes = std::uint64_t{1} << 30;
}

run_result zerocopy_backend::run(const run_config& c, const run_hooks& hooks) {
  if (hooks.verify) fill_pattern_once(c);
  gpu_io_runner& runner = runner_for(c);
  std::vector<std::byte*> media;
  for (const auto& m : media_)
    media.push_back(device_pointer(m.get()));
  const gpu_io_result r = runner.run_zerocopy(media, lba_shift_of(c.storage), params_of(c, hooks));
  run_result out = result_of(c, r, hooks);
  out.per_ssd_ios = r.per_ssd;
  out.tool_stats["latency_clock"] = "%globaltimer, per I/O: its warp's copy round (no command)";
  out.tool_stats["thread_mapping"] =
      "thread t, warp w = t / 32: random pattern: SSD w % ssd_count; sequential: the SSD of the "
      "I/O; a warp's lanes copy their 32 I/Os together (16 B words, coalesced), each I/O's "
      "latency is its warp's round";
  return out;
}

}  // namespace bam::tools
