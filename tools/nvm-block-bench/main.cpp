// nvm-block-bench: raw block I/O benchmark (BaM paper §4.3) over the shared config and reports.
// Backends: host (CPU threads drive BaM queues against host emulated controllers), uring (the
// CPU-orchestrated io_uring baseline); the GPU backends plug in through bam::backend. The main
// loop (sweeps, repeats, reports) is the shared one of bam/harness/tool_main.hpp.
#include "backends.hpp"
#include "bam/harness/tool_main.hpp"
#if BAM_HAVE_CUDA && !BAM_NO_GPU_INFO  // the static build for the QEMU guest has no CUDA runtime
#include "bam/report/gpu_info.hpp"
#endif

int main(int argc, char** argv) {
  bam::tool_spec spec;
  spec.name = "nvm-block-bench";
  spec.description = "nvm-block-bench: raw block I/O benchmark of BaM queues and baselines";
  spec.verify_help =
      "fill the dataset with the data pattern first, then check every read against it";
  spec.make_backend = bam::tools::make_backend;
  spec.available_backends = bam::tools::available_backends;
  spec.unavailable_reason = bam::tools::unavailable_reason;
  spec.progress_total = [](const bam::run_config& c) { return c.workload.ios; };
#if BAM_HAVE_CUDA && !BAM_NO_GPU_INFO
  spec.query_gpu = bam::query_gpu_info;
#endif
  return bam::run_bench_tool(spec, argc, argv);
}
