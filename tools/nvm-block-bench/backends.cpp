// Backend selection of nvm-block-bench.
#include "backends.hpp"

#include <vector>

#if BAM_HAVE_URING
#include "uring_backend.hpp"
#endif
#if BAM_HAVE_HOST_BACKEND
#include "host_backend.hpp"
#endif
#if BAM_HAVE_NVME_BACKEND
#include "nvme_backend.hpp"
#endif
#if BAM_HAVE_GPU_BACKENDS
#include "gpu_backends.hpp"
#endif
#if BAM_HAVE_CUFILE
#include "cufile_backend.hpp"
#endif

namespace bam::tools {

std::unique_ptr<backend> make_backend(backend_kind kind) {
  switch (kind) {
    case backend_kind::host:
#if BAM_HAVE_HOST_BACKEND
      return std::make_unique<host_backend>();
#else
      return nullptr;
#endif
    case backend_kind::uring:
#if BAM_HAVE_URING
      return std::make_unique<uring_backend>();
#else
      return nullptr;
#endif
    case backend_kind::nvme:
#if BAM_HAVE_NVME_BACKEND
      return std::make_unique<nvme_backend>();
#else
      return nullptr;
#endif
    case backend_kind::emulated:
#if BAM_HAVE_GPU_BACKENDS
      return std::make_unique<emulated_backend>();
#else
      return nullptr;
#endif
    case backend_kind::zerocopy:
#if BAM_HAVE_GPU_BACKENDS
      return std::make_unique<zerocopy_backend>();
#else
      return nullptr;
#endif
    case backend_kind::cufile:
#if BAM_HAVE_CUFILE
      return std::make_unique<cufile_backend>();
#else
      return nullptr;
#endif
  }
  return nullptr;
}

std::string available_backends() {
  std::string out;
  for (backend_kind k : {backend_kind::emulated, backend_kind::nvme, backend_kind::host,
                         backend_kind::uring, backend_kind::zerocopy, backend_kind::cufile}) {
    if (!make_backend(k)) continue;
    if (!out.empty()) out += '|';
    out += to_string(k);
  }
  return out;
}

std::string unavailable_reason(backend_kind kind) {
  if (kind == backend_kind::cufile) {
    return ": built without cufile.h; install GDS and reconfigure with BAM_WITH_CUFILE=ON";
  }
  return "";
}

}  // namespace bam::tools
