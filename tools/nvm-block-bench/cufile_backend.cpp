// The GPUDirect Storage (cuFile) baseline. Written against the documented cuFile API; built only
// where cufile.h exists, which this repo's CI does not have: untested here (docs/config.md).
#include "cufile_backend.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cufile.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bam/detail/clock.hpp"
#include "bam/detail/cuda.hpp"
#include "bam/harness/data_pattern.hpp"
#include "bam/harness/workload.hpp"
#include "cpu_threads.hpp"
#include "gpu_io.hpp"
#include "media_file.hpp"

namespace bam::tools {
namespace {

std::string errno_text(int err) {
  return fmt::format("errno {} ({})", err, std::strerror(err));
}

/// A cuFile status with its CUDA driver error (when it is one) and the errno beside it.
std::string status_text(CUfileError_t st, int err) {
  std::string s =
      fmt::format("{} (CUfileOpError {})", cufileop_status_error(st.err), static_cast<int>(st.err));
  if (st.err == CU_FILE_CUDA_DRIVER_ERROR) {
    const char* name = nullptr;
    if (cuGetErrorName(st.cu_err, &name) != CUDA_SUCCESS || name == nullptr) name = "?";
    s += fmt::format(", CUresult {} {}", static_cast<int>(st.cu_err), name);
  }
  return s + ", " + errno_text(err);
}

/// Throws when `st` is not CU_FILE_SUCCESS (errno is read first, as the call left it).
void check_cufile(CUfileError_t st, const char* what) {
  const int err = errno;
  if (st.err != CU_FILE_SUCCESS) {
    throw std::runtime_error(fmt::format("{} failed: {}", what, status_text(st, err)));
  }
}

/// cuFileRead/cuFileWrite return -1 with errno set for file system errors, and the negated
/// CUfileOpError for cuFile's own.
std::string io_error_text(ssize_t ret, int err) {
  if (ret == -1) return errno_text(err);
  const auto op = static_cast<CUfileOpError>(-ret);
  return fmt::format("{} (CUfileOpError {}), {}", cufileop_status_error(op), -ret, errno_text(err));
}

/// One thread's I/O buffer: GPU memory registered with cuFile, and a pinned host buffer for the
/// data pattern of writes and the check of verified reads.
class gpu_slot {
 public:
  explicit gpu_slot(std::size_t bytes) : bytes_(bytes) {
    try {
      cuda_check(cudaMalloc(&dev_, bytes), "cufile: cudaMalloc");
      cuda_check(cudaHostAlloc(&host_, bytes, cudaHostAllocDefault), "cufile: cudaHostAlloc");
      cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                 "cufile: cudaStreamCreate");
      check_cufile(cuFileBufRegister(dev_, bytes, 0), "cuFileBufRegister");
      registered_ = true;
    } catch (...) {
      release();
      throw;
    }
  }
  gpu_slot(const gpu_slot&) = delete;
  gpu_slot& operator=(const gpu_slot&) = delete;
  ~gpu_slot() { release(); }

  void* dev() const { return dev_; }
  void* host() const { return host_; }
  void to_gpu() { copy(dev_, host_, bytes_, cudaMemcpyHostToDevice); }
  void to_host(std::size_t n) { copy(host_, dev_, n, cudaMemcpyDeviceToHost); }

 private:
  void copy(void* dst, const void* src, std::size_t n, cudaMemcpyKind kind) {
    cuda_check(cudaMemcpyAsync(dst, src, n, kind, stream_), "cufile: cudaMemcpyAsync");
    cuda_check(cudaStreamSynchronize(stream_), "cufile: cudaStreamSynchronize");
  }
  void release() {
    if (registered_) cuFileBufDeregister(dev_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    if (host_ != nullptr) cudaFreeHost(host_);
    if (dev_ != nullptr) cudaFree(dev_);
  }

  std::size_t bytes_;
  void* dev_ = nullptr;
  void* host_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool registered_ = false;
};

}  // namespace

struct cufile_backend::state {
  int fd = -1;
  CUfileHandle_t handle{};
  bool handle_registered = false;
  bool driver_open = false;
  bool writable = false;
  bool created = false;
  int device = 0;
  std::uint64_t file_bytes = 0;
  std::string path;

  ~state() {
    if (handle_registered) cuFileHandleDeregister(handle);
    if (fd >= 0) ::close(fd);
    if (driver_open) cuFileDriverClose();
  }
};

cufile_backend::cufile_backend() : s_(std::make_unique<state>()) {}
cufile_backend::~cufile_backend() = default;

void cufile_backend::open(const run_config& c) {
  std::string why;
  if (!cuda_device_usable(why)) {
    throw config_error("storage.backend",
                       fmt::format("\"cufile\" needs a CUDA GPU and none is usable ({}), allowed "
                                   "host|uring|nvme on this machine",
                                   why));
  }
  cuda_check(cudaGetDevice(&s_->device), "cufile: cudaGetDevice");
  s_->path = c.storage.media.path;
  s_->created = prepare_media_file(s_->path, c.storage.media.size_bytes);

  // Read-write when allowed (a sweep may switch workload.op), else read-only.
  s_->fd = ::open(s_->path.c_str(), O_RDWR | O_DIRECT);
  s_->writable = s_->fd >= 0;
  if (s_->fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
    s_->fd = ::open(s_->path.c_str(), O_RDONLY | O_DIRECT);
  }
  if (s_->fd < 0 && errno == EINVAL) {
    throw config_error("storage.media.path",
                       fmt::format("'{}': its file system does not support O_DIRECT, which "
                                   "backend \"cufile\" needs, allowed a file on one that does",
                                   s_->path));
  }
  if (s_->fd < 0) fail_errno(fmt::format("cannot open media file '{}'", s_->path), errno);
  struct stat st {};
  if (::fstat(s_->fd, &st) != 0) fail_errno("fstat", errno);
  s_->file_bytes = static_cast<std::uint64_t>(st.st_size);

  check_cufile(cuFileDriverOpen(), "cuFileDriverOpen");
  s_->driver_open = true;
  CUfileDescr_t descr{};
  descr.handle.fd = s_->fd;
  descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  check_cufile(cuFileHandleRegister(&s_->handle, &descr),
               fmt::format("cuFileHandleRegister('{}')", s_->path).c_str());
  s_->handle_registered = true;
}

backend_caps cufile_backend::capabilities() const {
  backend_caps caps;
  caps.max_ssds = 1;
  caps.media_bytes = s_->file_bytes;
  caps.max_threads = 4096;
  return caps;
}

run_result cufile_backend::run(const run_config& c, const run_hooks& hooks) {
  const workload_config& w = c.workload;
  if (w.op != io_op::read && !s_->writable) {
    throw config_error("workload.op",
                       fmt::format("\"{}\": the media file '{}' cannot be opened for writing, "
                                   "allowed read",
                                   to_string(w.op), s_->path));
  }
  const workload_params params = workload_params_of(c, 1);
  const std::size_t io = w.io_size;
  const std::uint64_t blocks = io / file_pattern_block;
  const CUfileHandle_t fh = s_->handle;

  run_gate gate(w.ios);
  std::vector<thread_tally> results(w.threads);

  auto worker = [&](std::uint32_t t) {
    thread_tally& res = results[t];
    bool counted = false;
    try {
      // cuFile I/O needs the device's (primary) CUDA context current on the calling thread.
      cuda_check(cudaSetDevice(s_->device), "cufile: cudaSetDevice");
      gpu_slot slot(io);
      io_stream stream(params, t);
      gate.arrive();
      counted = true;
      gate.wait_start();
      res.start_ns = res.end_ns = now_ns();
      for (std::uint64_t i = 0; gate.claim(); ++i) {
        const io_request r = stream.next(i);
        const auto off = static_cast<off_t>(r.offset);
        const std::uint64_t block = r.offset / file_pattern_block;
        if (!r.read) {
          // Writes carry the data pattern of their blocks (outside the timed call).
          fill_pattern(slot.host(), file_pattern_block, pattern_seed, 0, block, blocks);
          slot.to_gpu();
        }
        const std::uint64_t t0 = now_ns();
        const ssize_t n = r.read ? cuFileRead(fh, slot.dev(), io, off, 0)
                                 : cuFileWrite(fh, slot.dev(), io, off, 0);
        const int err = errno;
        const std::uint64_t t1 = now_ns();
        direction_result& d = r.read ? res.read : res.write;
        if (n < 0) {
          res.io_failed(d, io_error_text(n, err), false,
                        fmt::format("{} of {} bytes at offset {} failed: {}",
                                    r.read ? "cuFileRead" : "cuFileWrite", io, r.offset,
                                    io_error_text(n, err)));
          continue;
        }
        const auto done = static_cast<std::uint64_t>(n);
        if (done < io) ++d.short_ios;
        d.lat.add(t1 - t0);
        ++d.ios;
        d.io_bytes += done;
        res.end_ns = t1;
        if (hooks.ios_done) hooks.ios_done->fetch_add(1, std::memory_order_relaxed);
        if (hooks.verify && r.read) {
          slot.to_host(static_cast<std::size_t>(done));
          res.verify_errors += check_pattern(slot.host(), file_pattern_block, pattern_seed, 0,
                                             block, done / file_pattern_block);
          ++res.verified;
        }
      }
    } catch (const std::exception& e) {
      res.error = e.what();
      if (!counted) gate.arrive();
    }
  };
  gate.run(w.threads, w.duration_s, worker);

  run_result out;
  const verify_counts verified = merge_tallies(results, out);
  out.per_ssd_ios = {out.read.ios + out.write.ios};
  out.tool_stats["cufile"] = {{"device", s_->device},
                              {"file_bytes", s_->file_bytes},
                              {"file_created", s_->created},
                              {"writable", s_->writable},
                              {"o_direct", true}};
  CUfileDrvProps_t props{};
  const CUfileError_t pst = cuFileDriverGetProperties(&props);
  const int perr = errno;
  if (pst.err == CU_FILE_SUCCESS) {
    out.tool_stats["cufile"]["nvfs_version"] =
        fmt::format("{}.{}", props.nvfs.major_version, props.nvfs.minor_version);
    out.tool_stats["cufile"]["max_direct_io_kb"] = props.nvfs.max_direct_io_size;
  } else {
    out.tool_stats["cufile"]["driver_properties_error"] = status_text(pst, perr);
  }
  if (hooks.verify) add_verify_stats(out.tool_stats, out, verified);
  return out;
}

}  // namespace bam::tools
