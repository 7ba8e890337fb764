// bam/harness/exit_status.hpp: API. The exit statuses every bamkit tool returns (README lists
// them): decided here once, so that scripts can tell "could not run" from "ran, but I/O failed".
#pragma once

namespace bam {

inline constexpr int exit_ok = 0;             ///< the run finished and every I/O succeeded
inline constexpr int exit_run_failed = 1;     ///< the run could not be done (backend, GPU, files)
inline constexpr int exit_invalid_input = 2;  ///< invalid configuration, command line or input
/// The run finished (its report was written) but I/O errors, timeouts or verify mismatches
/// occurred.
inline constexpr int exit_io_errors = 3;

}  // namespace bam
