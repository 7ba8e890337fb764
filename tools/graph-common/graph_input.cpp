// Loading and checking the input graph of bfs and cc; the disk read time.
#include "graph_input.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include "bam/config/config_io.hpp"
#include "graph_storage.hpp"

namespace bam::apps {
namespace {

/// The file and, for EMOGI's .col, the .dst beside it.
std::vector<std::filesystem::path> files_of(const std::string& path) {
  std::vector<std::filesystem::path> out{path};
  if (std::filesystem::path(path).extension() == ".col")
    out.push_back(std::filesystem::path(path).replace_extension(".dst"));
  return out;
}

}  // namespace

const input_graph& graph_of(const run_config& c) {
  static std::unique_ptr<input_graph> last;
  const std::string& path = c.graph.file;
  if (path.empty()) {
    throw config_error("graph.file",
                       "no graph given, allowed a .csr, .mtx, .el or .col file "
                       "(--graph FILE)");
  }
  if (last && last->path == path) return *last;
  last.reset();
  auto in = std::make_unique<input_graph>();
  in->path = path;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    in->g = graph::load_graph(path);
    for (const auto& f : files_of(path))
      in->file_bytes += std::filesystem::file_size(f);
  } catch (const std::exception& e) {
    throw config_error("graph.file", e.what());
  }
  in->parse_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  check_app_graph(in->g, path);
  last = std::move(in);
  return *last;
}

disk_read read_from_disk(const std::string& path) {
  disk_read out;
  out.cold = true;
  std::vector<int> fds;
  for (const auto& f : files_of(path)) {
    const int fd = ::open(f.c_str(), O_RDONLY);
    if (fd < 0) {
      for (const int d : fds)
        ::close(d);
      throw std::runtime_error(f.string() + ": cannot open to time its read");
    }
    if (::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) out.cold = false;
    fds.push_back(fd);
  }
  std::vector<char> buffer(16u << 20);
  const auto t0 = std::chrono::steady_clock::now();
  for (const int fd : fds) {
    for (ssize_t n; (n = ::read(fd, buffer.data(), buffer.size())) > 0;)
      out.bytes += static_cast<std::uint64_t>(n);
    ::close(fd);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace bam::apps
