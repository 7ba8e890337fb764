// graph_input.hpp: API. The graph a bfs or cc run reads (graph.file), loaded once per process
// and file and checked for what the applications need; the measured read of the file from disk
// (the load time host-zero-copy counts).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bam/config/run_config.hpp"
#include "bam/graph/csr.hpp"

namespace bam::apps {

struct input_graph {
  graph::csr_graph g;
  std::string path;
  std::uint64_t file_bytes = 0;  ///< the file's bytes (.col: with its .dst)
  double parse_s = 0;            ///< load_graph's wall time
};

/// graph.file, loaded (the last file is kept: the points of a sweep load it once). Throws
/// config_error("graph.file") when none is given, it cannot be read or parsed (load_graph's
/// message, naming the line or byte offset), or the applications cannot run on it.
const input_graph& graph_of(const run_config& c);

/// Reads the graph's file(s) from disk after asking the kernel to drop them from the page cache
/// (posix_fadvise DONTNEED; `cold` false when that was refused): how long loading the graph into
/// host memory takes without parsing.
struct disk_read {
  double seconds = 0;
  std::uint64_t bytes = 0;
  bool cold = false;
};
disk_read read_from_disk(const std::string& path);

}  // namespace bam::apps
