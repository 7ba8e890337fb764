// What the storage contexts keep of their data (bam/storage/dataset.hpp).
#include "bam/storage/dataset.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "bam/cache/cache_stats.hpp"
#include "bam/config/config_io.hpp"
#include "bam/nvme/names.hpp"
#include "bam/storage/checksum.hpp"
#include "bam/storage/storage_context.hpp"

namespace bam {

void check_cache_ssds(const run_config& c) {
  if (c.storage.ssd_count > cache_max_ssds) {
    throw config_error("storage.ssd_count",
                       fmt::format("{} is above the {} SSDs a cache spans, allowed [1, {}]",
                                   c.storage.ssd_count, cache_max_ssds, cache_max_ssds));
  }
}

void add_cache_errors(const cache_stats& s, run_result& r) {
  r.errors += s.io_errors;
  r.timeouts += s.timeouts;
  for (const auto& [code, n] : s.errors_by_code) {
    const nvme::status st{static_cast<std::uint8_t>(code >> 8), static_cast<std::uint8_t>(code)};
    const std::string name = code == cache_stats::other_status ? std::string("Unrecorded status")
                                                               : std::string(nvme::status_name(st));
    r.errors_by_status[name] += n;
  }
}

nlohmann::json write_result::to_json() const {
  return {{"region", region},
          {"bytes", bytes},
          {"commands", commands},
          {"route", route},
          {"seconds", seconds}};
}

dataset::dataset(const dataset_geometry& g, std::uint64_t capacity_bytes, const layout_options& o)
    : geometry_(g),
      capacity_(capacity_bytes),
      options_(o),
      table_(o.manifest ? manifest_bytes : 0) {}

region dataset::add_region(std::string name, std::uint64_t bytes) {
  region_table next = table_;
  const region r = next.add(std::move(name), bytes);
  if (r.end() > capacity_) {
    throw std::invalid_argument(
        fmt::format("region \"{}\" of {} B would end at byte {} of the dataset, past the {} B "
                    "the {} SSD(s) hold (storage.media.size_bytes, storage.ssd_count)",
                    r.name, r.bytes, r.end(), capacity_, geometry_.ssds));
  }
  table_ = std::move(next);
  return r;
}

void dataset::adopt(region_table t) {
  if (t.end() > capacity_) {
    throw std::runtime_error(
        fmt::format("manifest: its regions end at byte {} of the dataset, past the {} B the {} "
                    "SSD(s) hold (storage.media.size_bytes)",
                    t.end(), capacity_, geometry_.ssds));
  }
  table_ = std::move(t);
}

std::uint64_t dataset::lines(std::uint32_t line_bytes) const {
  const std::uint64_t end = table_.regions().empty() ? capacity_ : table_.end();
  return (end + line_bytes - 1) / line_bytes;
}

cache_config dataset::cache_config_of(const run_config& c) const {
  cache_config cc;
  cc.line_bytes = static_cast<std::uint32_t>(c.cache.line_size);
  cc.slots = c.cache.capacity / c.cache.line_size;
  cc.lines = lines(cc.line_bytes);
  cc.io_timeout_ns = command_timeout_ns(c);  // queues.timeout_ms
  cc.on_error = c.cache.on_error;
  return cc;
}

void dataset::uncovered(const region& r) {
  throw std::invalid_argument(
      fmt::format("region \"{}\" (bytes {}..{} of the dataset) is not covered by the cache's lines",
                  r.name, r.offset, r.end()));
}

void dataset::too_many(const region& r, std::uint64_t elements, std::size_t size) {
  throw std::out_of_range(fmt::format("region \"{}\" of {} B holds {} elements of {} B, not {}",
                                      r.name, r.bytes, r.bytes / size, size, elements));
}

nlohmann::json dataset::to_json() const {
  nlohmann::json regions = nlohmann::json::array();
  for (const region& r : table_.regions()) {
    regions.push_back({{"name", r.name},
                       {"offset", r.offset},
                       {"bytes", r.bytes},
                       {"written", r.written},
                       {"written_bytes", r.written_bytes},
                       {"checksum_xxh64", checksum_hex(r.checksum)}});
  }
  return {{"ssds", geometry_.ssds},
          {"lba_bytes", geometry_.lba_bytes},
          {"stripe_bytes", stripe_bytes},
          {"region_alignment", region_alignment},
          {"capacity_bytes", capacity_},
          {"manifest", options_.manifest},
          {"regions", regions}};
}

}  // namespace bam
