// TLC CSV import: the header's columns, chunks cut at record boundaries (quote-aware), chunks
// parsed by threads in waves, and the columns appended in row order.
#include "bam/table/taxi_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include "../detail/mapped_file.hpp"
#include "bam/table/column_table.hpp"
#include "bam/table/table_writer.hpp"
#include "bam/table/taxi_columns.hpp"

namespace bam::taxi {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

using bam::detail::mapped_file;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// One field of a record: its text (quotes removed; `scratch` holds it when "" was unescaped).
struct field_text {
  std::string_view text;
};

/// Parses records from [p, end): the cursor, the line count since the chunk's start.
class record_reader {
 public:
  record_reader(const char* p, const char* end) : p_(p), end_(end) {}

  bool done() const { return p_ >= end_; }
  std::uint64_t line() const { return line_; }  ///< 0-based, relative to the chunk

  /// Skips empty lines; false at the end.
  bool skip_empty() {
    while (p_ < end_) {
      if (*p_ == '\n') {
        ++p_;
        ++line_;
      } else if (*p_ == '\r' && p_ + 1 < end_ && p_[1] == '\n') {
        p_ += 2;
        ++line_;
      } else {
        return true;
      }
    }
    return false;
  }

  /// Reads one record's fields into `out` (the first out.size() of them; the count is
  /// returned). An error message when the record is malformed.
  std::size_t read(std::vector<std::string_view>& out, std::vector<std::string>& scratch,
                   std::string& error) {
    std::size_t n = 0;
    for (;;) {
      std::string_view f;
      if (p_ < end_ && *p_ == '"') {
        const char* s = ++p_;
        bool escaped = false;
        for (;;) {
          const char* q =
              static_cast<const char*>(std::memchr(p_, '"', static_cast<std::size_t>(end_ - p_)));
          if (!q) {
            error = "unterminated quoted field";
            p_ = end_;
            return n;
          }
          line_ += static_cast<std::uint64_t>(std::count(p_, q, '\n'));
          p_ = q + 1;
          if (p_ < end_ && *p_ == '"') {  // "" inside quotes
            escaped = true;
            ++p_;
            continue;
          }
          break;
        }
        f = std::string_view(s, static_cast<std::size_t>(p_ - 1 - s));
        if (escaped && n < scratch.size()) {
          std::string& u = scratch[n];
          u.clear();
          for (std::size_t i = 0; i < f.size(); ++i) {
            u += f[i];
            if (f[i] == '"') ++i;
          }
          f = u;
        }
        if (p_ < end_ && *p_ == '\r' && p_ + 1 < end_ && p_[1] == '\n') ++p_;
        if (p_ < end_ && *p_ != ',' && *p_ != '\n') {
          error = "characters after a closing quote";
          while (p_ < end_ && *p_ != '\n')
            ++p_;
          return n;
        }
      } else {
        const char* s = p_;
        while (p_ < end_ && *p_ != ',' && *p_ != '\n')
          ++p_;
        const char* e = p_;
        if (e > s && e[-1] == '\r' && (p_ == end_ || *p_ == '\n')) --e;
        f = std::string_view(s, static_cast<std::size_t>(e - s));
      }
      if (n < out.size()) out[n] = f;
      ++n;
      if (p_ >= end_) return n;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      ++p_;  // '\n'
      ++line_;
      return n;
    }
  }

  const char* position() const { return p_; }

 private:
  const char* p_;
  const char* end_;
  std::uint64_t line_ = 0;
};

/// Where each kept column is in a file's records.
struct header_map {
  std::size_t fields = 0;
  std::array<std::size_t, column_count> index{};
};

std::string lower(std::string_view s) {
  std::string out;
  for (char ch : s)
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

/// Reads the header record; the offset of the first data byte.
std::size_t read_header(const mapped_file& f, const std::string& name, header_map& h) {
  const char* begin = f.data();
  const char* end = f.data() + f.size();
  if (f.size() >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) begin += 3;  // UTF-8 BOM
  record_reader r(begin, end);
  std::vector<std::string_view> fields(4096);
  std::vector<std::string> scratch(4096);
  std::string error;
  if (f.size() == 0 || r.done()) throw csv_error(name, 1, "empty file: no header row");
  const std::size_t n = r.read(fields, scratch, error);
  if (!error.empty()) throw csv_error(name, 1, "header: " + error);
  if (n > fields.size()) throw csv_error(name, 1, fmt::format("header: {} columns", n));
  h.fields = n;
  std::array<bool, column_count> found{};
  for (std::size_t i = 0; i < n; ++i) {
    const std::string key = lower(trim(fields[i]));
    for (std::size_t c = 0; c < column_count; ++c) {
      const std::string want = c == pickup_time ? pickup_csv_name : column_names[c];
      if (key == want && !found[c]) {
        found[c] = true;
        h.index[c] = i;
      }
    }
  }
  std::string missing;
  for (std::size_t c = 0; c < column_count; ++c) {
    if (found[c]) continue;
    if (!missing.empty()) missing += ", ";
    missing += c == pickup_time ? pickup_csv_name : column_names[c];
  }
  if (!missing.empty()) {
    throw csv_error(name, 1,
                    fmt::format("header: missing column(s) {} (names are matched "
                                "case-insensitively; is this a TLC yellow-taxi trip file?)",
                                missing));
  }
  return static_cast<std::size_t>(r.position() - f.data());
}

/// Chunk boundaries of [from, size): each cut just after a newline outside quotes.
std::vector<std::size_t> chunk_bounds(const mapped_file& f, std::size_t from, std::uint64_t chunk) {
  const char* d = f.data();
  const std::size_t size = f.size();
  std::vector<std::size_t> out{from};
  const bool quotes = std::memchr(d + from, '"', size - from) != nullptr;
  std::size_t at = from;
  bool in_quote = false;
  while (true) {
    const std::size_t target = out.back() + chunk;
    if (target >= size) break;
    std::size_t cut = size;
    if (!quotes) {
      const void* nl = std::memchr(d + target, '\n', size - target);
      cut = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - d) + 1 : size;
    } else {
      for (; at < size; ++at) {
        if (d[at] == '"') {
          in_quote = !in_quote;
        } else if (d[at] == '\n' && !in_quote && at >= target) {
          cut = at + 1;
          ++at;
          break;
        }
      }
    }
    if (cut >= size) break;
    out.push_back(cut);
  }
  out.push_back(size);
  return out;
}

/// What one chunk gave.
struct chunk_result {
  std::array<std::vector<double>, column_count> cols;
  std::uint64_t rows = 0;
  std::uint64_t lines = 0;  ///< newlines in the chunk
  std::uint64_t rejected = 0;
  std::vector<std::uint64_t> rejected_lines;  ///< relative, the first few
  std::array<std::uint64_t, column_count> empty{}, non_numeric{};
  std::optional<std::pair<std::uint64_t, std::string>> error;  ///< relative line, what
};

bool parse_number(std::string_view s, double& out) {
  s = trim(s);
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}

void parse_chunk(const char* p, const char* end, const header_map& h, unsigned keep_lines,
                 chunk_result& out) {
  record_reader r(p, end);
  std::vector<std::string_view> fields(h.fields);
  std::vector<std::string> scratch(h.fields);
  std::string error, why;
  std::array<double, column_count> v{};
  for (auto& c : out.cols)
    c.reserve(static_cast<std::size_t>(end - p) / 64);
  while (r.skip_empty()) {
    const std::uint64_t line = r.line();
    const std::size_t n = r.read(fields, scratch, error);
    if (!error.empty()) {
      out.error = {line, error};
      return;
    }
    if (n != h.fields) {
      out.error = {line, fmt::format("{} fields, the header has {}", n, h.fields)};
      return;
    }
    bool reject = false;
    for (std::size_t c = 0; c < column_count; ++c) {
      const std::string_view s = trim(fields[h.index[c]]);
      bool ok;
      if (c == pickup_time) {
        const datetime_parse t =
            s.empty() ? datetime_parse::not_a_time : parse_datetime(s, v[c], why);
        if (t == datetime_parse::impossible) {
          out.error = {line, fmt::format("{} \"{}\" is no date: {}", pickup_csv_name, s, why)};
          return;
        }
        ok = t == datetime_parse::ok;
      } else {
        ok = parse_number(s, v[c]);
      }
      if (ok) continue;
      v[c] = nan;
      if (required(static_cast<column>(c))) {
        reject = true;
      } else if (s.empty()) {
        ++out.empty[c];
      } else {
        ++out.non_numeric[c];
      }
    }
    if (reject) {
      ++out.rejected;
      if (out.rejected_lines.size() < keep_lines) out.rejected_lines.push_back(line);
      continue;
    }
    for (std::size_t c = 0; c < column_count; ++c)
      out.cols[c].push_back(v[c]);
    ++out.rows;
  }
  out.lines = r.line();
}

/// Days of month `m` (1..12) of year `y` (Gregorian: February has 29 in years divisible by 4,
/// except centuries not divisible by 400).
unsigned days_in_month(unsigned y, unsigned m) {
  constexpr std::array<unsigned, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
  return m == 2 && leap ? 29 : days[m - 1];
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace

csv_error::csv_error(const std::string& f, std::uint64_t l, const std::string& what)
    : input_error(l != 0 ? fmt::format("{}:{}: {}", f, l, what) : fmt::format("{}: {}", f, what)),
      file(f),
      line(l) {}

datetime_parse parse_datetime(std::string_view s, double& out, std::string& why) {
  // YYYY-MM-DD HH:MM:SS, then optionally .fraction (ignored) and Z
  if (!s.empty() && s.back() == 'Z') s.remove_suffix(1);
  if (s.size() > 20 && s[19] == '.') {
    for (std::size_t i = 20; i < s.size(); ++i)
      if (s[i] < '0' || s[i] > '9') return datetime_parse::not_a_time;
    s = s.substr(0, 19);
  }
  if (s.size() != 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':')
    return datetime_parse::not_a_time;
  auto num = [&](std::size_t at, std::size_t len, unsigned& v) {
    const auto [p, ec] = std::from_chars(s.data() + at, s.data() + at + len, v);
    return ec == std::errc() && p == s.data() + at + len;
  };
  unsigned y, mo, d, hh, mm, ss;
  if (!num(0, 4, y) || !num(5, 2, mo) || !num(8, 2, d) || !num(11, 2, hh) || !num(14, 2, mm) ||
      !num(17, 2, ss))
    return datetime_parse::not_a_time;
  if (mo < 1 || mo > 12) {
    why = fmt::format("month {} does not exist", mo);
    return datetime_parse::impossible;
  }
  if (d < 1 || d > days_in_month(y, mo)) {
    why = fmt::format("day {} does not exist: {:04}-{:02} has {} days", d, y, mo,
                      days_in_month(y, mo));
    return datetime_parse::impossible;
  }
  if (hh > 23 || mm > 59 || ss > 60) {
    why = fmt::format("{:02}:{:02}:{:02} is not a time of day", hh, mm, ss);
    return datetime_parse::impossible;
  }
  out = static_cast<double>(days_from_civil(y, mo, d) * 86400 + hh * 3600 + mm * 60 + ss);
  return datetime_parse::ok;
}

nlohmann::json import_csv(const import_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const unsigned threads =
      o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  for (const auto& p : o.csv) {
    if (!std::filesystem::is_regular_file(p)) throw csv_error(p.string(), 0, "not a readable file");
  }
  std::vector<std::string> names(column_names.begin(), column_names.end());
  table::table_writer w(o.out, names);

  std::uint64_t rows = 0, rejected = 0;
  std::vector<std::string> rejected_at;
  std::array<std::uint64_t, column_count> empty{}, non_numeric{};
  nlohmann::json files = nlohmann::json::array();
  for (const auto& path : o.csv) {
    const std::string name = path.string();
    const mapped_file f(path);
    header_map h;
    const std::size_t first = read_header(f, name, h);
    // The header's own line count (a quoted header field could span lines).
    const std::uint64_t header_lines =
        static_cast<std::uint64_t>(std::count(f.data(), f.data() + first, '\n'));
    const std::vector<std::size_t> bounds = chunk_bounds(f, first, o.chunk_bytes);
    const std::size_t chunks = bounds.size() - 1;
    std::uint64_t line = header_lines + 1;  // 1-based line of the next chunk's first byte
    std::uint64_t file_rows = 0, file_rejected = 0;
    for (std::size_t c0 = 0; c0 < chunks; c0 += threads) {
      const std::size_t n = std::min<std::size_t>(threads, chunks - c0);
      std::vector<chunk_result> res(n);
      std::vector<std::thread> pool;
      for (std::size_t k = 0; k < n; ++k) {
        pool.emplace_back([&, k] {
          parse_chunk(f.data() + bounds[c0 + k], f.data() + bounds[c0 + k + 1], h, o.reported_lines,
                      res[k]);
        });
      }
      for (auto& t : pool)
        t.join();
      pool.clear();
      for (std::size_t k = 0; k < n; ++k) {
        chunk_result& r = res[k];
        if (r.error) throw csv_error(name, line + r.error->first, r.error->second);
        for (std::uint64_t l : r.rejected_lines) {
          if (rejected_at.size() < o.reported_lines)
            rejected_at.push_back(fmt::format("{}:{}", name, line + l));
        }
        rejected += r.rejected;
        file_rejected += r.rejected;
        for (std::size_t c = 0; c < column_count; ++c) {
          empty[c] += r.empty[c];
          non_numeric[c] += r.non_numeric[c];
        }
        line += r.lines;
      }
      std::exception_ptr failed;
      std::mutex mu;
      for (std::size_t c = 0; c < column_count; ++c) {
        pool.emplace_back([&, c] {
          try {
            for (std::size_t k = 0; k < n; ++k)
              w.append(c, res[k].cols[c].data(), res[k].cols[c].size());
          } catch (...) {
            std::lock_guard lock(mu);
            if (!failed) failed = std::current_exception();
          }
        });
      }
      for (auto& t : pool)
        t.join();
      if (failed) std::rethrow_exception(failed);
      for (const chunk_result& r : res)
        file_rows += r.rows;
    }
    rows += file_rows;
    files.push_back({{"path", name},
                     {"bytes", f.size()},
                     {"rows", file_rows},
                     {"rejected_rows", file_rejected}});
  }
  nlohmann::json empties = nlohmann::json::object(), nonnum = nlohmann::json::object();
  for (std::size_t c = 0; c < column_count; ++c) {
    if (required(static_cast<column>(c))) continue;
    empties[column_names[c]] = empty[c];
    nonnum[column_names[c]] = non_numeric[c];
  }
  nlohmann::json source = {
      {"importer", "bam-data taxi-import"},
      {"files", files},
      {"rows", rows},
      {"rejected_rows", rejected},
      {"rejected_lines", rejected_at},
      {"rejected_because",
       "trip_distance, total_amount, extra, improvement_surcharge, tolls_amount or mta_tax empty "
       "or not a number"},
      {"empty_as_nan", empties},
      {"non_numeric_as_nan", nonnum},
      {"pickup_time",
       "tpep_pickup_datetime as seconds since 1970-01-01, read as UTC (TLC "
       "records New York local time)"}};
  w.commit(source);
  source["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  source["threads"] = threads;
  return source;
}

}  // namespace bam::taxi
