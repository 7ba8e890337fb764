// The tiled implementation's row-group readers: SSDs through host queues, or the table's files.
#include "tiled_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

namespace bam::tools {
namespace {

class ssd_reader final : public tiled_reader {
 public:
  ssd_reader(host_context& ctx, unsigned threads) : ctx_(ctx), threads_(threads) {}
  tiled_io read(std::uint64_t first, std::uint64_t n, int deepest, double* const* dst) override {
    tiled_io io;
    for (int k = 0; k <= deepest; ++k) {
      const host_context::read_result r =
          ctx_.read_region(taxi_region(k), first * 8, dst[k], n * 8, threads_);
      io.bytes += r.bytes;
      io.commands += r.commands;
    }
    return io;
  }
  std::string label() const override { return "tiled (ssd)"; }

 private:
  host_context& ctx_;
  unsigned threads_;
};

class file_reader final : public tiled_reader {
 public:
  explicit file_reader(const taxi_table& t) {
    for (int k = 0; k < taxi::query_count; ++k) {
      const table::column_info* ci =
          t.manifest.find(taxi::column_names[taxi::query_columns[static_cast<std::size_t>(k)]]);
      paths_.push_back((t.dir / ci->file).string());
      fds_.push_back(::open(paths_.back().c_str(), O_RDONLY | O_CLOEXEC));
      if (fds_.back() < 0) {
        const std::string why = std::strerror(errno);
        close_all();
        throw std::runtime_error(fmt::format("{}: {}", paths_.back(), why));
      }
    }
  }
  ~file_reader() override { close_all(); }
  tiled_io read(std::uint64_t first, std::uint64_t n, int deepest, double* const* dst) override {
    std::vector<std::thread> pool;
    std::vector<std::string> errors(static_cast<std::size_t>(deepest) + 1);
    std::vector<std::uint64_t> reads(errors.size());
    for (int k = 0; k <= deepest; ++k) {
      pool.emplace_back([&, k] {
        auto* p = reinterpret_cast<char*>(dst[k]);
        std::uint64_t left = n * 8, off = first * 8;
        while (left > 0) {
          const ssize_t got = ::pread(fds_[k], p, left, static_cast<off_t>(off));
          ++reads[k];
          if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            errors[k] = fmt::format("{}: pread at {}: {}", paths_[k], off,
                                    got == 0 ? "end of file" : std::strerror(errno));
            return;
          }
          p += got;
          off += static_cast<std::uint64_t>(got);
          left -= static_cast<std::uint64_t>(got);
        }
      });
    }
    for (auto& t : pool)
      t.join();
    tiled_io io;
    for (std::size_t k = 0; k < errors.size(); ++k) {
      if (!errors[k].empty()) throw std::runtime_error(errors[k]);
      io.commands += reads[k];
    }
    io.bytes = n * 8 * errors.size();
    return io;
  }
  std::string label() const override { return "tiled (page cache)"; }

 private:
  void close_all() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
    fds_.clear();
  }
  std::vector<std::string> paths_;
  std::vector<int> fds_;
};

}  // namespace

std::unique_ptr<tiled_reader> ssd_tiled_reader(host_context& ctx, unsigned threads) {
  return std::make_unique<ssd_reader>(ctx, threads);
}

std::unique_ptr<tiled_reader> file_tiled_reader(const taxi_table& t) {
  return std::make_unique<file_reader>(t);
}

}  // namespace bam::tools
