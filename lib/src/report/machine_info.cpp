// Machine and build identification for reports.
#include "bam/report/machine_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <thread>

#ifndef BAM_GIT_DESCRIBE
#define BAM_GIT_DESCRIBE "unknown"
#endif
#ifndef BAM_SOURCE_DIR
#define BAM_SOURCE_DIR ""
#endif
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

std::string git_commit() {
  static const std::string value = [] {
    const std::string dir = BAM_SOURCE_DIR;
    if (!dir.empty() && ::access((dir + "/.git").c_str(), F_OK) == 0) {
      const std::string cmd = "git -C '" + dir + "' describe --always --dirty 2>/dev/null";
      std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
      if (p) {
        std::array<char, 128> buf{};
        if (std::fgets(buf.data(), buf.size(), p.get()) != nullptr) {
          std::string s = buf.data();
          while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
            s.pop_back();
          if (!s.empty()) return s;
        }
      }
    }
    return std::string(BAM_GIT_DESCRIBE);
  }();
  return value;
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
