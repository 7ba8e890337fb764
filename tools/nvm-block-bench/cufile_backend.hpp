// cufile_backend.hpp: storage.backend = cufile, the GPUDirect Storage baseline (the BaM paper's
// Figure 5 ran GDS through fio). CPU threads cuFileRead/cuFileWrite io_size blocks of
// storage.media.path (O_DIRECT) straight into GPU buffers registered with cuFileBufRegister.
// Compiled only where cufile.h exists (BAM_HAVE_CUFILE); not built or run in this repo's CI.
#pragma once
#include <memory>

#include "bam/harness/backend.hpp"

namespace bam::tools {

class cufile_backend final : public backend {
 public:
  cufile_backend();
  cufile_backend(const cufile_backend&) = delete;
  cufile_backend& operator=(const cufile_backend&) = delete;
  ~cufile_backend() override;
  void open(const run_config& c) override;
  backend_caps capabilities() const override;
  run_result run(const run_config& c, const run_hooks& hooks) override;

 private:
  struct state;  ///< the file, its cuFile handle and the driver (cufile.h types stay in the .cpp)
  std::unique_ptr<state> s_;
};

}  // namespace bam::tools
