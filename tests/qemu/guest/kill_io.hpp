// kill_io.hpp: the QEMU guest's kill -9 test: processes killed in the middle of I/O, again and
// again; the module must stop the controller and release every pin each time, and the next
// process must find a working controller.
#pragma once
#include <string>

namespace bam::guest {

/// `rounds` times: a new process brings controller `path` up, runs verified I/O (which proves
/// the previous kill left it usable), then keeps I/O in flight on 8 threads until it is killed
/// with SIGKILL; after each kill the controller must be disabled and the pins released. A last
/// process runs verified I/O to completion. Returns the failures so far.
int run_kill(const std::string& path, unsigned rounds);

}  // namespace bam::guest
