// The io_uring CPU-orchestrated baseline.
#include "uring_backend.hpp"

#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bam/detail/clock.hpp"
#include "bam/harness/ceilings.hpp"
#include "bam/harness/data_pattern.hpp"
#include "bam/harness/workload.hpp"
#include "cpu_threads.hpp"
#include "gpu_staging.hpp"
#include "media_file.hpp"

namespace bam::tools {
namespace {

[[noreturn]] void fail(const std::string& what, int err) {
  fail_errno(what, err);
}

/// Reads [0, bytes) once so that buffered reads are served from the page cache.
void warm_page_cache(int fd, std::uint64_t bytes) {
  ::posix_fadvise(fd, 0, static_cast<off_t>(bytes), POSIX_FADV_WILLNEED);
  std::vector<std::uint8_t> buf(1 << 20);
  for (std::uint64_t off = 0; off < bytes; off += buf.size()) {
    if (::pread(fd, buf.data(), buf.size(), static_cast<off_t>(off)) <= 0) break;
  }
}

}  // namespace

uring_backend::~uring_backend() {
  if (fd_ >= 0) ::close(fd_);
}

void uring_backend::open(const run_config& c) {
  const std::string& path = c.storage.media.path;
  created_ = prepare_media_file(path, c.storage.media.size_bytes);
  const int flags = O_RDONLY | (c.uring.direct ? O_DIRECT : 0);
  fd_ = ::open(path.c_str(), flags);
  if (fd_ < 0 && c.uring.direct && errno == EINVAL) {
    throw config_error("uring.direct",
                       fmt::format("true, but the file system of '{}' does not support "
                                   "O_DIRECT, allowed false",
                                   path));
  }
  if (fd_ < 0) fail(fmt::format("cannot open media file '{}'", path), errno);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail("fstat", errno);
  file_bytes_ = static_cast<std::uint64_t>(st.st_size);

  const bool gpu = gpu_staging::available();
  if (c.uring.gpu_copy == "on" && !gpu) {
    throw config_error("uring.gpu_copy",
                       "\"on\", but no GPU is usable (or this build has no CUDA), allowed "
                       "auto|off");
  }
  gpu_copy_ = c.uring.gpu_copy == "on" || (c.uring.gpu_copy == "auto" && gpu);
  // uring.direct's io_size rule (multiples of 4096) is validate()'s.
  if (!c.uring.direct) warm_page_cache(fd_, c.dataset());
}

backend_caps uring_backend::capabilities() const {
  backend_caps caps;
  caps.max_ssds = 1;
  caps.media_bytes = file_bytes_;
  caps.max_threads = 4096;
  return caps;
}

run_result uring_backend::run(const run_config& c, const run_hooks& hooks) {
  const workload_config& w = c.workload;
  const workload_params params = workload_params_of(c, 1);  // op = read: validated

  run_gate gate(w.ios);
  std::vector<thread_tally> results(w.threads);

  auto body = [&](std::uint32_t t) {
    thread_tally& res = results[t];
    const std::uint32_t depth = w.outstanding;
    try {
      // The staging buffers outlive the ring, and the ring unregisters them before it exits:
      // pinned (cudaHostAlloc) memory is never freed while io_uring still holds it registered.
      gpu_staging staging(depth, w.io_size, gpu_copy_);
      io_uring ring{};
      if (int e = io_uring_queue_init(depth, &ring, 0); e < 0) fail("io_uring_queue_init", -e);
      std::unique_ptr<io_uring, void (*)(io_uring*)> ring_guard(&ring, [](io_uring* r) {
        io_uring_unregister_buffers(r);  // -ENXIO when none were registered: harmless
        io_uring_queue_exit(r);
      });
      if (c.uring.registered_buffers) {
        std::vector<iovec> iov(depth);
        for (std::uint32_t s = 0; s < depth; ++s)
          iov[s] = iovec{staging.slot(s), w.io_size};
        if (int e = io_uring_register_buffers(&ring, iov.data(), depth); e < 0) {
          fail("io_uring_register_buffers", -e);
        }
      }
      io_stream stream(params, t);
      std::uint64_t next_index = 0;
      std::vector<std::uint64_t> submit_ns(depth, 0);
      std::vector<std::uint64_t> offsets(depth, 0);
      std::vector<std::uint32_t> copying;
      std::uint32_t inflight = 0;

      auto issue = [&](std::uint32_t s) -> bool {
        if (!gate.claim()) return false;
        const io_request r = stream.next(next_index++);
        offsets[s] = r.offset;
        io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        if (c.uring.registered_buffers) {
          io_uring_prep_read_fixed(sqe, fd_, staging.slot(s), static_cast<unsigned>(w.io_size),
                                   r.offset, static_cast<int>(s));
        } else {
          io_uring_prep_read(sqe, fd_, staging.slot(s), static_cast<unsigned>(w.io_size), r.offset);
        }
        io_uring_sqe_set_data64(sqe, s);
        submit_ns[s] = now_ns();
        ++inflight;
        return true;
      };
      auto complete = [&](std::uint32_t s) {
        const std::uint64_t end = now_ns();
        res.read.lat.add(end - submit_ns[s]);
        ++res.read.ios;
        res.read.io_bytes += w.io_size;
        res.end_ns = end;
        if (hooks.ios_done) hooks.ios_done->fetch_add(1, std::memory_order_relaxed);
      };

      gate.arrive();
      gate.wait_start();
      res.start_ns = now_ns();
      res.end_ns = res.start_ns;
      for (std::uint32_t s = 0; s < depth; ++s) {
        if (!issue(s)) break;
      }
      io_uring_submit(&ring);

      while (inflight > 0) {
        bool resubmit = false;
        // Slots whose GPU copy finished complete now and are reused.
        for (std::size_t k = 0; k < copying.size();) {
          const std::uint32_t s = copying[k];
          if (!staging.copy_done(s)) {
            ++k;
            continue;
          }
          copying[k] = copying.back();
          copying.pop_back();
          --inflight;
          complete(s);
          resubmit |= issue(s);
        }
        // Slots reissued above must reach the kernel before this thread blocks for completions.
        if (resubmit) {
          io_uring_submit(&ring);
          resubmit = false;
        }
        // Reads still in the kernel: none once the last copies above finished past the deadline
        // (nothing was reissued). Waiting for a completion then would block for good: the hang
        // seen with gpu_copy=on on the H100 and H200, every thread in io_cqring_wait.
        if (inflight == copying.size()) continue;
        io_uring_cqe* cqe = nullptr;
        int e = copying.empty() ? io_uring_wait_cqe(&ring, &cqe) : io_uring_peek_cqe(&ring, &cqe);
        if (e == -EAGAIN || e == -EINTR || (e == 0 && cqe == nullptr)) {
          if (resubmit) io_uring_submit(&ring);
          continue;
        }
        if (e < 0) fail("io_uring_wait_cqe", -e);
        unsigned head = 0;
        unsigned seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe) {
          ++seen;
          const auto s = static_cast<std::uint32_t>(io_uring_cqe_get_data64(cqe));
          const int r = cqe->res;
          if (r < 0) {
            res.io_failed(res.read, std::strerror(-r), false,
                          fmt::format("read failed: {}", std::strerror(-r)));
            --inflight;
            continue;
          }
          if (static_cast<std::uint64_t>(r) < w.io_size) ++res.read.short_ios;
          if (hooks.verify) {
            res.verify_errors += check_pattern(staging.slot(s), file_pattern_block, pattern_seed, 0,
                                               offsets[s] / file_pattern_block,
                                               static_cast<std::uint64_t>(r) / file_pattern_block);
            ++res.verified;
          }
          if (staging.copying()) {
            staging.start_copy(s, static_cast<std::size_t>(r));
            copying.push_back(s);
          } else {
            --inflight;
            complete(s);
            resubmit |= issue(s);
          }
        }
        io_uring_cq_advance(&ring, seen);
        if (resubmit) io_uring_submit(&ring);
      }
    } catch (const std::exception& e) {
      res.error = e.what();
      gate.arrive();  // harmless if already counted: the gate waits for >= threads
    }
  };
  gate.run(w.threads, w.duration_s, body);

  run_result out;
  const verify_counts verified = merge_tallies(results, out);
  out.per_ssd_ios = {out.read.ios};
  out.tool_stats["uring"] = {
      {"direct", c.uring.direct}, {"registered_buffers", c.uring.registered_buffers},
      {"gpu_copy", gpu_copy_},    {"page_cache", !c.uring.direct},
      {"file_created", created_}, {"file_bytes", file_bytes_}};
  if (hooks.verify) add_verify_stats(out.tool_stats, out, verified);
  return out;
}

nlohmann::json uring_backend::measure_ceilings(const run_config& c) {
  // CPU reads of the file's pages through a mapping (the page cache), and one pinned copy size.
  const std::uint64_t bytes = c.dataset();
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd_, 0);
  if (map == MAP_FAILED) {
    throw std::runtime_error(
        fmt::format("ceilings: mmap of {} B of the media file: {}", bytes, std::strerror(errno)));
  }
  machine_ceilings m =
      measure_memory_random_read(map, bytes, c.workload.io_size, c.workload.threads, 0.5,
                                 "the media file's pages, mapped (the page cache)");
  ::munmap(map, bytes);
  const std::size_t copy = std::size_t{64} << 20;
  const double h2d = gpu_staging::measure_h2d_bandwidth(copy);
  if (h2d > 0) {
    m.h2d_memcpy_gbps = h2d / 1e9;
    m.method += "; h2d: 5 cudaMemcpy of 64 MiB pinned, the mean after a warm-up";
  }
  return to_json(m);
}

}  // namespace bam::tools
