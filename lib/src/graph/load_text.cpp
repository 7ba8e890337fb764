// The `.el` and `.mtx` loaders (graph/load_text.hpp): the file is mapped, cut into chunks at line
// ends, and each chunk parsed by one thread with std::from_chars into its own edge list (32-bit
// ids while every id fits, else the file is parsed again with 64-bit ids). Errors are found per
// chunk and the first in file order is reported with its line number. The CSR is then built
// from the chunks (graph/build.hpp).
#include "load_text.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "bam/graph/parallel.hpp"
#include "build.hpp"
#include "files.hpp"

namespace bam::graph::detail {
namespace {

enum class text_kind { el, mtx };

struct text_rules {
  text_kind kind = text_kind::el;
  int fields = 0;            ///< 2 or 3 required (mtx); 0: either, the same on every line (el)
  std::uint64_t id_min = 0;  ///< the smallest id allowed (1 for mtx)
  std::uint64_t id_max = 0;  ///< the largest id allowed
  std::string id_range;      ///< how errors state the allowed range
};

template <class Id>
struct parsed_chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::vector<Id> ends;  ///< u0 v0 u1 v1 ... (0-based)
  std::vector<float> weights;
  std::uint64_t newlines = 0;  ///< line ends in the chunk (valid when it parsed completely)
  std::uint64_t data_lines = 0;
  int fields = 0;  ///< of its first data line
  std::uint64_t first_data_line = 0;
  std::uint64_t max_id = 0;
  bool too_wide = false;  ///< met an id that does not fit Id
  bool failed = false;
  std::uint64_t error_line = 0;  ///< 0-based within the chunk
  std::string error;
};

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::string token_at(const char* p, const char* eol) {
  const char* q = p;
  while (q < eol && !blank(*q) && q - p < 40)
    ++q;
  if (q == p) return "end of line";
  return "'" + std::string(p, q) + "'";
}

/// Parses the lines of c.begin..c.end by `r`.
template <class Id>
void parse_chunk(parsed_chunk<Id>& c, const text_rules& r) {
  const char* p = c.begin;
  const char* const e = c.end;
  const std::size_t lines = static_cast<std::size_t>(std::count(p, e, '\n')) + 1;
  c.ends.reserve(2 * lines);
  std::uint64_t line = 0;
  auto fail = [&](std::string what) {
    c.failed = true;
    c.error_line = line;
    c.error = std::move(what);
  };
  while (p < e) {
    const char* eol =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(e - p)));
    if (!eol) eol = e;
    const char* q = p;
    while (q < eol && blank(*q))
      ++q;
    const bool comment = q < eol && (*q == '%' || (r.kind == text_kind::el && *q == '#'));
    if (q < eol && !comment) {
      std::uint64_t id[2];
      for (int k = 0; k < 2; ++k) {
        if (k == 1) {
          if (q == eol) return fail("expected two vertex ids, found one");
          while (q < eol && blank(*q))
            ++q;
        }
        const auto [ptr, ec] = std::from_chars(q, eol, id[k]);
        if (ec == std::errc::result_out_of_range) {
          return fail("vertex id " + token_at(q, eol) + " is too large");
        }
        if (ec != std::errc{} || (ptr < eol && !blank(*ptr))) {
          return fail("field " + std::to_string(k + 1) +
                      " is not a non-negative integer: " + token_at(q, eol));
        }
        q = ptr;
      }
      while (q < eol && blank(*q))
        ++q;
      int fields = 2;
      float w = 1.0f;
      if (q < eol) {
        const auto [ptr, ec] = std::from_chars(q, eol, w);
        if (ec != std::errc{} || (ptr < eol && !blank(*ptr)) || !std::isfinite(w)) {
          return fail("field 3 (weight) is not a finite number: " + token_at(q, eol));
        }
        if (w == 0.0f) w = 0.0f;  // -0 and +0: one bit pattern, so that rows sort one way
        fields = 3;
        q = ptr;
        while (q < eol && blank(*q))
          ++q;
        if (q < eol) return fail("unexpected text after the third field: " + token_at(q, eol));
      }
      if (r.fields != 0 && fields != r.fields) {
        return fail("expected " + std::to_string(r.fields) + " fields, found " +
                    std::to_string(fields));
      }
      if (c.fields == 0) {
        c.fields = fields;
        c.first_data_line = line;
      } else if (fields != c.fields) {
        return fail(std::to_string(fields) + " fields where earlier lines have " +
                    std::to_string(c.fields));
      }
      for (int k = 0; k < 2; ++k) {
        if (id[k] < r.id_min || id[k] > r.id_max) {
          return fail("vertex id " + std::to_string(id[k]) + " is out of range " + r.id_range);
        }
        id[k] -= r.id_min;
        if (id[k] > std::numeric_limits<Id>::max()) {
          c.too_wide = true;
          return;
        }
      }
      c.ends.push_back(static_cast<Id>(id[0]));
      c.ends.push_back(static_cast<Id>(id[1]));
      if (fields == 3) {
        if (c.weights.capacity() == 0) c.weights.reserve(lines);
        c.weights.push_back(w);
      }
      c.max_id = std::max({c.max_id, id[0], id[1]});
      ++c.data_lines;
    }
    if (eol < e) ++line;
    p = eol + 1;
  }
  c.newlines = line;
}

/// Cuts [b, e) into pieces ending at line ends: about 32 MiB each, at least 4 per thread.
template <class Id>
std::vector<parsed_chunk<Id>> cut(const char* b, const char* e, unsigned threads) {
  const std::size_t bytes = static_cast<std::size_t>(e - b);
  const std::size_t pieces =
      std::max<std::size_t>(1, std::max<std::size_t>(bytes >> 25, std::size_t{threads} * 4));
  std::vector<parsed_chunk<Id>> out;
  const char* at = b;
  for (std::size_t k = 1; k <= pieces && at < e; ++k) {
    const char* to = k == pieces ? e : b + block_begin(bytes, pieces, k);
    if (to < at) continue;
    const char* nl =
        static_cast<const char*>(std::memchr(to, '\n', static_cast<std::size_t>(e - to)));
    to = nl ? nl + 1 : e;
    parsed_chunk<Id> c;
    c.begin = at;
    c.end = to;
    out.push_back(std::move(c));
    at = to;
  }
  return out;
}

template <class Id>
struct chunks_source {
  std::vector<parsed_chunk<Id>>& cs;
  bool weighted;
  std::size_t chunks() const { return cs.size(); }
  template <class F>
  void visit(std::size_t c, F&& f) const {
    const auto& ch = cs[c];
    const std::size_t n = ch.ends.size() / 2;
    for (std::size_t i = 0; i < n; ++i) {
      f(ch.ends[2 * i], ch.ends[2 * i + 1], weighted ? ch.weights[i] : 1.0f);
    }
  }
  void release(std::size_t c) {
    std::vector<Id>().swap(cs[c].ends);
    std::vector<float>().swap(cs[c].weights);
  }
};

/// Why a graph of n vertices cannot be loaded here ("" when it can): its offsets alone would
/// take more than half of this machine's memory (a file claiming billions of vertices is refused
/// with a message rather than ending in the OOM killer).
std::string too_many_vertices(std::uint64_t n) {
  const auto pages = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES));
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
  const std::uint64_t need = (n + 1) * 8;
  if (pages == 0 || need <= pages * page / 2) return {};
  std::string s = std::to_string(n);
  s += " vertices: their offsets alone need ";
  s += std::to_string(need >> 20);
  s += " MiB, more than half of this machine's ";
  s += std::to_string(pages * page >> 20);
  s += " MiB";
  return s;
}

[[noreturn]] void at_line(const std::filesystem::path& file, std::uint64_t line,
                          const std::string& what) {
  std::string msg = file.string();
  msg += ": line ";
  msg += std::to_string(line);
  msg += ": ";
  msg += what;
  throw input_error(msg);
}

/// The 1-based line of line `local` of chunk k, the body starting at line `first_line`.
template <class Id>
std::uint64_t global_line(const std::vector<parsed_chunk<Id>>& cs, std::size_t k,
                          std::uint64_t local, std::uint64_t first_line) {
  std::uint64_t line = first_line + local;
  for (std::size_t i = 0; i < k; ++i)
    line += cs[i].newlines;
  return line;
}

/// Parses every chunk; false when an id needs 64 bits (parse again with Id = uint64_t).
/// Throws the first error in file order.
template <class Id>
bool parse_all(std::vector<parsed_chunk<Id>>& cs, const text_rules& r, unsigned threads,
               const std::filesystem::path& file, std::uint64_t first_line) {
  parallel_for(cs.size(), threads, [&](std::size_t k) { parse_chunk(cs[k], r); });
  for (std::size_t k = 0; k < cs.size(); ++k) {
    if (cs[k].too_wide) return false;
    if (cs[k].failed) at_line(file, global_line(cs, k, cs[k].error_line, first_line), cs[k].error);
  }
  int fields = 0;
  for (std::size_t k = 0; k < cs.size(); ++k) {
    if (cs[k].fields == 0) continue;
    if (fields == 0) fields = cs[k].fields;
    if (cs[k].fields != fields) {
      at_line(file, global_line(cs, k, cs[k].first_data_line, first_line),
              std::to_string(cs[k].fields) + " fields where earlier lines have " +
                  std::to_string(fields));
    }
  }
  return true;
}

template <class Id>
csr_graph build_from(std::vector<parsed_chunk<Id>>& cs, std::uint64_t vertex_count,
                     const edge_options& o) {
  bool weighted = false;
  for (const auto& c : cs)
    weighted = weighted || c.fields == 3;
  return build_csr<Id>(chunks_source<Id>{cs, weighted}, vertex_count, weighted, o);
}

template <class Id>
csr_graph edge_list_as(const mapped_file& m, const std::filesystem::path& file,
                       const edge_options& o, bool& too_wide) {
  const unsigned threads = resolve_threads(o.threads);
  auto cs = cut<Id>(m.data(), m.data() + m.size(), threads);
  text_rules r;
  r.kind = text_kind::el;
  r.id_min = 0;
  r.id_max = max_text_vertices - 1;
  r.id_range = "0.." + std::to_string(r.id_max) + " (the loader's limit of 2^36 vertices)";
  if (!parse_all(cs, r, threads, file, 1)) {
    too_wide = true;
    return {};
  }
  std::uint64_t vertex_count = 0;
  for (const auto& c : cs) {
    if (c.data_lines) vertex_count = std::max(vertex_count, c.max_id + 1);
  }
  if (const std::string why = too_many_vertices(vertex_count); !why.empty()) {
    throw input_error(file.string() + ": the largest vertex id " +
                      std::to_string(vertex_count - 1) + " makes " + why);
  }
  return build_from(cs, vertex_count, o);
}

struct mtx_header {
  bool pattern = false;
  bool symmetric = false;
  std::uint64_t rows = 0;
  std::uint64_t entries = 0;
  std::uint64_t size_line = 0;
  std::uint64_t body_line = 0;  ///< the line number of the body's first byte
  std::size_t body = 0;         ///< byte offset of the body
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && blank(line[i]))
      ++i;
    const std::size_t j = i;
    while (i < line.size() && !blank(line[i]))
      ++i;
    if (i > j) out.push_back(line.substr(j, i - j));
  }
  return out;
}

mtx_header read_mtx_header(const mapped_file& m, const std::filesystem::path& file) {
  const std::string_view text(m.data(), m.size());
  mtx_header h;
  std::size_t at = 0;
  std::uint64_t line = 0;
  auto next_line = [&]() -> std::string_view {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view s = text.substr(at, end - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line;
    return s;
  };
  if (text.empty()) at_line(file, 1, "empty file (expected the %%MatrixMarket banner)");
  const auto banner = words(next_line());
  if (banner.empty() || banner[0] != "%%MatrixMarket") {
    at_line(file, 1, "not a Matrix Market file (the first line must start with %%MatrixMarket)");
  }
  if (banner.size() != 5) {
    at_line(file, 1, "the banner must be '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
  }
  if (lower(banner[1]) != "matrix")
    at_line(file, 1, "object '" + std::string(banner[1]) + "' is not 'matrix'");
  if (lower(banner[2]) != "coordinate") {
    at_line(file, 1,
            "format '" + std::string(banner[2]) +
                "' is not supported (only 'coordinate': a dense 'array' is no graph)");
  }
  const std::string field = lower(banner[3]);
  if (field == "pattern") {
    h.pattern = true;
  } else if (field != "real" && field != "integer") {
    at_line(file, 1,
            "field '" + std::string(banner[3]) + "' is not supported (pattern, integer or real)");
  }
  const std::string sym = lower(banner[4]);
  if (sym == "symmetric") {
    h.symmetric = true;
  } else if (sym != "general") {
    at_line(file, 1,
            "symmetry '" + std::string(banner[4]) + "' is not supported (general or symmetric)");
  }
  for (;;) {
    if (at >= text.size()) at_line(file, line + 1, "the file ends before the size line");
    const std::string_view s = next_line();
    const auto w = words(s);
    if (w.empty() || w[0].front() == '%') continue;
    if (w.size() != 3) at_line(file, line, "the size line must be 'ROWS COLUMNS ENTRIES'");
    std::uint64_t v[3];
    for (int k = 0; k < 3; ++k) {
      const auto [ptr, ec] = std::from_chars(w[k].data(), w[k].data() + w[k].size(), v[k]);
      if (ec != std::errc{} || ptr != w[k].data() + w[k].size()) {
        at_line(file, line,
                "size field " + std::to_string(k + 1) + " is not a non-negative integer: '" +
                    std::string(w[k]) + "'");
      }
    }
    if (v[0] != v[1]) {
      at_line(file, line,
              "the matrix is not square (" + std::to_string(v[0]) + " rows, " +
                  std::to_string(v[1]) + " columns): not a graph's adjacency matrix");
    }
    if (v[0] > max_text_vertices) {
      at_line(file, line,
              std::to_string(v[0]) + " rows exceed the loader's limit of 2^36 vertices");
    }
    if (const std::string why = too_many_vertices(v[0]); !why.empty()) at_line(file, line, why);
    h.rows = v[0];
    h.entries = v[2];
    h.size_line = line;
    break;
  }
  h.body = at;
  h.body_line = line + 1;
  return h;
}

/// The chunk-local line of data line `k` (0-based) of chunk c.
template <class Id>
std::uint64_t data_line_at(const parsed_chunk<Id>& c, std::uint64_t k) {
  const char* p = c.begin;
  std::uint64_t line = 0, seen = 0;
  while (p < c.end) {
    const char* eol =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(c.end - p)));
    if (!eol) eol = c.end;
    const char* q = p;
    while (q < eol && blank(*q))
      ++q;
    if (q < eol && *q != '%') {
      if (seen == k) return line;
      ++seen;
    }
    ++line;
    p = eol + 1;
  }
  return line;
}

template <class Id>
csr_graph matrix_market_as(const mapped_file& m, const mtx_header& h,
                           const std::filesystem::path& file, const edge_options& o) {
  const unsigned threads = resolve_threads(o.threads);
  auto cs = cut<Id>(m.data() + h.body, m.data() + m.size(), threads);
  text_rules r;
  r.kind = text_kind::mtx;
  r.fields = h.pattern ? 2 : 3;
  r.id_min = 1;
  r.id_max = h.rows;
  r.id_range = "1.." + std::to_string(h.rows);
  parse_all(cs, r, threads, file, h.body_line);
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < cs.size(); ++k) {
    if (total + cs[k].data_lines > h.entries) {
      at_line(file, global_line(cs, k, data_line_at(cs[k], h.entries - total), h.body_line),
              "more entries than the " + std::to_string(h.entries) + " the size line (line " +
                  std::to_string(h.size_line) + ") states");
    }
    total += cs[k].data_lines;
  }
  if (total < h.entries) {
    std::uint64_t last = h.body_line;  // the last line: a final line end starts no line
    for (const auto& c : cs)
      last += c.newlines;
    if (last > h.body_line && m.data()[m.size() - 1] == '\n') --last;
    at_line(file, last,
            "the file ends after " + std::to_string(total) + " entries; the size line (line " +
                std::to_string(h.size_line) + ") states " + std::to_string(h.entries));
  }
  edge_options eo = o;
  eo.symmetrize = o.symmetrize || h.symmetric;
  csr_graph g = build_from(cs, h.rows, eo);
  g.id_base = 1;
  return g;
}

}  // namespace

csr_graph load_edge_list(const std::filesystem::path& file, const edge_options& o) {
  const mapped_file m(file);
  bool too_wide = false;
  csr_graph g = edge_list_as<std::uint32_t>(m, file, o, too_wide);
  if (!too_wide) return g;
  return edge_list_as<std::uint64_t>(m, file, o, too_wide);
}

csr_graph load_matrix_market(const std::filesystem::path& file, const edge_options& o) {
  const mapped_file m(file);
  const mtx_header h = read_mtx_header(m, file);
  if (h.rows <= (std::uint64_t{1} << 32)) return matrix_market_as<std::uint32_t>(m, h, file, o);
  return matrix_market_as<std::uint64_t>(m, h, file, o);
}

}  // namespace bam::graph::detail
