// The per-vertex result files of bfs and cc.
#include "dump.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace bam::apps {
namespace {

/// Writes line(v) for every vertex into path.tmp, then renames it to path.
template <class Line>
void write_lines(const std::string& path, std::uint64_t n, Line&& line) {
  std::string tmp = path;
  tmp += ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) throw std::runtime_error(path + ": cannot be written (dump)");
  fmt::memory_buffer buf;
  bool ok = true;
  for (std::uint64_t v = 0; v < n && ok; ++v) {
    line(buf, v);
    if (buf.size() > (1u << 20) || v + 1 == n) {
      ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
      buf.clear();
    }
  }
  ok = std::fclose(f) == 0 && ok;
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error(path + ": writing the dump failed");
  }
}

}  // namespace

void write_levels(const std::string& path, const std::vector<std::int32_t>& levels,
                  std::uint32_t id_base) {
  write_lines(path, levels.size(), [&](fmt::memory_buffer& b, std::uint64_t v) {
    fmt::format_to(std::back_inserter(b), "{} {}\n", v + id_base, levels[v]);
  });
}

void write_labels(const std::string& path, const std::vector<std::uint32_t>& labels,
                  std::uint32_t id_base) {
  write_lines(path, labels.size(), [&](fmt::memory_buffer& b, std::uint64_t v) {
    fmt::format_to(std::back_inserter(b), "{} {}\n", v + id_base,
                   std::uint64_t{labels[v]} + id_base);
  });
}

}  // namespace bam::apps
