// Machine and build identification for reports.
#include "bam/report/machine_info.hpp"

#include "bam_git_describe.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
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

std::string nvidia_driver_version(std::string_view text) {
  constexpr std::string_view nvrm = "NVRM version:";
  const auto at = text.find(nvrm);
  if (at == std::string_view::npos) return "none";
  std::string_view line = text.substr(at + nvrm.size());
  line = line.substr(0, line.find('\n'));
  // The first word of digits and dots with a dot in it ("x86_64" has none of the first kind).
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t end = std::min(line.find_first_of(" \t", i), line.size());
    const std::string_view word = line.substr(i, end - i);
    if (!word.empty() && word.find_first_not_of("0123456789.") == std::string_view::npos &&
        word.find('.') != std::string_view::npos && word.front() != '.')
      return std::string(word);
    i = end + 1;
  }
  return "none";
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
  if (std::ifstream v("/proc/driver/nvidia/version"); v) {
    const std::string text((std::istreambuf_iterator<char>(v)), std::istreambuf_iterator<char>());
    m.gpu_driver = nvidia_driver_version(text);
  }
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
      {"cpu", m.cpu_model},
      {"cores", m.cores},
      {"gpu", m.gpu.name},
      {"gpu_count", m.gpu.count},
      {"gpu_sms", m.gpu.sms},
      {"gpu_driver", m.gpu_driver},
      {"driver", m.gpu.driver},
      {"cuda", m.gpu.cuda_runtime},
      {"git_commit", m.git_commit},
      {"hostname", m.hostname},
      {"date", m.date},
      {"kernel", m.kernel},
  };
}

}  // namespace bam
