// bam/queue/read_ordering.hpp: API. How code that issues reads through a queue set takes part in
// the set's §4.4 ordering read, if it has one (ordered_queue_set, kmod_gpu_ordered_queue_set):
// the mark before a read is submitted, the wait after it completed. block_io, the cache's
// queue_storage_ref and nvm-block-bench's deep path go through these two calls.
#pragma once
#include <concepts>
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam {

/// A queue set whose reads are each followed by the ordering read of their SSD:
/// `ordering_mark(ssd)` before a read is submitted, `after_read(ssd, mark)` after it completed
/// and before its data is used (ordering_read_ref: the read covers the positions before its
/// mark).
template <class QueueSet>
concept ordered_reads = requires(const QueueSet& q, std::uint32_t ssd, std::uint64_t mark) {
  { q.ordering_mark(ssd) } -> std::same_as<std::uint64_t>;
  { q.after_read(ssd, mark) } -> std::same_as<bool>;
};

/// A set with an after_read but no ordering_mark: it would lose its ordering read unseen where
/// reads are issued, so read_mark and read_ordered refuse it.
template <class QueueSet>
concept half_ordered_reads =
    !ordered_reads<QueueSet> &&
    (
        requires(const QueueSet& q) { q.after_read(0u); } ||
        requires(const QueueSet& q) { q.after_read(0u, std::uint64_t{}); });

namespace detail {
/// Compiles only for a set that is not half ordered (read_mark and read_ordered call it).
template <class QueueSet>
BAM_HD constexpr void refuse_half_ordered() {
  static_assert(
      !half_ordered_reads<QueueSet>,
      "an ordered queue set takes the mark too: ordering_mark(ssd), after_read(ssd, mark)");
}
}  // namespace detail

/// The mark to take before a read of `ssd` is submitted (0 for a set without ordering).
template <class QueueSet>
BAM_HD std::uint64_t read_mark(const QueueSet& set, std::uint32_t ssd) {
  detail::refuse_half_ordered<QueueSet>();
  if constexpr (ordered_reads<QueueSet>)
    return set.ordering_mark(ssd);
  else
    return 0;
}

/// After a read of `ssd` completed without error: whether its data may be used (the ordering
/// read, covered by reads submitted after `mark` or by an extra one, completed; always true for
/// a set without ordering). False: the read fails (sc::host_timeout).
template <class QueueSet>
BAM_HD bool read_ordered(const QueueSet& set, std::uint32_t ssd, std::uint64_t mark) {
  detail::refuse_half_ordered<QueueSet>();
  if constexpr (ordered_reads<QueueSet>)
    return set.after_read(ssd, mark);
  else
    return true;
}

}  // namespace bam
