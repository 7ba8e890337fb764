// The Kronecker and uniform generators (bam/graph/generate.hpp). Edge e's randomness is the
// splitmix64 sequence seeded by mix(seed, e): nothing depends on which thread draws it. kron
// picks one quadrant per level from 32-bit draws; its vertex ids then go through a keyed
// bijection of [0, 2^scale) (rounds of multiply by an odd constant, xorshift, add: each a
// permutation of scale-bit integers), which breaks the locality of the recursive matrix as
// Graph500's random relabelling does, without a table of 2^scale entries.
#include "bam/graph/generate.hpp"

#include <stdexcept>
#include <string>

#include "build.hpp"

namespace bam::graph {
namespace {

constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ull;

std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// splitmix64 from a state: next() = mix(state += golden).
struct splitmix {
  std::uint64_t state;
  std::uint64_t next() { return mix64(state += golden); }
};

constexpr unsigned permute_rounds = 4;

struct vertex_permutation {
  std::uint64_t mask = 0;
  unsigned shift = 1;
  std::uint64_t mul[permute_rounds] = {};
  std::uint64_t add[permute_rounds] = {};

  vertex_permutation(unsigned scale, std::uint64_t seed) {
    mask = scale >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << scale) - 1;
    shift = scale / 2 > 0 ? scale / 2 : 1;
    splitmix r{mix64(seed ^ 0x7065726d75746521ull)};
    for (unsigned i = 0; i < permute_rounds; ++i) {
      mul[i] = r.next() | 1;
      add[i] = r.next();
    }
  }
  std::uint64_t operator()(std::uint64_t x) const {
    for (unsigned i = 0; i < permute_rounds; ++i) {
      x = (x * mul[i]) & mask;
      x ^= x >> shift;
      x = (x + add[i]) & mask;
    }
    return x;
  }
};

struct drawer {
  generator_options o;
  std::uint64_t key;
  std::uint64_t mask;
  vertex_permutation perm;
  // Quadrant thresholds of 32-bit draws: A, A + B, A + B + C.
  static constexpr std::uint64_t t_a = static_cast<std::uint64_t>(0.57 * 4294967296.0);
  static constexpr std::uint64_t t_ab = static_cast<std::uint64_t>(0.76 * 4294967296.0);
  static constexpr std::uint64_t t_abc = static_cast<std::uint64_t>(0.95 * 4294967296.0);

  explicit drawer(const generator_options& opt)
      : o(opt),
        key(mix64(opt.seed + golden)),
        mask((std::uint64_t{1} << opt.scale) - 1),
        perm(opt.scale, opt.seed) {}

  drawn_edge operator()(std::uint64_t e) const {
    splitmix r{mix64(key ^ mix64(e))};
    if (o.kind == generator_kind::urand) return {r.next() & mask, r.next() & mask};
    std::uint64_t u = 0, v = 0;
    std::uint64_t bits = 0;
    for (unsigned level = 0; level < o.scale; ++level) {
      if ((level & 1) == 0) bits = r.next();
      const std::uint64_t x = (level & 1) == 0 ? (bits & 0xffffffffu) : (bits >> 32);
      // Branch-free: A (0, 0), B (0, 1), C (1, 0), D (1, 1).
      const std::uint64_t ge_a = x >= t_a, ge_ab = x >= t_ab, ge_abc = x >= t_abc;
      const std::uint64_t bu = ge_ab;
      const std::uint64_t bv = ge_a ^ ge_ab ^ ge_abc;
      u = (u << 1) | bu;
      v = (v << 1) | bv;
    }
    return {perm(u), perm(v)};
  }
};

void check(const generator_options& o) {
  if (o.scale < 1 || o.scale > max_generator_scale) {
    throw std::invalid_argument("generator scale " + std::to_string(o.scale) + " is outside [1, " +
                                std::to_string(max_generator_scale) + "]");
  }
  if (o.edge_factor < 1 || o.edge_factor > 1024) {
    throw std::invalid_argument("generator edge factor " + std::to_string(o.edge_factor) +
                                " is outside [1, 1024]");
  }
}

constexpr std::uint64_t edges_per_chunk = std::uint64_t{1} << 16;

struct drawn_source {
  const drawer& d;
  std::uint64_t edges;
  std::size_t chunks() const { return (edges + edges_per_chunk - 1) / edges_per_chunk; }
  template <class F>
  void visit(std::size_t c, F&& f) const {
    const std::uint64_t end = std::min<std::uint64_t>(edges, (c + 1) * edges_per_chunk);
    for (std::uint64_t e = c * edges_per_chunk; e < end; ++e) {
      const drawn_edge x = d(e);
      f(x.u, x.v, 1.0f);
    }
  }
};

}  // namespace

std::string_view to_string(generator_kind k) {
  return k == generator_kind::kron ? "kron" : "urand";
}

generator_kind parse_generator_kind(std::string_view s) {
  if (s == "kron") return generator_kind::kron;
  if (s == "urand") return generator_kind::urand;
  throw std::invalid_argument("unknown generator '" + std::string(s) + "' (kron or urand)");
}

drawn_edge draw_edge(const generator_options& o, std::uint64_t e) {
  check(o);
  return drawer(o)(e);
}

csr_graph generate(const generator_options& o) {
  check(o);
  const drawer d(o);
  const std::uint64_t vertices = std::uint64_t{1} << o.scale;
  const drawn_source src{d, std::uint64_t{o.edge_factor} << o.scale};
  csr_graph g = vertices > (std::uint64_t{1} << 32)
                    ? detail::build_csr<std::uint64_t>(src, vertices, false, o.edges)
                    : detail::build_csr<std::uint32_t>(src, vertices, false, o.edges);
  return g;
}

}  // namespace bam::graph
