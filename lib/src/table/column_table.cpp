// Column tables on disk: the manifest's JSON form, reading it back with the checks a reader
// needs, checksums, and read-only mappings of the column files.
#include "bam/table/column_table.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <vector>

#include "bam/storage/checksum.hpp"

namespace bam::table {

namespace {

/// A checksum as to_json writes it (checksum_hex), nothing else.
template <class Bad>
std::uint64_t parse_checksum(const std::string& text, const std::string& column, const Bad& bad) {
  const std::optional<std::uint64_t> v = parse_checksum_hex(text);
  if (!v) {
    throw bad(
        fmt::format("column {}: checksum_xxh64 \"{}\" is not an XXH64 checksum, allowed "
                    "16 hex digits (0-9, a-f) as bam-data writes them",
                    column, text));
  }
  return *v;
}

}  // namespace

const column_info* table_manifest::find(std::string_view name) const {
  for (const column_info& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

nlohmann::json table_manifest::to_json() const {
  nlohmann::json cols = nlohmann::json::array();
  for (const column_info& c : columns) {
    cols.push_back({{"name", c.name},
                    {"type", c.type},
                    {"file", c.file},
                    {"checksum_xxh64", checksum_hex(c.checksum)}});
  }
  return {{"format", format_name}, {"rows", rows}, {"columns", cols}, {"source", source}};
}

table_manifest table_manifest::from_json(const nlohmann::json& j, const std::string& where) {
  auto bad = [&](const std::string& what) -> table_error {
    return table_error(fmt::format("{}: {}", where, what));
  };
  if (!j.is_object() || j.value("format", "") != format_name)
    throw bad(fmt::format("not a column table (\"format\" is not \"{}\")", format_name));
  table_manifest m;
  if (!j.contains("rows") || !j["rows"].is_number_unsigned()) throw bad("\"rows\" missing");
  m.rows = j["rows"].get<std::uint64_t>();
  if (!j.contains("columns") || !j["columns"].is_array()) throw bad("\"columns\" missing");
  for (const nlohmann::json& c : j["columns"]) {
    column_info ci;
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !c.contains("file") ||
        !c["file"].is_string() || !c.contains("checksum_xxh64") ||
        !c["checksum_xxh64"].is_string()) {
      throw bad("a column lacks name, file or checksum_xxh64");
    }
    ci.name = c["name"].get<std::string>();
    ci.file = c["file"].get<std::string>();
    ci.type = c.value("type", "f64");
    if (ci.type != "f64")
      throw bad(fmt::format("column {}: type \"{}\", allowed f64", ci.name, ci.type));
    if (ci.file.find('/') != std::string::npos || ci.file.empty() || ci.file[0] == '.')
      throw bad(fmt::format("column {}: file \"{}\" is not a plain file name", ci.name, ci.file));
    ci.checksum = parse_checksum(c["checksum_xxh64"].get<std::string>(), ci.name, bad);
    m.columns.push_back(std::move(ci));
  }
  if (j.contains("source")) m.source = j["source"];
  return m;
}

table_manifest read_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path p = dir / manifest_name;
  std::ifstream in(p);
  if (!in)
    throw table_error(fmt::format("{}: cannot read (not a column table directory?)", p.string()));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw table_error(fmt::format("{}: not JSON: {}", p.string(), e.what()));
  }
  table_manifest m = table_manifest::from_json(j, p.string());
  for (const column_info& c : m.columns) {
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(dir / c.file, ec);
    if (ec) throw table_error(fmt::format("{}: column {}: {}", p.string(), c.name, ec.message()));
    if (size != m.rows * 8) {
      throw table_error(
          fmt::format("{}: column {}: file {} has {} B, the manifest says {} rows "
                      "({} B)",
                      p.string(), c.name, c.file, size, m.rows, m.rows * 8));
    }
  }
  return m;
}

void verify_checksum(const std::filesystem::path& dir, const column_info& c,
                     const mapped_column& data) {
  const std::uint64_t h = checksum64(data.data(), data.bytes());
  if (h != c.checksum) {
    throw table_error(fmt::format(
        "{}: column {}: checksum {:016x}, the manifest ({}) says {:016x}: the file changed "
        "after the table was written",
        (dir / c.file).string(), c.name, h, manifest_name, c.checksum));
  }
}

void verify_checksums(const std::filesystem::path& dir, const table_manifest& m) {
  for (const column_info& c : m.columns)
    verify_checksum(dir, c, mapped_column(dir, m, c.name));
}

mapped_column::mapped_column(const std::filesystem::path& dir, const table_manifest& m,
                             std::string_view name) {
  const column_info* c = m.find(name);
  if (!c) throw table_error(fmt::format("{}: no column \"{}\"", dir.string(), name));
  rows_ = m.rows;
  if (rows_ == 0) return;
  const std::string path = (dir / c->file).string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw table_error(fmt::format("{}: {}", path, std::strerror(errno)));
  void* p = ::mmap(nullptr, rows_ * 8, PROT_READ, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throw table_error(fmt::format("{}: mmap: {}", path, std::strerror(err)));
  data_ = static_cast<const double*>(p);
  mapped_ = rows_ * 8;
}

mapped_column::~mapped_column() {
  release();
}

mapped_column::mapped_column(mapped_column&& o) noexcept
    : data_(o.data_), rows_(o.rows_), mapped_(o.mapped_) {
  o.data_ = nullptr;
  o.mapped_ = 0;
}

mapped_column& mapped_column::operator=(mapped_column&& o) noexcept {
  if (this != &o) {
    release();
    data_ = o.data_;
    rows_ = o.rows_;
    mapped_ = o.mapped_;
    o.data_ = nullptr;
    o.mapped_ = 0;
  }
  return *this;
}

void mapped_column::release() noexcept {
  if (data_ && mapped_ != 0) ::munmap(const_cast<double*>(data_), mapped_);
  data_ = nullptr;
  mapped_ = 0;
}

}  // namespace bam::table
