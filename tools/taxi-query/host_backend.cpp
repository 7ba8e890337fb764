// taxi-query on CPU threads: one host storage context holds the query columns; bam scans them
// through a fresh (cold) cache, tiled reads them a row group at a time (double-buffered: the
// next group is read while the threads reduce this one). Both reduce with taxi::sum_block, so
// their results are bit-identical.
#include "host_backend.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "bam/storage/host_context.hpp"
#include "taxi_backend.hpp"
#include "taxi_run.hpp"
#include "tiled_reader.hpp"

namespace bam::tools {
namespace {

/// Runs f(b) for blocks b in [first, last) on `threads` threads (thread w: first + w, + threads).
template <class F>
void for_blocks(std::uint64_t first, std::uint64_t last, unsigned threads, F&& f) {
  std::vector<std::thread> pool;
  const unsigned n = static_cast<unsigned>(std::clamp<std::uint64_t>(last - first, 1, threads));
  for (unsigned w = 0; w < n; ++w) {
    pool.emplace_back([&, w] {
      for (std::uint64_t b = first + w; b < last; b += n)
        f(b);
    });
  }
  for (auto& t : pool)
    t.join();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

unsigned threads_of(const run_config& c) {
  return std::min(c.workload.threads, taxi_host_max_threads);
}

taxi_outcome run_bam(host_context& ctx, const run_config& c, const taxi_table& t) {
  ctx.build_cache();  // a fresh, cold cache
  using arr = host_context::array_type<double>;
  std::array<arr, taxi::query_count> a{};
  for (int k = 0; k < taxi::query_count; ++k)
    a[k] = ctx.array<double>(taxi_region(k));
  const taxi::query_set q = taxi::parse_queries(c.taxi.queries);
  const int deepest = q.deepest();
  const double d = c.taxi.min_distance;
  const std::uint64_t rows = t.rows();
  std::vector<taxi::block_sums> blocks(taxi::blocks_of(rows));
  auto dist = [&](std::uint64_t i) { return a[0][i]; };
  auto col = [&](int k, std::uint64_t i) { return a[k][i]; };
  ctx.cache().reset_stats();
  const auto t0 = std::chrono::steady_clock::now();
  for_blocks(0, blocks.size(), threads_of(c),
             [&](std::uint64_t b) { blocks[b] = taxi::sum_block(b, rows, d, deepest, dist, col); });
  taxi_outcome o;
  o.seconds = seconds_since(t0);
  o.impl = "bam";
  o.results = results_of(blocks);
  const cache_stats s = ctx.cache().stats();
  for (std::uint64_t b : s.bytes_read)
    o.bytes_moved += b;
  o.commands = s.reads;
  add_cache_failures(s, o);
  o.details["cache"] = cache_json(s, c.cache.line_size);
  o.details["threads"] = threads_of(c);
  return o;
}

taxi_outcome run_tiled(tiled_reader& src, const run_config& c, const taxi_table& t) {
  const taxi::query_set q = taxi::parse_queries(c.taxi.queries);
  const int deepest = q.deepest();
  const double d = c.taxi.min_distance;
  const std::uint64_t rows = t.rows();
  const std::uint64_t group = c.taxi.row_group_rows;
  const std::uint64_t groups = (rows + group - 1) / group;
  std::vector<taxi::block_sums> blocks(taxi::blocks_of(rows));
  std::array<std::vector<double>, 2 * taxi::query_count> buf;
  std::array<std::array<double*, taxi::query_count>, 2> dst{};
  for (int h = 0; h < 2; ++h) {
    for (int k = 0; k <= deepest; ++k) {
      buf[h * taxi::query_count + k].resize(std::min(group, rows));
      dst[h][k] = buf[h * taxi::query_count + k].data();
    }
  }
  auto read_group = [&](std::uint64_t g) {
    const std::uint64_t first = g * group;
    return src.read(first, std::min(group, rows - first), deepest, dst[g % 2].data());
  };
  taxi_outcome o;
  o.impl = src.label();
  const auto t0 = std::chrono::steady_clock::now();
  std::future<tiled_io> next;
  if (groups > 0) next = std::async(std::launch::async, read_group, 0);
  for (std::uint64_t g = 0; g < groups; ++g) {
    const tiled_io io = next.get();
    o.bytes_moved += io.bytes;
    o.commands += io.commands;
    if (g + 1 < groups) next = std::async(std::launch::async, read_group, g + 1);
    const std::uint64_t first = g * group;
    const std::array<double*, taxi::query_count>& cols = dst[g % 2];
    auto dist = [&](std::uint64_t i) { return cols[0][i - first]; };
    auto col = [&](int k, std::uint64_t i) { return cols[static_cast<std::size_t>(k)][i - first]; };
    const std::uint64_t b0 = first / taxi::block_rows;
    const std::uint64_t b1 =
        std::min<std::uint64_t>(blocks.size(), (first + group) / taxi::block_rows);
    for_blocks(b0, b1, threads_of(c), [&](std::uint64_t b) {
      blocks[b] = taxi::sum_block(b, rows, d, deepest, dist, col);
    });
  }
  o.seconds = seconds_since(t0);
  o.results = results_of(blocks);
  o.details["row_group_rows"] = group;
  o.details["row_groups"] = groups;
  o.details["pipeline"] =
      "double-buffered: row group g+1 is read while CPU threads reduce row group g";
  o.details["threads"] = threads_of(c);
  return o;
}

class taxi_host_backend final : public taxi_backend {
 public:
  taxi_host_backend() : taxi_backend(taxi_host_max_threads) {}

 private:
  void open_storage(const run_config& c) override {
    ctx_.reset();
    ctx_ = std::make_unique<host_context>(c);
    place_seconds_ += place_taxi_columns(*ctx_, table());
  }
  taxi_outcome run_impl(taxi_impl impl, const run_config& c) override {
    if (impl == taxi_impl::bam) return run_bam(*ctx_, c, table());
    const std::unique_ptr<tiled_reader> src = c.taxi.tiled_source == taxi_tiled_source::ssd
                                                  ? ssd_tiled_reader(*ctx_, threads_of(c))
                                                  : file_tiled_reader(table());
    return run_tiled(*src, c, table());
  }
  void describe(nlohmann::json& st) const override {
    st["storage"] = ctx_->describe();
    st["taxi"]["real_hardware"] =
        "host backend: CPU threads stand in for GPU threads (bam) and for the GPU kernel "
        "(tiled); no PCIe copies; the SSDs are host-emulated at storage.model's pace";
  }

  std::unique_ptr<host_context> ctx_;
};

}  // namespace

std::unique_ptr<backend> make_taxi_host_backend() {
  return std::make_unique<taxi_host_backend>();
}

}  // namespace bam::tools
