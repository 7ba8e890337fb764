// security.hpp: the QEMU guest's checks of who may use a controller (kmod/README.md, "Security
// model"): read-only descriptors, one owner, privileges (a child drops to uid 1000 with no
// capabilities), RLIMIT_MEMLOCK, the bound on mappings per file, and UNMAP while the controller
// runs (deferred until it is disabled).
#pragma once
#include <string>

namespace bam::guest {

/// Runs every check on controller `path`; returns the failures so far.
int run_security(const std::string& path);

}  // namespace bam::guest
