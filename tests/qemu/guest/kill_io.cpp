// kill_io.cpp: kill -9 in the middle of I/O (see kill_io.hpp).
#include "kill_io.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>

#include "bam/kmod/kmod_controller.hpp"
#include "bam/kmod/kmod_device.hpp"
#include "bam/nvme/spec.hpp"
#include "bam_queue_io.hpp"
#include "checks.hpp"

namespace bam::guest {

namespace {

/// The child: verified I/O, reported on `report` ('v' or 'x'); then, unless `last`, I/O without
/// end (writes and reads of 2048 blocks, 8 threads on one queue pair) until it is killed.
[[noreturn]] void child(const std::string& path, unsigned round, bool last, int report) {
  int code = 1;
  try {
    kmod_controller kc(path);
    const bool ok = host_io_verified(kc, 160000, 1000 + round);
    const char c = ok ? 'v' : 'x';
    if (::write(report, &c, 1) != 1 || !ok) ::_exit(1);
    if (last) ::_exit(0);
    const std::uint32_t bs = kc.info().lba_size;
    io_queue_pair qp = kc.driver().create_io_queue_pair(64);
    const auto ext = random_extents(161000, 2048, max_extent_bytes / bs, round);
    for (std::uint64_t g = 0;; ++g)
      bam_queue_run(qp, kc.data_allocator(), 8, ext, g % 2 == 0, bs, 3000 + g, 7);
  } catch (const std::exception& e) {
    std::printf("FAIL kill round %u child: %s\n", round, e.what());
    std::fflush(stdout);
  }
  ::_exit(code);
}

bool controller_disabled(const std::string& path) {
  const kmod_device dev(path);
  return (dev.bar().read32(nvme::reg::cc) & 1) == 0 && (dev.bar().read32(nvme::reg::csts) & 1) == 0;
}

}  // namespace

int run_kill(const std::string& path, unsigned rounds) {
  const long long pins0 = pins_held();
  std::mt19937 rng(18);
  unsigned verified = 0, clean = 0;
  std::string log;
  for (unsigned i = 0; i <= rounds; ++i) {
    const bool last = i == rounds;
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) throw std::runtime_error("kill: pipe");
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipe_fds[0]);
      child(path, i, last, pipe_fds[1]);
    }
    ::close(pipe_fds[1]);
    char c = 0;
    const bool ok = ::read(pipe_fds[0], &c, 1) == 1 && c == 'v';  // until it verified (or died)
    ::close(pipe_fds[0]);
    verified += ok ? 1 : 0;
    int status = 0;
    if (last) {
      ::waitpid(pid, &status, 0);
      check(ok && WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "kill: the last process ran verified I/O to completion");
      break;
    }
    const auto ms = static_cast<unsigned>(50 + rng() % 250);
    ::usleep(ms * 1000);  // I/O in flight
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    const bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    const long long pins = pins_held();
    const bool disabled = controller_disabled(path);
    clean += killed && pins == pins0 && disabled ? 1 : 0;
    // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on "literal" + string.
    log += ' ';
    log += std::to_string(ms);
    log += "ms";
    if (!killed) log += "(not killed)";
    if (pins != pins0) {
      log += "(pins ";
      log += std::to_string(pins - pins0);
      log += ')';
    }
    if (!disabled) log += "(enabled)";
  }
  std::printf("kill -9 after verified I/O, at:%s\n", log.c_str());
  check(verified == rounds + 1, "kill: " + std::to_string(verified) + " of " +
                                    std::to_string(rounds + 1) +
                                    " processes ran verified I/O after the previous kill");
  check(clean == rounds, "kill: " + std::to_string(clean) + " of " + std::to_string(rounds) +
                             " kills left the controller disabled and every pin released");
  check(pins_held() == pins0, "kill: nr_foll_pin_acquired - nr_foll_pin_released as before (" +
                                  std::to_string(pins0) + ")");
  return failures();
}

}  // namespace bam::guest
