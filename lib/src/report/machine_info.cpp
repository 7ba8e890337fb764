// Machine and build identification for reports.
#include "bam/report/machine_info.hpp"

#include "bam_git_describe.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <thread>

#ifndef BAM_VERSION
#define BAM_VERSION "0.0.0"
#endif

namespace bam {

std::string bamkit_version() {
  return std::string("bamkit-") + BAM_VERSION;
}

std::string iso8601_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

/// The commit this binary was built from (binaries are often run on another machine, without
/// the source tree).
std::string git_commit() {
  return BAM_GIT_DESCRIBE;
}

machine_info collect_machine_info(const gpu_info& gpu) {
  machine_info m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos)
        m.cpu_model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  if (m.cpu_model.empty()) m.cpu_model = "unknown";
  m.cores = std::thread::hardware_concurrency();
  m.gpu = gpu;
  m.git_commit = git_commit();
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) == 0) m.hostname = host.data();
  m.date = iso8601_now();
  utsname u{};
  if (::uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
  return m;
}

nlohmann::json to_json(const machine_info& m) {
  return nlohmann::json{
      {"cpu", m.cpu_model},         {"cores", m.cores},       {"gpu", m.gpu.name},
      {"gpu_count", m.gpu.count},   {"driver", m.gpu.driver}, {"cuda", m.gpu.cuda_runtime},
      {"git_commit", m.git_commit}, {"hostname", m.hostname}, {"date", m.date},
      {"kernel", m.kernel},
  };
}

}  // namespace bam
