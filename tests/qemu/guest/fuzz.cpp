// fuzz.cpp: the fuzz pass over the module's interface (see fuzz.hpp).
#include "fuzz.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

#include "bam/kmod/kmod_controller.hpp"
#include "bam/kmod/kmod_device.hpp"
#include "bam/kmod/uapi.h"
#include "bam_queue_io.hpp"
#include "checks.hpp"

namespace bam::guest {

namespace {

constexpr std::uint64_t page = 4096;
constexpr std::uint64_t rw_bytes = 4u << 20;
constexpr std::uint64_t small_bytes = 64u << 10;
constexpr std::uint64_t max_map_bytes = 64ull << 30;
constexpr std::uint64_t kernel_address = 0xffff888000000000ull;
/// Lowest address user space may map (vm.mmap_min_addr): nothing is mapped below it.
constexpr std::uint64_t min_mappable = 0x10000;

/// Memory the fuzzed calls point at.
struct arena {
  char* rw = nullptr;      ///< rw_bytes read-write; its last 3 * small_bytes are the churn window
  char* none = nullptr;    ///< small_bytes PROT_NONE (right after rw: ranges running off rw)
  char* ro = nullptr;      ///< small_bytes read-only
  char* shared = nullptr;  ///< small_bytes of a memfd, MAP_SHARED
  char* bar = nullptr;     ///< BAR0 (device memory), read-only mapping
  std::uint64_t bar_bytes = 0;

  char* churn() const { return rw + rw_bytes - 3 * small_bytes; }

  bool inside(std::uint64_t a, std::uint64_t n, const char* base, std::uint64_t bytes) const {
    const auto b = reinterpret_cast<std::uint64_t>(base);
    return a >= b && n <= bytes && a - b <= bytes - n;
  }
  bool overlaps(std::uint64_t a, std::uint64_t n, const char* base, std::uint64_t bytes) const {
    const auto b = reinterpret_cast<std::uint64_t>(base);
    return a < b + bytes && b < a + n;
  }
};

char* map_or_throw(std::size_t bytes, int prot, int flags, int fd = -1) {
  void* p = ::mmap(nullptr, bytes, prot, flags, fd, 0);
  if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "fuzz: mmap");
  return static_cast<char*>(p);
}

arena make_arena(int owner_fd, std::uint64_t bar_bytes) {
  arena a;
  // rw and the PROT_NONE guard after it in one reservation, so that nothing else lands there.
  a.rw = map_or_throw(rw_bytes + small_bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE);
  a.none = a.rw + rw_bytes;
  ::mprotect(a.none, small_bytes, PROT_NONE);
  a.ro = map_or_throw(small_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE);
  const int mfd = ::memfd_create("bamkit-fuzz", 0);
  if (mfd < 0 || ::ftruncate(mfd, small_bytes) != 0)
    throw std::system_error(errno, std::generic_category(), "fuzz: memfd");
  a.shared = map_or_throw(small_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, mfd);
  ::close(mfd);
  a.bar_bytes = bar_bytes;
  a.bar = map_or_throw(bar_bytes, PROT_READ, MAP_SHARED, owner_fd);
  return a;
}

void free_arena(const arena& a) {
  ::munmap(a.rw, rw_bytes + small_bytes);
  ::munmap(a.ro, small_bytes);
  ::munmap(a.shared, small_bytes);
  ::munmap(a.bar, a.bar_bytes);
}

/// Keeps remapping and write-protecting the churn window while the fuzzers pin it.
void churn(const arena& a, const std::atomic<bool>& stop) {
  char* w = a.churn();
  const int anon = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE;
  while (!stop.load()) {
    ::mprotect(w, small_bytes, PROT_READ);
    ::mmap(w + small_bytes, small_bytes, PROT_READ | PROT_WRITE, anon, -1, 0);
    ::usleep(500);
    ::mprotect(w, small_bytes, PROT_READ | PROT_WRITE);
    ::mmap(w + 2 * small_bytes, small_bytes, PROT_NONE, anon, -1, 0);
    ::usleep(500);
    ::mmap(w + 2 * small_bytes, small_bytes, PROT_READ | PROT_WRITE, anon, -1, 0);
  }
  ::mprotect(w, small_bytes, PROT_READ | PROT_WRITE);
}

/// Outcome counts of one phase, by call and result, for the summary and the failure report.
struct tally {
  std::mutex mutex;
  std::map<std::string, std::uint64_t> counts;
  std::set<std::string> reported;
  std::atomic<std::uint64_t> calls{0};

  void add(const std::string& call, int err, bool allowed, const std::string& why) {
    ++calls;
    const std::string key = call + " " + (err == 0 ? "ok" : std::strerror(err));
    std::lock_guard lock(mutex);
    ++counts[key];
    if (!allowed && reported.insert(key + why).second) check(false, "fuzz: " + key + ": " + why);
    if (!allowed) ++counts["unexpected"];
  }
};

/// One fuzzing thread: random calls on the owner's descriptor (and sometimes on a read-only one).
class fuzzer {
 public:
  fuzzer(const arena& a, int owner_fd, int ro_fd, std::uint64_t seed, tally& t)
      : a_(a), owner_(owner_fd), ro_(ro_fd), rng_(seed), t_(t) {}

  void run(std::uint64_t calls) {
    for (std::uint64_t i = 0; i < calls; ++i) {
      const bool on_ro = pick(20) == 0;
      const int fd = on_ro ? ro_ : owner_;
      if (pick(50) == 0) fuzz_mmap(fd, on_ro);
      switch (pick(20)) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4:
        case 5:
          map(fd, on_ro, false);
          break;
        case 6:
          map(fd, on_ro, true);
          break;
        case 7:
        case 8:
        case 9:
        case 10:
          get_addrs(fd, on_ro);
          break;
        case 11:
        case 12:
        case 13:
        case 14:
          unmap(fd, on_ro);
          break;
        case 15:
          get_info(fd);
          break;
        default:
          other(fd);
          break;
      }
    }
    for (std::uint64_t h : mine_) {
      bamkit_unmap u{h, 0, 0};
      ::ioctl(owner_, BAMKIT_IOC_UNMAP, &u);
    }
  }

 private:
  std::uint64_t pick(std::uint64_t n) { return rng_() % n; }

  std::uint64_t random_address() {
    const auto rw = reinterpret_cast<std::uint64_t>(a_.rw);
    switch (pick(12)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return rw + pick(rw_bytes / page) * page;
      case 4:
        return rw + pick(rw_bytes);  // unaligned
      case 5:
        return reinterpret_cast<std::uint64_t>(a_.churn()) + pick(48) * page;
      case 6:
        return reinterpret_cast<std::uint64_t>(a_.ro) + pick(small_bytes / page) * page;
      case 7:
        return reinterpret_cast<std::uint64_t>(a_.none) + pick(small_bytes / page) * page;
      case 8:
        return reinterpret_cast<std::uint64_t>(a_.shared) + pick(small_bytes / page) * page;
      case 9:
        return reinterpret_cast<std::uint64_t>(a_.bar);
      case 10:
        return pick(2) ? kernel_address + pick(1 << 20) * page : pick(min_mappable / page) * page;
      default:
        return pick(2) ? ~std::uint64_t{0} - pick(16) * page + 1 : rng_();  // top, random
    }
  }

  std::uint64_t random_length() {
    switch (pick(12)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return (1 + pick(16)) * page;
      case 4:
        return 0;
      case 5:
        return 1 + pick(3 * page);  // mostly unaligned
      case 6:
        return rng_();
      case 7:
        return pick(2) ? 1ull << 40 : max_map_bytes + page;
      case 8:
        return rw_bytes;
      case 9:
        return ~std::uint64_t{0} - page + 1;  // wraps from anywhere
      case 10:
        return (1 + pick(4)) * small_bytes;
      default:
        return pick(256) * page;
    }
  }

  /// An argument pointer: usually `good`, sometimes one that must give EFAULT.
  void* pointer(void* good, bool& bad) {
    bad = true;
    switch (pick(24)) {
      case 0:
        return nullptr;
      case 1:
        return reinterpret_cast<void*>(kernel_address);
      case 2:
        return a_.none;
      case 3:
        return a_.none - 8;  // runs off rw into the PROT_NONE guard
      default:
        bad = false;
        return good;
    }
  }

  std::uint64_t random_handle() {
    if (!mine_.empty() && pick(2) == 0) return mine_[pick(mine_.size())];
    switch (pick(6)) {
      case 0:
        return 0;
      case 1:
        return 1ull << 32;
      case 2:
        return rng_();
      default:
        return pick(80);  // low handles: other threads' and the controller's own
    }
  }

  /// What MAP_HOST must answer for (addr, len): EINVAL, EFAULT, or 0 (may succeed).
  int expected_map_host(std::uint64_t addr, std::uint64_t len) const {
    if (len == 0 || len > max_map_bytes || ((addr | len) & (page - 1)) || addr + len < addr)
      return EINVAL;
    if (a_.inside(addr, len, a_.rw, rw_bytes) || a_.inside(addr, len, a_.shared, small_bytes))
      return 0;
    return EFAULT;
  }

  int call(int fd, unsigned long cmd, void* arg) {
    errno = 0;
    return ::ioctl(fd, cmd, arg) == 0 ? 0 : errno;
  }

  void map(int fd, bool on_ro, bool gpu) {
    bamkit_map m{random_address(), random_length(), rng_(), 0, 0};
    bool bad_ptr = false;
    void* arg = pointer(&m, bad_ptr);
    const int err = call(fd, gpu ? BAMKIT_IOC_MAP_GPU : BAMKIT_IOC_MAP_HOST, arg);
    const char* name = gpu ? "MAP_GPU" : "MAP_HOST";
    if (on_ro) return t_.add(name, err, err == EBADF, "read-only descriptor must give EBADF");
    if (bad_ptr) return t_.add(name, err, err == EFAULT, "bad argument pointer must give EFAULT");
    if (err == 0) {
      mine_.push_back(m.handle);
      if (mine_.size() > 64) {
        bamkit_unmap u{mine_.front(), 0, 0};
        ::ioctl(owner_, BAMKIT_IOC_UNMAP, &u);
        mine_.pop_front();
      }
    }
    if (gpu) {
      // Not built in (EOPNOTSUPP), no NVIDIA driver (ENOPKG), or the stand-in provider refusing
      // memory that is not huge-page backed (EINVAL); success only on good user memory.
      const bool good = expected_map_host(m.vaddr, m.length) == 0 && m.vaddr % small_bytes == 0 &&
                        m.length % small_bytes == 0;
      return t_.add(name, err,
                    err == EOPNOTSUPP || err == ENOPKG || err == ENOSPC || err == EINVAL ||
                        err == ENOMEM || (err == 0 && good),
                    "unexpected result");
    }
    const int want = expected_map_host(m.vaddr, m.length);
    const bool churny = a_.overlaps(m.vaddr, m.length, a_.churn(), 3 * small_bytes);
    bool ok = err == want || err == ENOSPC;
    if (want == 0) ok = ok || err == ENOMEM || (churny && err == EFAULT);
    if (err == 0 && want == 0) ok = ok && addresses_look_right(m);
    t_.add(name, err, ok, "expected " + std::string(want ? std::strerror(want) : "success"));
  }

  /// A mapping just made: its bus addresses are page-aligned and non-zero.
  bool addresses_look_right(const bamkit_map& m) {
    if (m.pages != m.length / page || m.page_shift != 12) return false;
    std::vector<std::uint64_t> addrs(m.pages);
    bamkit_map_addrs a{m.handle, reinterpret_cast<std::uintptr_t>(addrs.data()), 0, m.pages};
    // Another thread may have unmapped it by now.
    if (call(owner_, BAMKIT_IOC_MAP_GET_ADDRS, &a) != 0) return true;
    return std::all_of(addrs.begin(), addrs.end(),
                       [](std::uint64_t x) { return x != 0 && x % page == 0; });
  }

  void get_addrs(int fd, bool on_ro) {
    std::uint64_t out[64];
    const auto first = static_cast<std::uint32_t>(pick(4) ? pick(8) : rng_());
    const auto count = static_cast<std::uint32_t>(pick(4) ? pick(64) : rng_());
    std::uint64_t dst = reinterpret_cast<std::uintptr_t>(out);
    if (count > 64) dst = reinterpret_cast<std::uintptr_t>(a_.rw);  // room for it, or EFAULT
    if (pick(10) == 0) dst = pick(2) ? kernel_address : reinterpret_cast<std::uintptr_t>(a_.ro);
    bamkit_map_addrs a{random_handle(), dst, first, count};
    bool bad_ptr = false;
    void* arg = pointer(&a, bad_ptr);
    const int err = call(fd, BAMKIT_IOC_MAP_GET_ADDRS, arg);
    if (on_ro) return t_.add("GET_ADDRS", err, err == EBADF, "read-only descriptor: EBADF");
    if (bad_ptr) return t_.add("GET_ADDRS", err, err == EFAULT, "bad pointer: EFAULT");
    const bool ok = err == 0 || err == EINVAL || err == EFAULT || err == ENXIO;
    t_.add("GET_ADDRS", err, ok && !(err == 0 && count == 0), "unexpected result");
  }

  void unmap(int fd, bool on_ro) {
    bamkit_unmap u{random_handle(), static_cast<std::uint32_t>(rng_()), 0};
    if (pick(8) == 0) u.reserved = static_cast<std::uint32_t>(rng_()) | 1;
    bool bad_ptr = false;
    void* arg = pointer(&u, bad_ptr);
    const int err = call(fd, BAMKIT_IOC_UNMAP, arg);
    if (on_ro) return t_.add("UNMAP", err, err == EBADF, "read-only descriptor: EBADF");
    if (bad_ptr) return t_.add("UNMAP", err, err == EFAULT, "bad pointer: EFAULT");
    if (err == 0) std::erase(mine_, u.handle);
    const bool ok = err == EINVAL || (err == 0 && u.reserved == 0 && u.flags <= 1);
    t_.add("UNMAP", err, ok, "unexpected result");
  }

  void get_info(int fd) {
    bamkit_info info{};
    bool bad_ptr = false;
    void* arg = pointer(&info, bad_ptr);
    if (!bad_ptr && pick(8) == 0) arg = a_.ro;  // read-only output
    const int err = call(fd, BAMKIT_IOC_GET_INFO, arg);
    const bool ok =
        arg == &info ? err == 0 && info.abi_version == BAMKIT_ABI_VERSION : err == EFAULT;
    t_.add("GET_INFO", err, ok, "unexpected result");
  }

  /// Commands the module does not know: random numbers, our magic with other numbers or sizes.
  void other(int fd) {
    unsigned long cmd = 0;
    switch (pick(3)) {
      case 0:
        cmd = static_cast<std::uint32_t>(rng_());
        break;
      case 1:
        cmd = _IOC(pick(4), BAMKIT_IOC_MAGIC, 6 + pick(250), pick(1 << 14));
        break;
      default:
        cmd = _IOC(pick(4), BAMKIT_IOC_MAGIC, 1 + pick(5), pick(64));
        break;
    }
    const bool ours = cmd == BAMKIT_IOC_GET_INFO || cmd == BAMKIT_IOC_MAP_HOST ||
                      cmd == BAMKIT_IOC_MAP_GPU || cmd == BAMKIT_IOC_MAP_GET_ADDRS ||
                      cmd == BAMKIT_IOC_UNMAP;
    if (ours) return;
    // Arguments that must never be written through: the read-only page.
    const int err = call(fd, cmd, a_.ro);
    const bool bamkit = _IOC_TYPE(cmd) == BAMKIT_IOC_MAGIC;
    // Other numbers may be the VFS's own ioctls (FIOCLEX, FIGETBSZ, ...).
    t_.add("other", err, bamkit ? err == ENOTTY : true, "unknown bamkit command: ENOTTY");
  }

  /// mmap of BAR0 with random offsets, lengths, flags and protections.
  void fuzz_mmap(int fd, bool on_ro) {
    const std::uint64_t len = pick(4) ? (1 + pick(4)) * page : a_.bar_bytes + page * pick(2);
    const std::uint64_t off = pick(4) ? pick(a_.bar_bytes / page + 2) * page : rng_() & ~(page - 1);
    const int flags = pick(4) ? MAP_SHARED : MAP_PRIVATE;
    const int prot = pick(2) ? PROT_READ : PROT_READ | PROT_WRITE;
    errno = 0;
    void* p = ::mmap(nullptr, len, prot, flags, fd, static_cast<off_t>(off));
    const int err = p == MAP_FAILED ? errno : 0;
    if (p != MAP_FAILED) {
      (void)*static_cast<volatile std::uint32_t*>(p);  // a register read
      ::munmap(p, len);
    }
    const bool fits = off < a_.bar_bytes && len <= a_.bar_bytes - off;
    bool ok = err == 0;
    if (on_ro)
      ok = err == EACCES || err == EOVERFLOW;  // EOVERFLOW: the VFS's check of off + len
    else if (flags == MAP_PRIVATE || !fits)
      ok = err == EINVAL || err == EOVERFLOW;
    t_.add(on_ro ? "mmap(read-only fd)" : "mmap", err, ok, "unexpected result");
  }

  const arena& a_;
  int owner_, ro_;
  std::mt19937_64 rng_;
  tally& t_;
  std::deque<std::uint64_t> mine_;
};

void print_tally(const char* phase, tally& t, double seconds) {
  std::printf("fuzz %s: %llu calls in %.1f s:", phase,
              static_cast<unsigned long long>(t.calls.load()), seconds);
  for (const auto& [k, v] : t.counts)
    std::printf(" [%s %llu]", k.c_str(), static_cast<unsigned long long>(v));
  std::printf("\n");
  std::fflush(stdout);
}

/// One phase: `threads` fuzzers on `owner_fd` (and a read-only descriptor), a churn thread, and
/// `io`, when given, running beside them until they are done. Returns the calls made.
template <class Io>
std::uint64_t fuzz_phase(const char* phase, const std::string& path, int owner_fd,
                         std::uint64_t bar_bytes, std::uint64_t calls, unsigned threads,
                         std::uint64_t seed, Io io) {
  const int ro = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const arena a = make_arena(owner_fd, bar_bytes);
  tally t;
  std::atomic<bool> stop{false};
  const auto t0 = std::chrono::steady_clock::now();
  std::thread churner([&] { churn(a, stop); });
  std::thread io_thread([&] { io(stop); });
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i)
    pool.emplace_back([&, i] { fuzzer(a, owner_fd, ro, seed * 100 + i, t).run(calls / threads); });
  for (auto& th : pool)
    th.join();
  stop = true;
  churner.join();
  io_thread.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  print_tally(phase, t, s);
  check(t.counts["unexpected"] == 0, std::string("fuzz ") + phase + ": every result as documented");
  free_arena(a);
  ::close(ro);
  return t.calls;
}

}  // namespace

int run_fuzz(const std::string& path, std::uint64_t calls, unsigned threads) {
  const long long pins0 = pins_held();
  std::uint64_t done = 0;
  {
    // Phase 1: the controller stopped; UNMAP releases at once.
    kmod_device dev(path);
    done += fuzz_phase("(controller stopped)", path, dev.fd(), dev.info().bar_size, calls / 2,
                       threads, 1, [](const std::atomic<bool>&) {});
  }
  check(pins_held() == pins0, "fuzz: pins released after the stopped phase");
  {
    // Phase 2: the controller runs verified I/O while the fuzzers map, and unmap whatever handle
    // they hit, the I/O's own buffers and rings included: the module defers those, so every
    // block must still verify.
    kmod_controller kc(path);
    check(host_io_verified(kc, 150000, 50), "fuzz: verified I/O before the running phase");
    std::atomic<int> rounds{0}, bad{0};
    done +=
        fuzz_phase("(controller running I/O)", path, kc.device().fd(), kc.device().info().bar_size,
                   calls - calls / 2, threads, 2, [&](const std::atomic<bool>& stop) {
                     for (int i = 0; !stop.load() || i == 0; ++i) {
                       try {
                         if (!host_io_verified(kc, 151000 + (i % 8) * 512, 60 + i)) ++bad;
                       } catch (const std::exception& e) {
                         std::printf("FAIL fuzz I/O: %s\n", e.what());
                         ++bad;
                       }
                       ++rounds;
                     }
                   });
    check(bad == 0 && rounds > 0, "fuzz: " + std::to_string(rounds) +
                                      " rounds of verified I/O beside the fuzzers, " +
                                      std::to_string(bad) + " bad");
  }
  check(pins_held() == pins0, "fuzz: pins released after the running phase");
  check(done >= calls, "fuzz: " + std::to_string(done) + " calls in all");
  {
    kmod_controller kc(path);
    check(host_io_verified(kc, 156000, 70), "fuzz: verified I/O on a fresh owner afterwards");
  }
  check(pins_held() == pins0, "fuzz: pins released at the end");
  return failures();
}

}  // namespace bam::guest
