// fuzz.hpp: the QEMU guest's fuzz pass over the module's interface: random ioctls (commands,
// sizes, addresses, lengths, handles, argument pointers) and BAR0 mmaps from several threads,
// with a thread that keeps remapping and write-protecting part of the memory they point at;
// first with the controller stopped, then with it running verified I/O (whose buffers the fuzz
// may unmap under it: the module defers that). Then verified I/O on a fresh owner.
#pragma once
#include <cstdint>
#include <string>

namespace bam::guest {

/// `calls` ioctls in all on controller `path` (half in each phase), `threads` fuzzing threads.
/// Every result must be success or an errno the interface documents; calls that must fail
/// (unaligned, wrapping, kernel, unmapped, read-only or device memory) must fail as documented.
/// Returns the failures so far.
int run_fuzz(const std::string& path, std::uint64_t calls, unsigned threads);

}  // namespace bam::guest
