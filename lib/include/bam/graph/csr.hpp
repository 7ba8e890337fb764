// bam/graph/csr.hpp: API. A graph in compressed sparse row form, in host memory, as the data tool
// (`bam-data graph-gen`, `graph-import`) writes it and the graph applications (`bfs`, `cc`) read
// it; and the loaders of every input format those tools accept. The on-disk `.csr` layout (its
// self-describing header and checksum) is in bam/graph/csr_file.hpp.
#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "bam/io/input_error.hpp"

namespace bam::graph {

/// Vertex v's neighbours are neighbours[offsets[v] .. offsets[v+1]); ids are 0-based here.
/// Exactly one of neighbours32 / neighbours64 is used: 32-bit when vertex_count <= 2^32.
struct csr_graph {
  std::uint64_t vertex_count = 0;
  std::vector<std::uint64_t> offsets;       ///< vertex_count + 1 entries, offsets[0] = 0
  std::vector<std::uint32_t> neighbours32;  ///< when !wide()
  std::vector<std::uint64_t> neighbours64;  ///< when wide()
  std::vector<float> weights;               ///< empty, or one per directed edge
  bool symmetric = false;     ///< every edge (u, v) has its (v, u): stated by the producer
  std::uint32_t id_base = 0;  ///< ids as the input file wrote them = id + id_base (1 for .mtx)

  std::uint64_t edge_count() const { return offsets.empty() ? 0 : offsets.back(); }
  bool wide() const { return vertex_count > (std::uint64_t{1} << 32); }
  std::uint64_t neighbour(std::uint64_t i) const {
    return wide() ? neighbours64[i] : neighbours32[i];
  }
};

/// What a loader or generator does to the edge list before building the CSR. Every CSR they
/// build has each row sorted by (neighbour, weight); a self-loop is its own reverse (symmetrize
/// adds no second copy); dedup keeps the smallest weight of each (u, v).
struct edge_options {
  bool symmetrize = false;       ///< add (v, u) for every (u, v)
  bool drop_self_loops = false;  ///< remove (v, v)
  bool dedup = false;            ///< keep one of each (u, v)
  unsigned threads = 0;          ///< threads that parse and build; 0: every hardware thread
};

/// What the loaders throw for an input that is missing, unreadable or malformed (the message
/// names the file and the line or byte offset): the library's input_error
/// (bam/io/input_error.hpp); tools answer it with exit status 2. Other std::runtime_errors
/// (e.g. a full disk while writing) are failures of the run.
using input_error = bam::input_error;

/// Reads any input format the tools accept, chosen by extension: `.csr` (bamkit's own), `.mtx`
/// (Matrix Market coordinate), `.el` (text edge list), `.col` (EMOGI/BaM binary CSR, with `.dst`
/// beside it). Throws std::runtime_error naming the file and the line or byte offset of the first
/// problem.
csr_graph load_graph(const std::filesystem::path& file, const edge_options& options = {});

/// The graph with `options` applied (e.g. cc's undirected view of a directed graph: symmetrize);
/// rows come out sorted. Returns `g` unchanged when no option is set.
csr_graph apply_edge_options(csr_graph g, const edge_options& options);

}  // namespace bam::graph
