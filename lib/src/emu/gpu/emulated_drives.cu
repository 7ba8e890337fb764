// Host owner of GPU-emulated drives: queue memory, media, engine start and stop.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "bam/detail/cuda.hpp"
#include "bam/detail/expects.hpp"
#include "bam/emu/gpu/drive_layout.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/emu/gpu/identity_allocator.hpp"
#include "bam/emu/gpu/serving_order.hpp"
#include "engine.cuh"
#include "gpu_recovery.hpp"

namespace bam::emu::gpu {
namespace {

void check(cudaError_t e, const char* what) {
  cuda_check(e, std::string("emulated_drives: ") + what);
}

/// Drive `d` (times in the models' real-time units) as the engine runs it on a timer that counts
/// `rate` ns per real ns: every time scaled, and the booking horizon set.
detail::engine_drive in_timer_units(detail::engine_drive d, double rate) {
  auto scale = [rate](std::uint64_t& v) {
    v = static_cast<std::uint64_t>(static_cast<double>(v) * rate + 0.5);
  };
  emu::service_table& t = d.service;
  scale(t.read_512_ps);
  scale(t.read_4k_ps);
  scale(t.write_512_ps);
  scale(t.write_4k_ps);
  scale(t.read_ps_per_kib);
  scale(t.write_ps_per_kib);
  scale(t.min_latency_ns);
  scale(d.faults.delay_ns);
  // Booking horizon: twice the latency, at least 32 us of pipe time.
  d.max_ahead_ps =
      std::max<std::uint64_t>(2000 * t.min_latency_ns, static_cast<std::uint64_t>(32e6 * rate));
  return d;
}

/// One block of GPU memory for every drive's ordering read: drive d's ordering queue (queue d of
/// `queues`), its scratch page and its ordering_state, then the queue_pointers handed to the
/// threads. Everything before `pointers` is cleared at each start().
struct ordering_block_layout {
  drive_layout queues;
  std::size_t scratch = 0, states = 0, pointers = 0, bytes = 0;
  explicit ordering_block_layout(std::uint32_t drives)
      : queues(drives, ordering_queue_entries, ordering_queue_entries) {
    scratch = queues.bytes;  // page aligned
    states = scratch + std::size_t{drives} * drive_layout::page;
    pointers = drive_layout::round(states + std::size_t{drives} * sizeof(ordering_state), 128);
    bytes = pointers + std::size_t{drives} * sizeof(queue_pointers);
  }
};

/// One drive's admin queue in pinned host memory (recovery): SQ ring, CQ ring, SQ tail and CQ head
/// doorbells, in one page per drive.
struct admin_block_layout {
  static constexpr std::uint32_t entries = 32;
  static constexpr std::size_t sq = 0;
  static constexpr std::size_t cq = sq + entries * sizeof(nvme::command);
  static constexpr std::size_t sq_doorbell = cq + entries * sizeof(nvme::completion);
  static constexpr std::size_t cq_doorbell = sq_doorbell + sizeof(std::uint32_t);
  static constexpr std::size_t bytes = 4096;
  static_assert(cq_doorbell + sizeof(std::uint32_t) <= bytes);
};

}  // namespace

struct emulated_drives::impl {
  drives_config cfg;
  device_identity_allocator dma;
  drive_layout layout{1, 2, 2};
  std::vector<void*> blocks;      // per drive: queues (device)
  std::vector<std::byte*> media;  // per drive: device-accessible pointer
  std::vector<std::byte*> host;   // per drive: host pointer (pinned) or nullptr
  emu::drive_clock* clocks = nullptr;
  detail::engine_queue* queues = nullptr;
  // Written before each launch of the engine (start), never while it runs: each engine block
  // reads its own copy of the first drives' descriptors (engine.cu, drive_at).
  detail::engine_drive* drives = nullptr;
  detail::engine_queue_stats* stats = nullptr;
  queue_pointers* pointers = nullptr;
  std::byte* ordering = nullptr;  // ordering_block_layout (device), when cfg.ordering_queues
  ordering_block_layout ordering_layout{1};
  hardware_drives_ref hardware{};
  std::vector<detail::engine_queue> queue_table;  // host copy of `queues`
  // [0] stop, [32] started, [40..41] timer probe, [48] pool head, [49] pool tail,
  // [52..53] handovers (device)
  std::uint32_t* control = nullptr;
  detail::engine_queue_record* records = nullptr;  // handover: [n_queues] (device)
  // Where the last start() put the engine (engine_params::start_warp_of, block_sm): device
  // [n_queues + engine_blocks], and its host copy.
  std::uint32_t* placement = nullptr;
  std::vector<std::uint32_t> start_warps, block_sms;
  unsigned long long* pool = nullptr;  // handover: [pool_slots] (device)
  std::uint32_t pool_slots = 0;
  std::uint64_t handovers = 0;          // read at stop()
  std::uint32_t* stop_value = nullptr;  // pinned host word
  cudaStream_t engine_stream = nullptr, control_stream = nullptr;
  std::uint32_t n_queues = 0, warps = 0;
  std::uint32_t engine_grid = 0;  // the engine kernel's blocks (one per SM on the first SMs)
  std::size_t engine_shared = 0;  // and each one's dynamic shared memory
  std::vector<detail::engine_drive> drive_table;  // host copy, service times in model units
  double timer_rate = 1.0;                        // GPU timer ns per host ns, from start()
  // Recovery (cfg.recovery): admin queues, the engine's held tables and abort rings, watchdog.
  std::byte* admin_host = nullptr;         // pinned, mapped: admin_block_layout per drive
  detail::engine_admin* admin = nullptr;   // device: [drives]
  std::uint32_t* abort_words = nullptr;    // device: abort_queue_words per application queue
  completion_box** abort_boxes = nullptr;  // device: each application queue's completion boxes
  std::size_t abort_queue_words = 0;       // held table, then [tail, head, ring...], rounded
  std::vector<queue_pair> admin_pairs;     // the host driver's side of the admin queues
  std::unique_ptr<detail::gpu_recovery> recovery;

  ~impl() {
    recovery.reset();  // joins the watchdog before the memory it reads goes
    if (admin_host != nullptr) cudaFreeHost(admin_host);
    cudaFree(admin);
    cudaFree(abort_words);
    cudaFree(abort_boxes);
    for (std::uint32_t d = 0; d < media.size(); ++d) {
      if (host[d] != nullptr)
        cudaFreeHost(host[d]);
      else
        cudaFree(media[d]);
    }
    for (void* b : blocks)
      cudaFree(b);
    cudaFree(clocks);
    cudaFree(queues);
    cudaFree(drives);
    cudaFree(stats);
    cudaFree(pointers);
    cudaFree(ordering);
    cudaFree(control);
    cudaFree(records);
    cudaFree(placement);
    cudaFree(pool);
    if (stop_value != nullptr) cudaFreeHost(stop_value);
    if (engine_stream != nullptr) cudaStreamDestroy(engine_stream);
    if (control_stream != nullptr) cudaStreamDestroy(control_stream);
  }

  std::uint64_t media_bytes(std::uint32_t d) const {
    return cfg.drives[d].lbas << cfg.drives[d].lba_shift;
  }
};

emulated_drives::emulated_drives(const drives_config& cfg) : impl_(new impl) {
  impl& m = *impl_;
  m.cfg = cfg;
  try {
    const auto n_drives = static_cast<std::uint32_t>(cfg.drives.size());
    // The config's schema (storage.ssd_count, queues.*) decided these; the engine's 16-bit
    // drive and queue numbers rely on them.
    BAM_EXPECTS(n_drives >= 1 && n_drives <= 65535, "emulated_drives: drives");
    BAM_EXPECTS(cfg.queue_entries >= min_queue_entries && cfg.queue_entries <= max_queue_entries,
                "emulated_drives: queue_entries");
    BAM_EXPECTS(cfg.queues_per_drive >= 1 && cfg.queues_per_drive <= max_io_queue_pairs,
                "emulated_drives: queues_per_drive");
    // command_timeout_ns(c), never 0 (queues.timeout_ms 0 is resolved to a value).
    BAM_EXPECTS(!cfg.ordering_queues || cfg.ordering_timeout_ns > 0,
                "emulated_drives: ordering_timeout_ns with ordering_queues");
    m.n_queues = static_cast<std::uint32_t>(cfg.engine_queues());
    m.warps = cfg.engine_blocks * cfg.engine_warps_per_block;
    // drives_config_of sets engine_app_warps only where the ordering warps fit beside them.
    BAM_EXPECTS(cfg.engine_app_warps == 0 ||
                    (cfg.ordering_queues && ordering_warp(n_drives, cfg.queues_per_drive, m.warps,
                                                          n_drives, cfg.engine_app_warps)),
                "emulated_drives: engine_app_warps needs ordering queues, the application's "
                "queues within them and each drive's ordering warp after them");
    if (m.warps == 0 || cfg.engine_warps_per_block > detail::engine_max_warps_per_block)
      throw std::invalid_argument(
          "emulated_drives: engine needs 1..16 warps per block and >= 1 block");
    {  // The engine's launch: its grid, and each block's dynamic shared memory (the pending
       // tables and the data-movement staging; on the first SMs all a block may have, so that
       // one block fits an SM).
      int device = 0, per_block = 0, sms = 0;
      check(cudaGetDevice(&device), "current device");
      check(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
            "shared memory per block");
      check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
      const std::size_t need = detail::engine_shared_bytes(cfg.engine_warps_per_block) +
                               detail::engine_static_shared_bytes;
      if (need > static_cast<std::size_t>(per_block))
        throw std::invalid_argument(
            "emulated_drives: engine blocks of " + std::to_string(cfg.engine_warps_per_block) +
            " warps need " + std::to_string(need) + " bytes of shared memory, this GPU allows " +
            std::to_string(per_block) + " per block: fewer warps per block " +
            "(gpu.engine_warps_per_block)");
      m.engine_grid = cfg.engine_blocks;
      m.engine_shared = detail::engine_shared_bytes(cfg.engine_warps_per_block);
      if (cfg.engine_on_first_sms) {  // block b on SM b: the GPU needs that many SMs
        if (cfg.engine_blocks > static_cast<std::uint32_t>(sms))
          throw std::invalid_argument(
              "emulated_drives: engine blocks on the first SMs (gpu.engine_placement first-sms, "
              "or auto's even engine) need one SM each: " +
              std::to_string(cfg.engine_blocks) + " blocks, this GPU has " + std::to_string(sms) +
              " SMs");
        m.engine_grid = static_cast<std::uint32_t>(sms);
        m.engine_shared = static_cast<std::size_t>(per_block) - detail::engine_static_shared_bytes;
      }
    }
    if (m.n_queues > 32ull * m.warps)
      throw std::invalid_argument(
          "emulated_drives: " + std::to_string(m.n_queues) + " queues need at least " +
          std::to_string((m.n_queues + 31) / 32) + " engine warps (32 queues each), have " +
          std::to_string(m.warps));
    m.layout = drive_layout(cfg.queues_per_drive, cfg.queue_entries, cfg.queue_entries);

    check(cudaStreamCreateWithFlags(&m.engine_stream, cudaStreamNonBlocking), "stream");
    check(cudaStreamCreateWithFlags(&m.control_stream, cudaStreamNonBlocking), "stream");
    check(cudaMalloc(&m.control, 64 * sizeof(std::uint32_t)), "cudaMalloc control");
    check(cudaHostAlloc(&m.stop_value, sizeof(std::uint32_t), cudaHostAllocDefault),
          "cudaHostAlloc");
    *m.stop_value = 1;
    check(cudaMalloc(&m.clocks, n_drives * sizeof(emu::drive_clock)), "cudaMalloc clocks");
    check(cudaMalloc(&m.queues, m.n_queues * sizeof(detail::engine_queue)), "cudaMalloc queues");
    check(cudaMalloc(&m.drives, n_drives * sizeof(detail::engine_drive)), "cudaMalloc drives");
    check(cudaMalloc(&m.stats, m.n_queues * sizeof(detail::engine_queue_stats)),
          "cudaMalloc stats");
    check(cudaMalloc(&m.placement, (m.n_queues + cfg.engine_blocks) * sizeof(std::uint32_t)),
          "cudaMalloc placement");
    if (cfg.engine_handover) {
      m.pool_slots = std::bit_ceil(m.n_queues);
      check(cudaMalloc(&m.records, m.n_queues * sizeof(detail::engine_queue_record)),
            "cudaMalloc handover records");
      check(cudaMalloc(&m.pool, m.pool_slots * sizeof(unsigned long long)),
            "cudaMalloc handover pool");
    }
    const std::uint32_t n_app = n_drives * cfg.queues_per_drive;
    check(cudaMalloc(&m.pointers, n_app * sizeof(queue_pointers)), "cudaMalloc pointers");

    // Engine queues: the application's (drive d's queue i at d * queues_per_drive + i), then
    // one ordering queue per drive.
    std::vector<detail::engine_queue> eq(m.n_queues);
    std::vector<detail::engine_drive> ed(n_drives);
    std::vector<queue_pointers> qp(n_app);
    std::uint64_t min_lbas = ~std::uint64_t{0};
    for (std::uint32_t d = 0; d < n_drives; ++d) {
      const drive_config& dc = cfg.drives[d];
      BAM_EXPECTS(dc.lba_shift == 9 || dc.lba_shift == 12, "emulated_drives: LBA size");
      BAM_EXPECTS(dc.lba_shift == cfg.drives[0].lba_shift,
                  "emulated_drives: one LBA size for every drive");
      void* block = nullptr;
      check(cudaMalloc(&block, m.layout.bytes), "cudaMalloc queue block");
      m.blocks.push_back(block);
      const std::uint64_t bytes = m.media_bytes(d);
      std::byte* dev = nullptr;
      std::byte* hst = nullptr;
      if (dc.media == media_kind::pinned_host) {
        check(cudaHostAlloc(reinterpret_cast<void**>(&hst), bytes,
                            cudaHostAllocMapped | cudaHostAllocPortable),
              "cudaHostAlloc media");
        m.host.push_back(hst);
        check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), hst, 0),
              "cudaHostGetDevicePointer");
        m.media.push_back(dev);
        std::memset(hst, 0, bytes);
      } else {
        check(cudaMalloc(reinterpret_cast<void**>(&dev), bytes), "cudaMalloc media");
        m.host.push_back(nullptr);
        m.media.push_back(dev);
        check(cudaMemset(dev, 0, bytes), "cudaMemset media");
      }
      if (!dc.file.empty()) {
        std::ifstream in(dc.file, std::ios::binary);
        if (in) {
          std::vector<char> buf(bytes, 0);
          in.read(buf.data(), static_cast<std::streamsize>(bytes));
          check(cudaMemcpy(dev, buf.data(), bytes, cudaMemcpyHostToDevice), "load media file");
        }
      }
      ed[d].media = dev;
      ed[d].nvm.nsze = dc.lbas;
      ed[d].nvm.lba_log2 = dc.lba_shift;
      ed[d].nvm.mps_log2 = 12;
      ed[d].nvm.max_transfer_bytes = static_cast<std::uint32_t>(max_transfer_bytes);
      ed[d].service = emu::make_service_table(dc.model);
      ed[d].faults = emu::make_fault_plan(dc.faults);
      ed[d].clock = m.clocks + d;
      ed[d].moves_data = dc.model.moves_data;
      min_lbas = dc.lbas < min_lbas ? dc.lbas : min_lbas;
      for (std::uint32_t i = 0; i < cfg.queues_per_drive; ++i) {
        const queue_pointers p = m.layout.pointers(block, i);
        const std::uint32_t g = d * cfg.queues_per_drive + i;
        qp[g] = p;
        eq[g] = detail::engine_queue{
            p.sq,         p.cq,         p.sq_doorbell, p.cq_doorbell,
            p.sq_entries, p.cq_entries, p.qid,         static_cast<std::uint16_t>(d),
            false};
      }
    }
    if (cfg.ordering_queues) {
      const ordering_block_layout& L = m.ordering_layout = ordering_block_layout(n_drives);
      check(cudaMalloc(&m.ordering, L.bytes), "cudaMalloc ordering block");
      std::vector<queue_pointers> op(n_drives);
      for (std::uint32_t d = 0; d < n_drives; ++d) {
        queue_pointers p = L.queues.pointers(m.ordering, d);
        p.qid = static_cast<std::uint16_t>(cfg.queues_per_drive + 1);  // after the drive's own
        op[d] = p;
        eq[n_app + d] = detail::engine_queue{
            p.sq,         p.cq,         p.sq_doorbell, p.cq_doorbell,
            p.sq_entries, p.cq_entries, p.qid,         static_cast<std::uint16_t>(d),
            true};
      }
      check(cudaMemcpy(m.ordering + L.pointers, op.data(), op.size() * sizeof op[0],
                       cudaMemcpyHostToDevice),
            "copy");
    }
    if (cfg.recovery) {
      // Per application queue: the held table (a word per command ID), then the abort ring.
      const std::uint32_t cid_words = cid_count_for(cfg.queue_entries);
      m.abort_queue_words = (cid_words + 2 + detail::abort_ring_entries + 31) / 32 * 32;
      const std::size_t bytes = std::size_t{n_app} * m.abort_queue_words * sizeof(std::uint32_t);
      check(cudaMalloc(&m.abort_words, bytes), "cudaMalloc held tables");
      std::vector<completion_box*> boxes(n_app);
      for (std::uint32_t g = 0; g < n_app; ++g)
        boxes[g] = qp[g].boxes;
      check(cudaMalloc(&m.abort_boxes, n_app * sizeof(completion_box*)), "cudaMalloc boxes");
      check(cudaMemcpy(m.abort_boxes, boxes.data(), n_app * sizeof(completion_box*),
                       cudaMemcpyHostToDevice),
            "copy boxes");
      check(cudaHostAlloc(reinterpret_cast<void**>(&m.admin_host),
                          std::size_t{n_drives} * admin_block_layout::bytes,
                          cudaHostAllocMapped | cudaHostAllocPortable),
            "cudaHostAlloc admin queues");
      check(cudaMalloc(&m.admin, n_drives * sizeof(detail::engine_admin)), "cudaMalloc admin");
      m.recovery = std::make_unique<detail::gpu_recovery>(m.layout, cfg.recovery_opts);
    }
    m.queue_table = eq;
    check(cudaMemcpy(m.queues, eq.data(), eq.size() * sizeof eq[0], cudaMemcpyHostToDevice),
          "copy");
    // The table in the models' units: start() scales a copy by the measured timer rate.
    m.drive_table = ed;
    check(cudaMemcpy(m.drives, ed.data(), ed.size() * sizeof ed[0], cudaMemcpyHostToDevice),
          "copy");
    check(cudaMemcpy(m.pointers, qp.data(), qp.size() * sizeof qp[0], cudaMemcpyHostToDevice),
          "copy");
    drives_ref::params r;
    r.queues = m.pointers;
    r.ssds = n_drives;
    r.queues_per_ssd = cfg.queues_per_drive;
    r.lba_shift = cfg.drives[0].lba_shift;
    r.lbas = min_lbas;
    ref_ = drives_ref(r);
    if (cfg.ordering_queues) {
      const ordering_block_layout& L = m.ordering_layout;
      hardware_drives_ref::ordering_params o;
      o.states = reinterpret_cast<ordering_state*>(m.ordering + L.states);
      o.queues = reinterpret_cast<const queue_pointers*>(m.ordering + L.pointers);
      o.scratch_bus = reinterpret_cast<std::uintptr_t>(m.ordering + L.scratch);  // identity
      o.scratch_stride = drive_layout::page;   // one LBA of at most 4 KiB
      o.timeout_ns = cfg.ordering_timeout_ns;  // queues.timeout_ms, as the application's waits
      m.hardware = hardware_drives_ref(r, o);
    }
    stats_.resize(n_drives);
  } catch (...) {
    delete impl_;
    impl_ = nullptr;
    throw;
  }
}

emulated_drives::~emulated_drives() {
  if (impl_ == nullptr) return;
  if (running_) {
    try {
      stop();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "emulated_drives: stop at destruction failed: %s\n", e.what());
    }
  }
  delete impl_;
  impl_ = nullptr;
}

std::uint32_t emulated_drives::engine_warps() const {
  return impl_->warps;
}

const std::vector<std::uint32_t>& emulated_drives::start_warps() const {
  return impl_->start_warps;
}

const std::vector<std::uint32_t>& emulated_drives::engine_sms() const {
  return impl_->block_sms;
}

std::uint32_t emulated_drives::engine_blocks() const {
  return impl_->cfg.engine_blocks;
}

std::uint32_t emulated_drives::engine_app_warps() const {
  return impl_->cfg.engine_app_warps;
}

bool emulated_drives::engine_on_first_sms() const {
  return impl_->cfg.engine_on_first_sms;
}

std::uint64_t emulated_drives::handovers() const {
  return impl_->handovers;
}

double emulated_drives::timer_rate() const {
  return impl_->timer_rate;
}

std::vector<drive_parameters> emulated_drives::device_parameters() const {
  impl& m = *impl_;
  std::vector<detail::engine_drive> ed(m.cfg.drives.size());
  check(cudaMemcpyAsync(ed.data(), m.drives, ed.size() * sizeof ed[0], cudaMemcpyDeviceToHost,
                        m.control_stream),
        "read drive parameters");
  check(cudaStreamSynchronize(m.control_stream), "read drive parameters");
  std::vector<drive_parameters> out;
  for (const detail::engine_drive& d : ed)
    out.push_back({d.service, d.max_ahead_ps, d.faults.delay_ns});
  return out;
}

hardware_drives_ref emulated_drives::hardware_ref() const {
  if (!impl_->cfg.ordering_queues) {
    throw std::logic_error(
        "emulated_drives: hardware_ref() needs drives_config::ordering_queues (the ordering "
        "read's queue per drive)");
  }
  return impl_->hardware;
}

std::byte* emulated_drives::host_media(std::uint32_t d) const {
  return impl_->host.at(d);
}

std::byte* emulated_drives::media(std::uint32_t d) const {
  return impl_->media.at(d);
}

std::uint64_t emulated_drives::media_bytes(std::uint32_t d) const {
  return impl_->media_bytes(d);
}

dma_allocator& emulated_drives::dma_memory() const {
  return impl_->dma;
}

void emulated_drives::start() {
  impl& m = *impl_;
  if (running_) throw std::logic_error("emulated_drives: already running");
  const cudaStream_t s = m.control_stream;
  for (void* b : m.blocks)
    check(cudaMemsetAsync(b, 0, m.layout.bytes, s), "clear queues");
  check(cudaMemsetAsync(m.clocks, 0, m.cfg.drives.size() * sizeof(emu::drive_clock), s),
        "clear clocks");
  check(cudaMemsetAsync(m.control, 0, 64 * sizeof(std::uint32_t), s), "clear control");
  check(cudaMemsetAsync(m.stats, 0, m.n_queues * sizeof(detail::engine_queue_stats), s),
        "clear stats");
  check(cudaMemsetAsync(m.placement, 0xff,
                        (m.n_queues + m.cfg.engine_blocks) * sizeof(std::uint32_t), s),
        "clear placement");
  if (m.ordering != nullptr)
    check(cudaMemsetAsync(m.ordering, 0, m.ordering_layout.pointers, s), "clear ordering");
  if (m.pool != nullptr)
    check(cudaMemsetAsync(m.pool, 0, m.pool_slots * sizeof(unsigned long long), s),
          "clear handover pool");
  const auto n_drives = static_cast<std::uint32_t>(m.cfg.drives.size());
  if (m.recovery) {
    const std::uint32_t n_app = n_drives * m.cfg.queues_per_drive;
    check(cudaMemsetAsync(m.abort_words, 0,
                          std::size_t{n_app} * m.abort_queue_words * sizeof(std::uint32_t), s),
          "clear held tables");
    std::memset(m.admin_host, 0, std::size_t{n_drives} * admin_block_layout::bytes);
    std::byte* dev = nullptr;
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), m.admin_host, 0),
          "cudaHostGetDevicePointer");
    std::vector<detail::engine_admin> table(n_drives);
    m.admin_pairs.clear();
    for (std::uint32_t d = 0; d < n_drives; ++d) {
      using L = admin_block_layout;
      std::byte* const h = m.admin_host + std::size_t{d} * L::bytes;
      std::byte* const g = dev + std::size_t{d} * L::bytes;
      table[d] = detail::engine_admin{reinterpret_cast<const nvme::command*>(g + L::sq),
                                      reinterpret_cast<nvme::completion*>(g + L::cq),
                                      reinterpret_cast<const std::uint32_t*>(g + L::sq_doorbell),
                                      reinterpret_cast<const std::uint32_t*>(g + L::cq_doorbell),
                                      L::entries,
                                      0,
                                      0,
                                      0};
      queue_pair_desc desc;
      desc.sq = reinterpret_cast<nvme::command*>(h + L::sq);
      desc.sq_entries = L::entries;
      desc.cq = reinterpret_cast<nvme::completion*>(h + L::cq);
      desc.cq_entries = L::entries;
      desc.sq_doorbell = reinterpret_cast<std::uint32_t*>(h + L::sq_doorbell);
      desc.cq_doorbell = reinterpret_cast<std::uint32_t*>(h + L::cq_doorbell);
      desc.qid = 0;
      m.admin_pairs.emplace_back(desc);
    }
    check(cudaMemcpyAsync(m.admin, table.data(), table.size() * sizeof table[0],
                          cudaMemcpyHostToDevice, s),
          "copy admin queues");
  }
  check(cudaStreamSynchronize(s), "clear");
  std::uint64_t timer_base = 0;
  // The models are in real time; the engine's clock is the GPU's %globaltimer, whose rate is
  // not exactly the host's (seen 1.1x off on a virtualised H200): measure it and convert.
  {
    std::uint64_t* probe = reinterpret_cast<std::uint64_t*>(m.control + 40);
    std::uint64_t g[2];
    std::chrono::steady_clock::time_point h[2];
    for (int i = 0; i < 2; ++i) {
      if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const auto before = std::chrono::steady_clock::now();
      check(detail::launch_timer_probe(probe, s), "timer probe");
      check(cudaMemcpyAsync(&g[i], probe, sizeof g[i], cudaMemcpyDeviceToHost, s), "timer probe");
      check(cudaStreamSynchronize(s), "timer probe");
      const auto after = std::chrono::steady_clock::now();
      h[i] = before + (after - before) / 2;
    }
    const double host_ns = std::chrono::duration<double, std::nano>(h[1] - h[0]).count();
    m.timer_rate = static_cast<double>(g[1] - g[0]) / host_ns;
    timer_base = g[1];
    if (!(m.timer_rate > 0.5 && m.timer_rate < 2.0)) m.timer_rate = 1.0;  // implausible: ignore
  }
  std::vector<detail::engine_drive> ed = m.drive_table;
  for (auto& d : ed)
    d = in_timer_units(d, m.timer_rate);
  check(cudaMemcpyAsync(m.drives, ed.data(), ed.size() * sizeof ed[0], cudaMemcpyHostToDevice, s),
        "copy drives");
  check(cudaStreamSynchronize(s), "copy drives");
  detail::engine_params p{
      .queues = m.queues,
      .n_queues = m.n_queues,
      .drives = m.drives,
      .stats = m.stats,
      .stop = m.control,
      .started = m.control + 32,
      .total_warps = m.warps,
      .app_warps = m.cfg.engine_app_warps,
      .timer_base = timer_base,
      .admin = m.recovery ? m.admin : nullptr,
      .n_drives = n_drives,
      .queues_per_drive = m.cfg.queues_per_drive,
      .aborts = detail::abort_tables{},
      .handover = detail::engine_handover{},
      .start_warp_of = m.placement,
      .block_sm = m.placement + m.n_queues,
      .blocks_on_first_sms = m.cfg.engine_on_first_sms ? m.cfg.engine_blocks : 0};
  if (m.recovery) {
    p.aborts.words = m.abort_words;
    p.aborts.queue_words = static_cast<std::uint32_t>(m.abort_queue_words);
    p.aborts.app_queues = n_drives * m.cfg.queues_per_drive;
    p.aborts.cid_count = cid_count_for(m.cfg.queue_entries);
    p.aborts.boxes = m.abort_boxes;
  }
  if (m.records != nullptr) {
    p.handover.records = m.records;
    p.handover.pool = handover_pool_ref{m.pool, m.pool_slots, m.control + 48, m.control + 49};
    p.handover.given = reinterpret_cast<unsigned long long*>(m.control + 52);
    p.handover.keep = std::max(1u, m.n_queues / m.warps / 2);
    p.handover.give_gap_ticks = static_cast<std::uint32_t>(
        (std::uint64_t{m.warps} * 1'000'000'000 / detail::handover_max_rate) >>
        detail::handover_tick_shift);
  }
  check(detail::launch_engine(p, m.engine_grid, m.cfg.engine_warps_per_block, m.engine_shared,
                              m.engine_stream),
        "launch engine");
  running_ = true;
  // Wait until every engine warp runs (bounded: a grid that cannot be resident fails here).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    std::uint32_t started = 0;
    check(cudaMemcpyAsync(m.stop_value + 0, m.control + 32, sizeof started, cudaMemcpyDeviceToHost,
                          s),
          "read started");
    check(cudaStreamSynchronize(s), "read started");
    started = *m.stop_value;
    if (started == m.warps) break;
    const cudaError_t e = cudaStreamQuery(m.engine_stream);
    if (e != cudaErrorNotReady)
      check(e == cudaSuccess ? cudaErrorLaunchFailure : e, "engine ended early");
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("emulated_drives: only " + std::to_string(started) + " of " +
                               std::to_string(m.warps) + " engine warps became resident in 20 s" +
                               (m.cfg.engine_on_first_sms
                                    ? " (the engine on the first SMs, gpu.engine_placement "
                                      "first-sms or nvm-block-bench's auto over 2 GiB of pinned "
                                      "media, needs SMs 0 .. " +
                                          std::to_string(m.cfg.engine_blocks - 1) +
                                          " free: --set gpu.engine_placement=scheduler does not)"
                                    : ""));
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  {  // Every warp has written where it started before it counted itself as started.
    std::vector<std::uint32_t> h(m.n_queues + m.cfg.engine_blocks);
    check(cudaMemcpyAsync(h.data(), m.placement, h.size() * sizeof h[0], cudaMemcpyDeviceToHost, s),
          "read placement");
    check(cudaStreamSynchronize(s), "read placement");
    m.start_warps.assign(h.begin(), h.begin() + m.n_queues);
    m.block_sms.assign(h.begin() + m.n_queues, h.end());
  }
  if (m.recovery) {
    std::vector<detail::gpu_recovery::drive> watched;
    for (std::uint32_t d = 0; d < n_drives; ++d)
      watched.push_back({static_cast<const std::byte*>(m.blocks[d]), &m.admin_pairs[d]});
    m.recovery->start(std::move(watched));
  }
}

void emulated_drives::stop() {
  impl& m = *impl_;
  if (!running_) return;
  if (m.recovery) m.recovery->stop();  // its last pass while the engine still serves Aborts
  *m.stop_value = 1;
  check(cudaMemcpyAsync(m.control, m.stop_value, sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                        m.control_stream),
        "write stop flag");
  check(cudaStreamSynchronize(m.control_stream), "write stop flag");
  running_ = false;
  check(cudaStreamSynchronize(m.engine_stream), "engine");
  std::vector<detail::engine_queue_stats> qs(m.n_queues);
  check(cudaMemcpy(qs.data(), m.stats, qs.size() * sizeof qs[0], cudaMemcpyDeviceToHost), "stats");
  unsigned long long given = 0;
  check(cudaMemcpy(&given, m.control + 52, sizeof given, cudaMemcpyDeviceToHost), "handovers");
  m.handovers = given;
  for (drive_stats& d : stats_)
    d = drive_stats{};
  for (std::uint32_t g = 0; g < m.n_queues; ++g) {
    drive_stats& d = stats_[m.queue_table[g].drive];
    if (m.queue_table[g].ordering) {
      d.ordering_reads += qs[g].completed;
      continue;
    }
    d.completed += qs[g].completed;
    d.errors += qs[g].errors;
    d.dropped += qs[g].dropped;
    d.delayed += qs[g].delayed;
  }
  if (m.recovery) {
    std::vector<detail::engine_admin> table(stats_.size());
    check(cudaMemcpy(table.data(), m.admin, table.size() * sizeof table[0], cudaMemcpyDeviceToHost),
          "admin stats");
    for (std::size_t d = 0; d < table.size(); ++d)
      stats_[d].aborted = table[d].aborted;
  }
}

recovery_counts emulated_drives::recovery() const {
  return impl_->recovery ? impl_->recovery->counts() : recovery_counts{};
}

std::string emulated_drives::recovery_failure() const {
  return impl_->recovery ? impl_->recovery->last_failure() : std::string();
}

void emulated_drives::flush_media() {
  impl& m = *impl_;
  if (running_) throw std::logic_error("emulated_drives: flush_media while the engine runs");
  for (std::uint32_t d = 0; d < m.cfg.drives.size(); ++d) {
    if (m.cfg.drives[d].file.empty()) continue;
    std::vector<char> buf(m.media_bytes(d));
    check(cudaMemcpy(buf.data(), m.media[d], buf.size(), cudaMemcpyDeviceToHost), "read media");
    std::ofstream out(m.cfg.drives[d].file, std::ios::binary | std::ios::trunc);
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (!out)
      throw std::runtime_error("emulated_drives: writing " + m.cfg.drives[d].file + " failed");
  }
}

}  // namespace bam::emu::gpu
