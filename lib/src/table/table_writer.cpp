// The atomic writer of column tables: a temporary sibling directory, streamed and checksummed
// column files, the manifest, fsync, then one rename.
#include "bam/table/table_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "bam/storage/checksum.hpp"
#include "bam/table/column_table.hpp"

namespace bam::table {
namespace fs = std::filesystem;

namespace {

/// A fresh name beside `out`: .<name>.tmp-<random>.
fs::path temp_beside(const fs::path& out) {
  std::random_device rd;
  const fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  return parent / fmt::format(".{}.tmp-{:08x}", out.filename().string(), rd());
}

void write_all(int fd, const void* data, std::size_t bytes, const fs::path& path) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw table_error(fmt::format("{}: write: {}", path.string(), std::strerror(errno)));
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void sync_path(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

/// Whether `dir` may be replaced: a column table (its manifest says so) or an empty directory.
bool replaceable(const fs::path& dir) {
  if (!fs::is_directory(dir)) return false;
  if (fs::is_empty(dir)) return true;
  try {
    read_manifest(dir);
    return true;
  } catch (const table_error&) {
    return false;
  }
}

}  // namespace

bool writable_destination(const fs::path& out) {
  return !fs::exists(out) || replaceable(out);
}

struct table_writer::state {
  fs::path out;
  fs::path temp;
  struct column {
    std::string name;
    std::string file;
    int fd = -1;
    std::uint64_t rows = 0;
    std::unique_ptr<checksum64_stream> hash;
  };
  std::vector<column> cols;
  bool committed = false;

  void close_files() {
    for (column& c : cols) {
      if (c.fd >= 0) ::close(c.fd);
      c.fd = -1;
    }
  }
  void discard() noexcept {
    close_files();
    std::error_code ec;
    fs::remove_all(temp, ec);
  }
};

table_writer::table_writer(fs::path out, std::vector<std::string> columns)
    : s_(std::make_unique<state>()) {
  s_->out = std::move(out);
  if (!writable_destination(s_->out)) {
    throw table_error(
        fmt::format("{}: exists and is not a column table or an empty directory "
                    "(refusing to replace it)",
                    s_->out.string()));
  }
  s_->temp = temp_beside(s_->out);
  std::error_code ec;
  if (!fs::create_directory(s_->temp, ec) || ec) {
    throw table_error(
        fmt::format("{}: cannot create: {}", s_->temp.string(), ec ? ec.message() : "exists"));
  }
  try {
    for (std::string& name : columns) {
      state::column c;
      c.file = name + ".f64";
      c.name = std::move(name);
      const fs::path p = s_->temp / c.file;
      c.fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (c.fd < 0) throw table_error(fmt::format("{}: {}", p.string(), std::strerror(errno)));
      c.hash = std::make_unique<checksum64_stream>();
      s_->cols.push_back(std::move(c));
    }
  } catch (...) {
    s_->discard();
    throw;
  }
}

table_writer::~table_writer() {
  if (s_ && !s_->committed) s_->discard();
}

std::size_t table_writer::columns() const {
  return s_->cols.size();
}

const fs::path& table_writer::temp_dir() const {
  return s_->temp;
}

void table_writer::append(std::size_t c, const double* values, std::size_t n) {
  state::column& col = s_->cols.at(c);
  write_all(col.fd, values, n * 8, s_->temp / col.file);
  col.hash->update(values, n * 8);
  col.rows += n;
}

std::uint64_t table_writer::rows(std::size_t c) const {
  return s_->cols.at(c).rows;
}

void table_writer::commit(nlohmann::json source) {
  try {
    table_manifest m;
    m.rows = s_->cols.empty() ? 0 : s_->cols.front().rows;
    m.source = std::move(source);
    for (state::column& c : s_->cols) {
      if (c.rows != m.rows) {
        throw table_error(fmt::format("column {} has {} rows, column {} {}", c.name, c.rows,
                                      s_->cols.front().name, m.rows));
      }
      if (::fsync(c.fd) != 0) {
        throw table_error(
            fmt::format("{}: fsync: {}", (s_->temp / c.file).string(), std::strerror(errno)));
      }
      m.columns.push_back(column_info{c.name, "f64", c.file, c.hash->digest()});
    }
    s_->close_files();
    const fs::path mp = s_->temp / manifest_name;
    {
      const int fd = ::open(mp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0) throw table_error(fmt::format("{}: {}", mp.string(), std::strerror(errno)));
      const std::string text = m.to_json().dump(2) + "\n";
      try {
        write_all(fd, text.data(), text.size(), mp);
      } catch (...) {
        ::close(fd);
        throw;
      }
      ::fsync(fd);
      ::close(fd);
    }
    sync_path(s_->temp);
    // Into place: an earlier table (or empty directory) moves aside first and goes after.
    fs::path old;
    if (fs::exists(s_->out)) {
      if (!replaceable(s_->out)) {
        throw table_error(
            fmt::format("{}: appeared meanwhile and is not a column table", s_->out.string()));
      }
      old = temp_beside(s_->out);
      fs::rename(s_->out, old);
    }
    fs::rename(s_->temp, s_->out);
    s_->committed = true;
    if (!old.empty()) fs::remove_all(old);
    sync_path(s_->out.parent_path().empty() ? fs::path(".") : s_->out.parent_path());
  } catch (const fs::filesystem_error& e) {
    s_->discard();
    throw table_error(e.what());
  } catch (...) {
    s_->discard();
    throw;
  }
}

}  // namespace bam::table
