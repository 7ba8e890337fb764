// bam-data graph-import: any graph file load_graph reads (.csr, .mtx, .el, .col + .dst) written
// as .csr (or .el / .mtx), with the edge options applied.
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <string>

#include "bam/graph/csr.hpp"
#include "bam/harness/exit_status.hpp"
#include "commands.hpp"
#include "graph_jobs.hpp"
#include "graph_output.hpp"

namespace bam::data {
namespace {

struct import_args {
  std::string in;
  std::string out;
  std::string format;
  unsigned threads = 0;
  bam::graph::edge_options edges;
};

int run_import(import_args a) {
  const graph_format f = graph_format_of(a.format, a.out);
  a.edges.threads = a.threads;
  fmt::print(
      "graph-import: in {}, out {} ({}), symmetrize {}, drop self-loops {}, dedup {}, "
      "threads {}\n",
      a.in, a.out, to_string(f), a.edges.symmetrize ? "yes" : "no",
      a.edges.drop_self_loops ? "yes" : "no", a.edges.dedup ? "yes" : "no",
      a.threads ? std::to_string(a.threads) : "all");
  const auto t0 = std::chrono::steady_clock::now();
  const bam::graph::csr_graph g = bam::graph::load_graph(a.in, a.edges);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_graph(g, a.out, f, a.threads, s, "load");
  return exit_ok;
}

}  // namespace

void add_graph_import(CLI::App& app) {
  auto a = std::make_shared<import_args>();
  CLI::App* sub = app.add_subcommand(
      "graph-import", "Convert a graph file (.csr, .mtx, .el, .col + .dst) to .csr (or .el/.mtx)");
  sub->add_option("--in", a->in, "input graph (the format by its extension)")->required();
  sub->add_option("--out", a->out, "output file (.csr unless --format or the extension says)")
      ->required();
  sub->add_option("--format", a->format, "csr, el or mtx (default: by --out's extension)")
      ->check(CLI::IsMember({"csr", "el", "mtx"}));
  sub->add_option("--threads", a->threads, "threads (default: every hardware thread)");
  sub->add_flag("--symmetrize", a->edges.symmetrize, "add (v, u) for every edge (u, v)");
  sub->add_flag("--drop-self-loops", a->edges.drop_self_loops, "remove edges (v, v)");
  sub->add_flag("--dedup", a->edges.dedup, "keep one of each edge (u, v)");
  sub->callback(
      [a] { exit_status() = run_guarded("graph-import", [&] { return run_import(*a); }); });
}

}  // namespace bam::data
