// fio json+ report, CSV row and human summary of a run.
#include "bam/report/fio_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bam/config/config_io.hpp"
#include "bam/report/percentiles.hpp"

namespace bam {
namespace {

nlohmann::json latency_object(const latency_histogram& h, bool with_percentiles) {
  nlohmann::json o{{"min", h.min_or_zero()},
                   {"max", h.max},
                   {"mean", h.mean()},
                   {"stddev", h.stddev()},
                   {"N", h.count}};
  if (!with_percentiles || h.count == 0) return o;
  const auto list = default_percentiles();
  const auto values = percentiles(h, list);
  nlohmann::json p = nlohmann::json::object();
  for (std::size_t i = 0; i < list.size(); ++i)
    p[percentile_key(list[i])] = values[i];
  o["percentile"] = p;
  nlohmann::json bins = nlohmann::json::object();
  for (std::uint32_t i = 0; i < latency_histogram::bucket_count; ++i) {
    if (h.buckets[i] != 0) bins[std::to_string(latency_histogram::bucket_value(i))] = h.buckets[i];
  }
  o["bins"] = bins;
  return o;
}

const char* fio_rw(const run_config& c) {
  const bool seq = c.workload.pattern == io_pattern::sequential;
  switch (c.workload.op) {
    case io_op::read:
      return seq ? "read" : "randread";
    case io_op::write:
      return seq ? "write" : "randwrite";
    case io_op::mixed:
      return seq ? "rw" : "randrw";
  }
  return "?";
}

std::string model_name(const run_config& c) {
  return c.storage.model.inline_model ? std::string("custom") : c.storage.model.name;
}

}  // namespace

nlohmann::json fio_direction(const direction_result& d) {
  const double runtime_s = double(d.runtime_ns) / 1e9;
  const double bw_bytes = runtime_s > 0 ? double(d.io_bytes) / runtime_s : 0.0;
  nlohmann::json o;
  o["io_bytes"] = d.io_bytes;
  o["io_kbytes"] = d.io_bytes / 1024;
  o["bw_bytes"] = static_cast<std::uint64_t>(bw_bytes);
  o["bw"] = static_cast<std::uint64_t>(bw_bytes / 1024.0);
  o["iops"] = d.iops();
  o["runtime"] = d.runtime_ns / 1'000'000;
  o["total_ios"] = d.ios;
  o["short_ios"] = d.short_ios;
  o["drop_ios"] = d.drop_ios;
  o["slat_ns"] = latency_object(latency_histogram{}, false);  // not measured separately
  o["clat_ns"] = latency_object(d.lat, true);
  o["lat_ns"] = latency_object(d.lat, true);
  return o;
}

namespace {

/// fio's job "error" (an errno): 0; 1 when the run failed; EIO when I/Os failed or timed out;
/// EILSEQ (fio's verify error) when only data read back differed.
int fio_error(const run_result& r) {
  if (!r.error.empty()) return 1;
  if (r.errors != 0 || r.timeouts != 0) return EIO;
  if (r.verify_mismatches != 0) return EILSEQ;
  return 0;
}

/// `bamkit.io_errors`: what went wrong with the run's I/Os.
nlohmann::json io_errors_of(const run_result& r) {
  return {{"errors", r.errors},
          {"timeouts", r.timeouts},
          {"verify_mismatches", r.verify_mismatches},
          {"by_status", r.errors_by_status},
          {"io_failed", r.io_failed()},
          {"recovery",
           {{"aborts_sent", r.recovery.aborts_sent},
            {"aborts_found", r.recovery.aborts_found},
            {"abort_failures", r.recovery.abort_failures},
            {"recoveries", r.recovery.recoveries},
            {"queue_recreations", r.recovery.queue_recreations},
            {"recovery_failures", r.recovery.recovery_failures},
            {"recovery_ms", static_cast<double>(r.recovery.recovery_ns) / 1e6}}}};
}

nlohmann::json job_of(const report_inputs& in) {
  const run_config& c = *in.config;
  const run_result& r = *in.result;
  nlohmann::json options{
      {"name", in.tool},
      {"ioengine", fmt::format("bamkit-{}", to_string(c.storage.backend))},
      {"rw", fio_rw(c)},
      {"bs", std::to_string(c.workload.io_size)},
      {"iodepth", std::to_string(c.workload.outstanding)},
      {"numjobs", std::to_string(c.workload.threads)},
      {"size", std::to_string(c.dataset())},
      {"randseed", std::to_string(c.workload.seed)},
  };
  if (c.workload.op == io_op::mixed) {
    options["rwmixread"] = std::to_string(static_cast<int>(c.workload.read_ratio * 100.0 + 0.5));
  }
  if (c.workload.ios != 0) options["number_ios"] = std::to_string(c.workload.ios);
  if (c.workload.duration_s > 0) options["runtime"] = fmt::format("{}", c.workload.duration_s);

  nlohmann::json job;
  job["jobname"] = in.tool;
  job["groupid"] = 0;
  job["error"] = fio_error(r);
  job["elapsed"] = r.runtime_ns / 1'000'000'000;
  job["job options"] = options;
  job["read"] = fio_direction(r.read);
  job["write"] = fio_direction(r.write);
  job["trim"] = fio_direction(r.trim);
  job["job_runtime"] = r.runtime_ns / 1'000'000;
  return job;
}

nlohmann::json bamkit_of(const report_inputs& in) {
  const run_config& c = *in.config;
  const run_result& r = *in.result;
  nlohmann::json bamkit;
  bamkit["tool"] = in.tool;
  bamkit["config"] = to_json(c);
  bamkit["machine"] = in.machine ? to_json(*in.machine) : nlohmann::json(nullptr);
  if (!in.ceilings.is_null()) bamkit["ceilings"] = in.ceilings;
  bamkit["stats"] = r.tool_stats;
  bamkit["stats"]["per_ssd_ios"] = r.per_ssd_ios;
  bamkit["stats"]["errors"] = r.errors;
  bamkit["io_errors"] = io_errors_of(r);
  bamkit["runtime_ns"] = r.runtime_ns;
  bamkit["iops"] = r.iops();
  bamkit["in_flight_mean"] = r.in_flight_mean();
  if (in.repeats > 1) {
    const auto [lo, hi] = std::minmax_element(in.repeat_iops.begin(), in.repeat_iops.end());
    bamkit["repeat"] = {{"runs", in.repeats},
                        {"iops", in.repeat_iops},
                        {"iops_median", r.iops()},
                        {"iops_min", *lo},
                        {"iops_max", *hi},
                        {"method",
                         "this job is the run with the median IOPS (the ceil(N/2)-th smallest "
                         "of N); iops_min/iops_max: the spread over all N runs"}};
    if (in.repeat_latency.size() == in.repeats) {
      // Each run's tail, so that a reader sees how far the job's percentiles (one run's) are
      // from the other runs': tails move more between runs than rates do.
      static constexpr double shown[] = {50.0, 99.0, 99.9, 99.99};
      nlohmann::json lat = nlohmann::json::object();
      for (const double p : shown) {
        nlohmann::json runs = nlohmann::json::array();
        for (const latency_histogram& h : in.repeat_latency)
          runs.push_back(static_cast<double>(percentile(h, p)) / 1e3);
        lat[fmt::format("p{:g}", p)] = std::move(runs);
      }
      bamkit["repeat"]["lat_us"] = std::move(lat);
      bamkit["repeat"]["lat_method"] =
          "lat_us: each run's latency percentiles (both directions together, us), in run order";
    }
  }
  if (!r.error.empty()) bamkit["error"] = r.error;
  return bamkit;
}

nlohmann::json document(nlohmann::json jobs, nlohmann::json bamkit, const machine_info* machine) {
  const std::time_t now = std::time(nullptr);
  nlohmann::json doc;
  doc["fio version"] = bamkit_version();
  doc["timestamp"] = static_cast<std::uint64_t>(now);
  doc["timestamp_ms"] = static_cast<std::uint64_t>(now) * 1000;
  doc["time"] = machine ? machine->date : iso8601_now();
  doc["global options"] = nlohmann::json::object();
  doc["jobs"] = std::move(jobs);
  doc["bamkit"] = std::move(bamkit);
  return doc;
}

}  // namespace

nlohmann::json fio_jsonplus(const report_inputs& in) {
  nlohmann::json bamkit = bamkit_of(in);
  bamkit["schema_version"] = report_schema_version;
  return document(nlohmann::json::array({job_of(in)}), std::move(bamkit), in.machine);
}

nlohmann::json fio_jsonplus_multi(const std::vector<report_inputs>& ins) {
  nlohmann::json jobs = nlohmann::json::array();
  for (std::size_t i = 0; i < ins.size(); ++i) {
    nlohmann::json job = job_of(ins[i]);
    job["jobname"] = fmt::format("{}.{}", ins[i].tool, i);
    job["bamkit"] = bamkit_of(ins[i]);
    job["bamkit"].erase("machine");
    jobs.push_back(std::move(job));
  }
  nlohmann::json bamkit{{"schema_version", report_schema_version}};
  const machine_info* machine = ins.empty() ? nullptr : ins.front().machine;
  bamkit["tool"] = ins.empty() ? "" : ins.front().tool;
  bamkit["machine"] = machine ? to_json(*machine) : nlohmann::json(nullptr);
  bamkit["jobs"] = ins.size();
  if (!ins.empty()) bamkit["config"] = to_json(*ins.front().config);
  return document(std::move(jobs), std::move(bamkit), machine);
}

std::string csv_header() {
  return "tool,backend,model,ssd_count,pairs,depth,threads,outstanding,io_size,op,pattern,ios,"
         "runtime_s,iops,bw_MBps,lat_p50_us,lat_p99_us,lat_p99.9_us,lat_max_us,errors,commit,"
         "date,repeats,iops_min,iops_max,timeouts,verify_mismatches,errors_by_status";
}

std::string csv_header(const report_inputs& in) {
  std::string h = csv_header();
  for (const auto& [name, value] : in.extra_columns)
    h += "," + name;
  return h;
}

std::string csv_row(const report_inputs& in) {
  const run_config& c = *in.config;
  const run_result& r = *in.result;
  const latency_histogram lat = r.all_latency();
  const double list[] = {50.0, 99.0, 99.9};
  const auto p = percentiles(lat, list);
  const double runtime_s = double(r.runtime_ns) / 1e9;
  const double mbps = runtime_s > 0 ? double(r.total_bytes()) / runtime_s / 1e6 : 0.0;
  double iops_min = r.iops(), iops_max = r.iops();
  if (!in.repeat_iops.empty()) {
    iops_min = *std::min_element(in.repeat_iops.begin(), in.repeat_iops.end());
    iops_max = *std::max_element(in.repeat_iops.begin(), in.repeat_iops.end());
  }
  std::string row = fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{:.6f},{:.1f},{:.3f},{:.3f},{:.3f},{:.3f},"
      "{:.3f},{},{},{},{},{:.1f},{:.1f}",
      in.tool, to_string(c.storage.backend), model_name(c), c.storage.ssd_count,
      c.queues.pairs_per_ssd, c.queues.depth, c.workload.threads, c.workload.outstanding,
      c.workload.io_size, to_string(c.workload.op), to_string(c.workload.pattern), r.total_ios(),
      runtime_s, r.iops(), mbps, double(p[0]) / 1e3, double(p[1]) / 1e3, double(p[2]) / 1e3,
      double(lat.max) / 1e3, r.errors, in.machine ? in.machine->git_commit : git_commit(),
      in.machine ? in.machine->date : iso8601_now(), in.repeats, iops_min, iops_max);
  // Statuses as "name=count" joined by ';' (names hold no ',' or ';').
  std::string by_status;
  for (const auto& [status, n] : r.errors_by_status)
    by_status += fmt::format("{}{}={}", by_status.empty() ? "" : ";", status, n);
  row += fmt::format(",{},{},{}", r.timeouts, r.verify_mismatches, by_status);
  for (const auto& [name, value] : in.extra_columns)
    row += "," + value;
  return row;
}

void append_csv(const std::string& path, const report_inputs& in) {
  std::error_code ec;
  const bool fresh =
      !std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0;
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error(fmt::format("cannot write CSV file '{}'", path));
  if (fresh) out << csv_header(in) << "\n";
  out << csv_row(in) << "\n";
  if (!out) throw std::runtime_error(fmt::format("cannot write CSV file '{}'", path));
}

void write_json_file(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error(fmt::format("cannot write report file '{}'", path));
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error(fmt::format("cannot write report file '{}'", path));
}

void print_summary(std::ostream& os, const report_inputs& in) {
  const run_config& c = *in.config;
  const run_result& r = *in.result;
  const std::string workload =
      in.workload ? *in.workload
                  : fmt::format("outstanding={} {} {} io_size={}", c.workload.outstanding,
                                to_string(c.workload.pattern), to_string(c.workload.op),
                                c.workload.io_size);
  fmt::print(os, "{}: backend={} model={} ssds={} pairs/ssd={} depth={} threads={}{}{}\n", in.tool,
             to_string(c.storage.backend), model_name(c), c.storage.ssd_count,
             c.queues.pairs_per_ssd, c.queues.depth, c.workload.threads,
             workload.empty() ? "" : " ", workload);
  auto dir = [&](const char* name, const direction_result& d) {
    if (d.ios == 0) return;
    fmt::print(os, "  {:5}: {} IOs in {:.3f} s, {:.0f} IOPS, {:.1f} MB/s", name, d.ios,
               double(d.runtime_ns) / 1e9, d.iops(), d.bytes_per_s() / 1e6);
    if (d.lat.count == 0) {  // a tool that times no single I/O (bfs, cc, taxi-query)
      fmt::print(os, "\n");
      return;
    }
    const double list[] = {50.0, 99.0, 99.9, 99.99};
    const auto p = percentiles(d.lat, list);
    fmt::print(os,
               "; latency us: mean {:.2f} p50 {:.2f} p99 {:.2f} p99.9 {:.2f} p99.99 {:.2f} max "
               "{:.2f}\n",
               d.lat.mean() / 1e3, double(p[0]) / 1e3, double(p[1]) / 1e3, double(p[2]) / 1e3,
               double(p[3]) / 1e3, double(d.lat.max) / 1e3);
  };
  dir("read", r.read);
  dir("write", r.write);
  dir("trim", r.trim);
  fmt::print(os, "  total: {} IOs, {:.0f} IOPS, {:.1f} MB/s, errors {}", r.total_ios(), r.iops(),
             r.runtime_ns ? double(r.total_bytes()) * 1e3 / double(r.runtime_ns) : 0.0, r.errors);
  if (r.all_latency().count != 0)
    fmt::print(os, "; {:.1f} in flight on the mean (Little's law)", r.in_flight_mean());
  fmt::print(os, "\n");
  if (r.io_failed()) {
    std::string by_status;
    for (const auto& [status, n] : r.errors_by_status)
      by_status += fmt::format("{}{} {}", by_status.empty() ? "" : ", ", n, status);
    fmt::print(os, "  I/O FAILED: {} errors ({} timeouts){}, {} verify mismatches\n", r.errors,
               r.timeouts, by_status.empty() ? "" : ": " + by_status, r.verify_mismatches);
  }
  if (r.recovery.any()) {
    fmt::print(os,
               "  queue recovery: {} Aborts sent ({} found the command, {} unanswered); {} failed "
               "queues: {} recreated ({:.1f} ms after they failed, on average), {} left failed\n",
               r.recovery.aborts_sent, r.recovery.aborts_found, r.recovery.abort_failures,
               r.recovery.recoveries, r.recovery.queue_recreations,
               r.recovery.queue_recreations == 0
                   ? 0.0
                   : static_cast<double>(r.recovery.recovery_ns) / 1e6 /
                         static_cast<double>(r.recovery.queue_recreations),
               r.recovery.recovery_failures);
  }
  if (!r.error.empty()) fmt::print(os, "  ERROR: {}\n", r.error);
}

}  // namespace bam
