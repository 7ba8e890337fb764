// bam-gpu-bench: IOPS of GPU-emulated NVMe drives driven by GPU threads through BaM queues,
// swept over thread counts, with the machine's ceilings measured in the same run. Writes one
// JSON document (provenance, configuration, ceilings, points) and prints a short table.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bam/emu/gpu/emulated_drives.hpp"
#include "bam/emu/timing_presets.hpp"
#include "bam/harness/gpu_ceilings.hpp"
#include "kernels.hpp"

int main(int argc, char** argv) {
  CLI::App app{"bam-gpu-bench: GPU-emulated NVMe drives driven by GPU threads"};
  std::uint32_t drives = 1, queues = 128, depth = 1024, io_size = 512, repeats = 5;
  std::uint32_t engine_blocks = 16, engine_warps = 16;
  std::uint64_t media_mib = 2048, min_ios = 1u << 22;
  std::string model = "ideal", op = "read", out, commit = "unknown", media = "pinned", label;
  std::vector<std::uint32_t> threads{1u << 20};
  bool with_ceilings = false;
  std::string mapping = "thread";
  double max_seconds = 2.0;
  app.add_option("--drives", drives, "emulated SSDs");
  app.add_option("--model", model, "timing model preset or JSON file");
  app.add_option("--op", op, "read or write")->check(CLI::IsMember({"read", "write"}));
  app.add_option("--io-size", io_size, "bytes per I/O (= LBA size): 512 or 4096")
      ->check(CLI::IsMember({512, 4096}));
  app.add_option("--queues", queues, "queue pairs per drive");
  app.add_option("--depth", depth, "entries per queue");
  app.add_option("--threads", threads, "GPU thread counts to sweep")->delimiter(',');
  app.add_option("--min-ios", min_ios,
                 "I/Os per run at least (ios per thread = ceil(min/threads))");
  app.add_option("--max-seconds", max_seconds,
                 "shrink a run's I/Os when the model's cap makes it longer");
  app.add_option("--repeats", repeats, "runs per point (the median is reported)");
  app.add_option("--media-mib", media_mib, "media size in MiB, all drives together");
  app.add_option("--media", media, "pinned or device")->check(CLI::IsMember({"pinned", "device"}));
  app.add_option("--mapping", mapping, "queue choice: by thread (BaM's benchmark) or by warp")
      ->check(CLI::IsMember({"thread", "warp"}));
  app.add_option("--engine-blocks", engine_blocks, "persistent engine blocks");
  app.add_option("--engine-warps", engine_warps, "warps per engine block");
  app.add_flag("--ceilings", with_ceilings,
               "measure memcpy and direct-read ceilings over the same media size");
  app.add_option("--commit", commit, "commit of the build, for the record");
  app.add_option("--label", label, "name of this measurement");
  app.add_option("--json", out, "write the JSON document here");
  CLI11_PARSE(app, argc, argv);

  std::string cmdline;
  for (int i = 0; i < argc; ++i)
    cmdline += (i ? " " : "") + std::string(argv[i]);
  const auto gi = bam::bench::query_gpu();
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json doc;
  doc["label"] = label;
  doc["provenance"] = {{"command", cmdline},
                       {"commit", commit},
                       {"date", date},
                       {"gpu", gi.name},
                       {"gpu_sms", gi.sms},
                       {"compute_capability", fmt::format("{}.{}", gi.cc_major, gi.cc_minor)},
                       {"pci_bus_id", gi.pci_bus_id},
                       {"cuda_driver_version", gi.driver_version},
                       {"cuda_runtime_version", gi.runtime_version}};
  const bam::emu::timing_model tm = bam::emu::load_timing_model(model);
  const std::uint32_t lba_shift = io_size == 512 ? 9 : 12;
  const std::uint64_t media_bytes = media_mib << 20;
  doc["config"] = {{"drives", drives},
                   {"model", model},
                   {"model_params", bam::emu::to_json(tm)},
                   {"op", op},
                   {"io_size", io_size},
                   {"queues_per_drive", queues},
                   {"queue_entries", depth},
                   {"media", media},
                   {"media_bytes_total", media_bytes},
                   {"engine_blocks", engine_blocks},
                   {"engine_warps_per_block", engine_warps},
                   {"repeats", repeats},
                   {"mapping", mapping}};

  if (with_ceilings) {
    const auto c =
        bam::measure_gpu_ceilings(nullptr, media_bytes, io_size, static_cast<int>(repeats));
    doc["ceilings"] = {{"memcpy_h2d_gbps", c.memcpy_h2d_gbps},
                       {"direct_read_block_bytes", io_size},
                       {"direct_read_blocks_per_s", c.direct_blocks_per_s},
                       {"direct_read_gbps", c.direct_gbps}};
    fmt::print(
        "ceilings over {} MiB pinned: memcpy H2D {:.2f} GB/s; direct {} B random reads {:.2f} M/s "
        "= "
        "{:.2f} GB/s\n",
        media_mib, c.memcpy_h2d_gbps, io_size, c.direct_blocks_per_s / 1e6, c.direct_gbps);
  }

  bam::emu::gpu::drives_config cfg;
  for (std::uint32_t d = 0; d < drives; ++d) {
    bam::emu::gpu::drive_config dc;
    dc.lba_shift = lba_shift;
    dc.lbas = (media_bytes / drives) >> lba_shift;
    dc.media = media == "pinned" ? bam::emu::gpu::media_kind::pinned_host
                                 : bam::emu::gpu::media_kind::device;
    dc.model = tm;
    cfg.drives.push_back(dc);
  }
  cfg.queues_per_drive = queues;
  cfg.queue_entries = depth;
  cfg.engine_blocks = engine_blocks;
  cfg.engine_warps_per_block = engine_warps;
  bam::bench::reserve_buffers(*std::max_element(threads.begin(), threads.end()), lba_shift);
  bam::emu::gpu::emulated_drives set(cfg);
  set.start();
  // Per-drive cap of the model, for the record: the IOPS a drive may reach at this size.
  const auto table = bam::emu::make_service_table(tm);
  const double cost_ps = static_cast<double>(table.cost_ps(op == "write", io_size));
  const double cap = cost_ps > 0 ? 1e12 / cost_ps : 0;
  doc["config"]["model_cap_iops_per_drive"] = cap;
  doc["config"]["gpu_timer_rate"] = set.timer_rate();

  fmt::print("{:>9} {:>10} {:>12} {:>12} {:>8}\n", "threads", "ios", "median MIOPS", "per drive",
             "GB/s");
  nlohmann::json points = nlohmann::json::array();
  std::uint64_t seed = 1;
  for (const std::uint32_t t : threads) {
    std::uint64_t ios_total = std::max<std::uint64_t>(min_ios, t);
    if (cap > 0)
      ios_total = std::min<std::uint64_t>(ios_total,
                                          static_cast<std::uint64_t>(cap * drives * max_seconds));
    const auto per_thread =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (ios_total + t - 1) / t));
    std::vector<double> iops;
    std::uint64_t errors = 0;
    for (std::uint32_t r = 0; r < repeats; ++r) {
      std::uint64_t e = 0;
      const auto run = bam::bench::run_io(set.view(), t, per_thread, op == "write", seed++, &e,
                                          mapping == "warp");
      errors += e;
      iops.push_back(static_cast<double>(run.ios) / run.seconds);
    }
    std::vector<double> sorted = iops;
    std::sort(sorted.begin(), sorted.end());
    const double med = sorted[sorted.size() / 2];
    points.push_back({{"threads", t},
                      {"ios_per_run", std::uint64_t{t} * per_thread},
                      {"iops_runs", iops},
                      {"iops_median", med},
                      {"iops_per_drive_median", med / drives},
                      {"gbps_median", med * io_size / 1e9},
                      {"errors", errors}});
    fmt::print("{:>9} {:>10} {:>12.3f} {:>12.3f} {:>8.2f}{}\n", t, std::uint64_t{t} * per_thread,
               med / 1e6, med / drives / 1e6, med * io_size / 1e9,
               errors ? fmt::format("  ERRORS {}", errors) : "");
    std::fflush(stdout);
  }
  set.stop();
  nlohmann::json per_drive = nlohmann::json::array();
  for (const auto& s : set.stats())
    per_drive.push_back({{"completed", s.completed}, {"errors", s.errors}});
  doc["engine_stats"] = per_drive;
  doc["points"] = points;
  if (!out.empty()) std::ofstream(out) << doc.dump(2) << "\n";
  return 0;
}
