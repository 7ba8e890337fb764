// Named regions of a dataset and their manifest (bam/storage/regions.hpp, manifest.hpp).
#include "bam/storage/regions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "bam/storage/checksum.hpp"
#include "bam/storage/manifest.hpp"

namespace bam {
namespace {

std::uint64_t align_up(std::uint64_t n) {
  return (n + region_alignment - 1) / region_alignment * region_alignment;
}

/// The checksum a manifest's header records: of the header (checksum field zero) and entries.
std::uint64_t manifest_checksum(manifest_header h, const std::byte* entries, std::size_t bytes) {
  h.checksum = 0;
  checksum64_stream s;
  s.update(&h, sizeof h);
  s.update(entries, bytes);
  return s.digest();
}

}  // namespace

region_table::region_table(std::uint64_t first) : first_(first) {}

std::uint64_t region_table::end() const {
  return regions_.empty() ? first_ : regions_.back().end();
}

region region_table::add(std::string name, std::uint64_t bytes) {
  if (name.empty()) throw std::invalid_argument("region: the name is empty");
  if (name.size() > region_name_max) {
    throw std::invalid_argument(
        fmt::format("region \"{}\": names have at most {} characters", name, region_name_max));
  }
  if (name.find('\0') != std::string::npos)
    throw std::invalid_argument("region: a name holds a NUL character");
  if (find(name) != nullptr)
    throw std::invalid_argument(fmt::format("region \"{}\" exists already", name));
  if (bytes == 0) throw std::invalid_argument(fmt::format("region \"{}\": 0 bytes", name));
  region r;
  r.name = std::move(name);
  r.offset = align_up(end());
  r.bytes = bytes;
  regions_.push_back(r);
  return r;
}

const region* region_table::find(std::string_view name) const {
  for (const region& r : regions_)
    if (r.name == name) return &r;
  return nullptr;
}

const region& region_table::at(std::string_view name) const {
  if (const region* r = find(name)) return *r;
  std::string have;
  for (const region& r : regions_)
    have += (have.empty() ? "" : ", ") + r.name;
  throw std::out_of_range(fmt::format("no region \"{}\" in the dataset (regions: {})", name,
                                      have.empty() ? "none" : have));
}

void region_table::mark_written(std::string_view name, std::uint64_t bytes,
                                std::uint64_t checksum) {
  region& r = const_cast<region&>(at(name));
  r.written_bytes = bytes;
  r.checksum = checksum;
  r.written = true;
}

void region_table::mark_unwritten(std::string_view name) {
  region& r = const_cast<region&>(at(name));
  r.written_bytes = 0;
  r.checksum = 0;
  r.written = false;
}

std::vector<std::byte> region_table::encode(const dataset_geometry& g) const {
  const std::size_t bytes = sizeof(manifest_header) + regions_.size() * sizeof(manifest_entry);
  if (bytes > manifest_bytes) {
    throw std::length_error(fmt::format("{} regions do not fit in a manifest of {} bytes",
                                        regions_.size(), manifest_bytes));
  }
  std::vector<std::byte> out(bytes);
  std::byte* entries = out.data() + sizeof(manifest_header);
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    const region& r = regions_[i];
    manifest_entry e{};
    std::memcpy(e.name.data(), r.name.data(), r.name.size());
    e.offset = r.offset;
    e.bytes = r.bytes;
    e.written_bytes = r.written ? r.written_bytes : 0;
    e.checksum = r.written ? r.checksum : 0;
    e.flags = r.written ? manifest_written : 0;
    std::memcpy(entries + i * sizeof e, &e, sizeof e);
  }
  manifest_header h{};
  h.magic = manifest_magic;
  h.version = manifest_version;
  h.header_bytes = sizeof(manifest_header);
  h.entry_bytes = sizeof(manifest_entry);
  h.regions = static_cast<std::uint32_t>(regions_.size());
  h.stripe_bytes = static_cast<std::uint32_t>(stripe_bytes);
  h.region_alignment = static_cast<std::uint32_t>(region_alignment);
  h.ssds = g.ssds;
  h.lba_bytes = g.lba_bytes;
  h.checksum = manifest_checksum(h, entries, bytes - sizeof h);
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

bool region_table::has_manifest(std::span<const std::byte> bytes) {
  return bytes.size() >= manifest_magic.size() &&
         std::memcmp(bytes.data(), manifest_magic.data(), manifest_magic.size()) == 0;
}

region_table region_table::decode(std::span<const std::byte> bytes,
                                  const dataset_geometry& expect) {
  if (!has_manifest(bytes) || bytes.size() < sizeof(manifest_header))
    throw std::runtime_error("manifest: not a bamkit dataset manifest (no BAMKITDS magic)");
  manifest_header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (h.version != manifest_version || h.header_bytes != sizeof h ||
      h.entry_bytes != sizeof(manifest_entry)) {
    throw std::runtime_error(
        fmt::format("manifest: version {} (header {} B, entries {} B), this build reads version {}",
                    h.version, h.header_bytes, h.entry_bytes, manifest_version));
  }
  const std::size_t table = std::size_t{h.regions} * sizeof(manifest_entry);
  if (sizeof h + table > bytes.size() || sizeof h + table > manifest_bytes)
    throw std::runtime_error(fmt::format("manifest: {} regions do not fit", h.regions));
  const std::byte* entries = bytes.data() + sizeof h;
  if (manifest_checksum(h, entries, table) != h.checksum)
    throw std::runtime_error("manifest: checksum mismatch (damaged)");
  if (h.stripe_bytes != stripe_bytes || h.region_alignment != region_alignment) {
    throw std::runtime_error(fmt::format(
        "manifest: laid out with a {} B stripe unit and {} B region alignment, this build uses "
        "{} and {}",
        h.stripe_bytes, h.region_alignment, stripe_bytes, region_alignment));
  }
  if (h.ssds != expect.ssds || h.lba_bytes != expect.lba_bytes) {
    throw std::runtime_error(fmt::format(
        "manifest: the data is striped over {} SSD(s) of {} B LBAs, these are {} SSD(s) of {} B "
        "LBAs (storage.ssd_count, storage.lba_size)",
        h.ssds, h.lba_bytes, expect.ssds, expect.lba_bytes));
  }
  region_table t(manifest_bytes);
  for (std::uint32_t i = 0; i < h.regions; ++i) {
    manifest_entry e;
    std::memcpy(&e, entries + std::size_t{i} * sizeof e, sizeof e);
    const auto len =
        static_cast<std::size_t>(std::find(e.name.begin(), e.name.end(), '\0') - e.name.begin());
    if (len == 0 || len == e.name.size())
      throw std::runtime_error(fmt::format("manifest: entry {} has no valid name", i));
    std::string name(e.name.data(), len);
    const auto bad = [&](const char* why) {
      throw std::runtime_error(fmt::format("manifest: region \"{}\" at {} ({} B, {} written) {}",
                                           name, e.offset, e.bytes, e.written_bytes, why));
    };
    if (e.offset % region_alignment != 0) bad("is misaligned");
    if (e.offset < t.end()) bad("overlaps the one before");
    if (t.find(name) != nullptr) bad("repeats a name");
    if (e.bytes == 0 || e.bytes > ~std::uint64_t{0} - e.offset || e.written_bytes > e.bytes)
      bad("is empty, or ends or was written past its end");
    if ((e.flags & ~manifest_written) != 0 || e.reserved != 0) {
      throw std::runtime_error(fmt::format(
          "manifest: region \"{}\" carries flags {:#x} / reserved {:#x} this version does not know",
          name, e.flags, e.reserved));
    }
    region r;
    r.name = std::move(name);
    r.offset = e.offset;
    r.bytes = e.bytes;
    r.written = (e.flags & manifest_written) != 0;
    r.written_bytes = e.written_bytes;
    r.checksum = e.checksum;
    t.regions_.push_back(std::move(r));
  }
  return t;
}

}  // namespace bam
