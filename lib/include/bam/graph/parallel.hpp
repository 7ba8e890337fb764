// bam/graph/parallel.hpp: API (detail). The threads of the graph loaders and generators and of
// the graph tools' CPU references: a dynamic parallel_for over items (std::thread, no pool), and
// the thread count a 0 means.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bam::graph::detail {

inline unsigned resolve_threads(unsigned threads) {
  if (threads != 0) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Calls fn(worker, i) for every i in [0, n), items handed out one at a time to
/// min(threads, n) threads numbered worker = 0, 1, ...; the first exception thrown stops the
/// hand-out and is rethrown here.
template <class F>
void parallel_for_workers(std::size_t n, unsigned threads, F&& fn) {
  const std::size_t t = std::min<std::size_t>(resolve_threads(threads), n);
  if (t <= 1) {
    for (std::size_t i = 0; i < n; ++i)
      fn(0u, i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&](unsigned worker) {
    try {
      for (std::size_t i = next.fetch_add(1); i < n && !stop.load(std::memory_order_relaxed);
           i = next.fetch_add(1)) {
        fn(worker, i);
      }
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(t - 1);
  for (std::size_t k = 1; k < t; ++k)
    pool.emplace_back(work, static_cast<unsigned>(k));
  work(0);
  for (auto& th : pool)
    th.join();
  if (error) std::rethrow_exception(error);
}

/// Calls fn(i) for every i in [0, n) (parallel_for_workers without the worker number).
template <class F>
void parallel_for(std::size_t n, unsigned threads, F&& fn) {
  parallel_for_workers(n, threads, [&](unsigned, std::size_t i) { fn(i); });
}

/// [begin, end) of block b of `blocks` equal blocks over n items.
inline std::size_t block_begin(std::size_t n, std::size_t blocks, std::size_t b) {
  return n / blocks * b + n % blocks * b / blocks;
}

}  // namespace bam::graph::detail
