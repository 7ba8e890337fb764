// backends.hpp: which backends this build of nvm-block-bench has. The GPU backends (emulated
// SSDs on the GPU) plug in here through bam::backend.
#pragma once
#include <memory>
#include <string>

#include "bam/harness/backend.hpp"

namespace bam::tools {

/// The backend for `kind`, or nullptr when this build has none.
std::unique_ptr<backend> make_backend(backend_kind kind);
/// "host|uring"-style list of the available kinds.
std::string available_backends();
/// Why this build has no backend `kind`, as ": reason" ("" when there is nothing to add).
std::string unavailable_reason(backend_kind kind);

}  // namespace bam::tools
