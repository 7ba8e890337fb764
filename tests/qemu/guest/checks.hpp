// checks.hpp: test support for the QEMU guest test: checks that print "ok ..." or "FAIL ..." and
// count failures, and what the kernel says about pinned pages and the controller's PCI state.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <string>

namespace bam::guest {

/// Failures so far (every check() that did not hold).
int failures();
/// Prints "ok what" or "FAIL what".
void check(bool ok, const std::string& what);
/// ioctl that must fail with `err`.
void expect_errno(int fd, unsigned long req, void* arg, int err, const std::string& what);
/// mmap of `len` bytes at `off` (PROT_READ | PROT_WRITE unless `prot` says) that must fail with
/// `err`.
void expect_mmap_errno(int fd, std::size_t len, off_t off, int flags, int err,
                       const std::string& what, int prot = 0x3);
/// Pages pinned (FOLL_PIN) and not yet released, system-wide.
long long pins_held();
/// The first line of a (sysfs) file.
std::string read_first_line(const std::string& path);
/// Whether bus mastering is on (PCI command register, bit 2) for the device at "dddd:bb:ss.f".
bool bus_master_on(const std::string& pci_address);
/// The "VmPin:" of this process, in KiB.
long vm_pin_kib();

}  // namespace bam::guest
