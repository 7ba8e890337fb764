// bam/report/machine_info.hpp: API. What a report says about the machine and the code that
// produced it (bamkit.machine): CPU, cores, GPU/driver/CUDA (or "none"), git commit, hostname,
// date.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace bam {

/// Filled by query_gpu_info() (bam/report/gpu_info.hpp, CUDA builds only); "none" otherwise.
struct gpu_info {
  int count = 0;
  std::string name = "none";
  std::string driver = "none";        ///< CUDA driver API version, e.g. "12.4"
  std::string cuda_runtime = "none";  ///< runtime version the tool was built with
};

struct machine_info {
  std::string cpu_model;
  unsigned cores = 0;
  gpu_info gpu;
  std::string git_commit;
  std::string hostname;
  std::string date;  ///< ISO-8601, UTC
  std::string kernel;
};

machine_info collect_machine_info(const gpu_info& gpu = {});
nlohmann::json to_json(const machine_info& m);

/// `git describe --always --dirty` of the source tree (at run time when it is reachable, else
/// the value recorded at configure time).
std::string git_commit();
/// Current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string iso8601_now();
/// "bamkit-<version>".
std::string bamkit_version();

}  // namespace bam
