// bam-data graph-gen kron|urand: a Kronecker or uniform random graph (bam/graph/generate.hpp)
// written as .csr, .el or .mtx.
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <string>

#include "bam/graph/generate.hpp"
#include "bam/harness/exit_status.hpp"
#include "commands.hpp"
#include "graph_jobs.hpp"
#include "graph_output.hpp"

namespace bam::data {
namespace {

struct gen_args {
  std::string kind;
  unsigned scale = 0;
  unsigned edge_factor = 16;
  std::uint64_t seed = 1;
  std::string out;
  std::string format;
  unsigned threads = 0;
  bool keep_self_loops = false;
  bool keep_duplicates = false;
  bool directed = false;
};

int run_gen(const gen_args& a) {
  bam::graph::generator_options o;
  o.kind = bam::graph::parse_generator_kind(a.kind);
  o.scale = a.scale;
  o.edge_factor = a.edge_factor;
  o.seed = a.seed;
  o.edges.symmetrize = !a.directed;
  o.edges.drop_self_loops = !a.keep_self_loops;
  o.edges.dedup = !a.keep_duplicates;
  o.edges.threads = a.threads;
  const graph_format f = graph_format_of(a.format, a.out);
  fmt::print(
      "graph-gen {}: scale {} ({} vertices), edge factor {} ({} edges drawn), seed {}, "
      "threads {}, symmetrize {}, self-loops {}, duplicates {}, format {}, out {}\n",
      a.kind, a.scale, std::uint64_t{1} << a.scale, a.edge_factor,
      std::uint64_t{a.edge_factor} << a.scale, a.seed,
      a.threads ? std::to_string(a.threads) : "all", o.edges.symmetrize ? "yes" : "no",
      o.edges.drop_self_loops ? "dropped" : "kept", o.edges.dedup ? "dropped" : "kept",
      to_string(f), a.out);
  const auto t0 = std::chrono::steady_clock::now();
  const bam::graph::csr_graph g = bam::graph::generate(o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_graph(g, a.out, f, a.threads, s, "generate");
  return exit_ok;
}

}  // namespace

void add_graph_gen(CLI::App& app) {
  auto a = std::make_shared<gen_args>();
  CLI::App* sub = app.add_subcommand("graph-gen",
                                     "Generate a Kronecker (Graph500/GAP) or uniform random graph");
  sub->add_option("kind", a->kind, "kron or urand")
      ->required()
      ->check(CLI::IsMember({"kron", "urand"}));
  sub->add_option("--scale", a->scale, "2^scale vertices")
      ->required()
      ->check(CLI::Range(1u, bam::graph::max_generator_scale));
  sub->add_option("--edge-factor", a->edge_factor, "edges drawn per vertex (default 16)")
      ->check(CLI::Range(1u, 1024u));
  sub->add_option("--seed", a->seed, "the generator's seed (default 1)");
  sub->add_option("--out", a->out, "output file (.csr, .el or .mtx)")->required();
  sub->add_option("--format", a->format, "csr, el or mtx (default: by --out's extension)")
      ->check(CLI::IsMember({"csr", "el", "mtx"}));
  sub->add_option("--threads", a->threads, "threads (default: every hardware thread)");
  sub->add_flag("--keep-self-loops", a->keep_self_loops, "keep the self-loops drawn");
  sub->add_flag("--keep-duplicates", a->keep_duplicates, "keep duplicate edges");
  sub->add_flag("--directed", a->directed, "do not add the reverse of each edge");
  sub->callback([a] { exit_status() = run_guarded("graph-gen", [&] { return run_gen(*a); }); });
}

}  // namespace bam::data
