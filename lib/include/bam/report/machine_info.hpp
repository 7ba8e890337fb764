// bam/report/machine_info.hpp: API. What a report says about the machine and the code that
// produced it (bamkit.machine): CPU, cores, GPU, the NVIDIA driver, CUDA (or "none"), git commit,
// hostname, date.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace bam {

/// Filled by query_gpu_info() (bam/report/gpu_info.hpp, CUDA builds only); "none" otherwise.
struct gpu_info {
  int count = 0;
  std::string name = "none";
  int sms = 0;                        ///< device 0's SMs (what an engine's engine_sms are out of)
  std::string driver = "none";        ///< CUDA driver API version, e.g. "13.0" (not the driver's)
  std::string cuda_runtime = "none";  ///< runtime version the tool was built with
};

struct machine_info {
  std::string cpu_model;
  unsigned cores = 0;
  gpu_info gpu;
  /// The NVIDIA kernel driver's version, e.g. "580.159.04" (/proc/driver/nvidia/version; "none"
  /// where it is not loaded): what results/ cite as the driver (JSON: gpu_driver).
  std::string gpu_driver = "none";
  std::string git_commit;
  std::string hostname;
  std::string date;  ///< ISO-8601, UTC
  std::string kernel;
};

machine_info collect_machine_info(const gpu_info& gpu = {});
nlohmann::json to_json(const machine_info& m);

/// The NVIDIA kernel driver's version in the text of /proc/driver/nvidia/version (its "NVRM
/// version" line, e.g. "... Kernel Module  580.159.04  Release Build ..."): "580.159.04"; "none"
/// when the text has no such line.
std::string nvidia_driver_version(std::string_view proc_text);

/// `git describe --always --dirty` of the source tree when the binary was built (refreshed at
/// every build: lib/CMakeLists.txt).
std::string git_commit();
/// Current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string iso8601_now();
/// "bamkit-<version>".
std::string bamkit_version();

}  // namespace bam
