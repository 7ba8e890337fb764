// bam/queue/queue_pair_ref.hpp: BaM's parallel NVMe queue pair, the handle threads use.
// Any number of host or GPU threads submit through one queue_pair_ref at once (BaM paper §3.3,
// dissertation ch. 5). Trivially copyable; pass it by value into kernels. Owned by queue_pair
// (host memory) or a GPU-side owner that lays out the same state in device memory.
#pragma once
#include <cuda/std/bit>

#include <cstdint>
#include <type_traits>

#include "bam/detail/atomic.hpp"
#include "bam/detail/clock.hpp"
#include "bam/detail/macros.hpp"
#include "bam/nvme/spec.hpp"
#include "bam/queue/doorbell.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam {

/// The lock-free submission/completion protocol over one SQ/CQ pair.
///
/// Submission: a thread takes a ticket t; its slot is t mod N and its turn t div N. It waits
/// until the slot's turn counter equals 2*turn (two increments per pass: one by the previous
/// enqueuer once the tail moved past its entry, one by the CQ-lock holder once the controller's
/// SQ head moved past it), takes a command ID (t mod the pool's size when free, else any free
/// one), writes the entry, sets the slot's tail marker and competes for the tail lock. The holder
/// moves the tail over every consecutive marked slot (never further than N-1 entries ahead of the
/// SQ head) and rings the doorbell once for all of them.
///
/// Each lock shares a word with the position it guards (queue_counters::sq_tail, cq_head: the
/// position times 2, plus 1 while held): a thread that finds it free takes it by one
/// read-modify-write, which returns the position, and leaves the new position with its unlock.
///
/// Completion: whoever holds the CQ lock moves the head over every posted entry, copying each
/// into its command ID's box (`completion_box`) and setting the box ready; it advances the SQ
/// head to the SQHD of the last entry passed (second turn-counter increment for every SQ slot
/// passed) and rings the CQ doorbell once. A waiter polls only its own box, and helps: when the
/// entry at the head is posted it tries the CQ lock. So a thread may have any number of
/// commands in flight and wait for them in any order, and an entry whose waiter is late or gone
/// never holds up the others. The waiter frees its ID after emptying the box. Every thread that
/// waits for the queue (for a turn, an ID, the tail, a completion) helps the same way, so the CQ
/// drains as long as anyone uses the queue. The IDs are what bounds it: a thread that holds
/// completed but uncollected commands while it submits more holds their IDs, so the threads of
/// one queue together must keep at most cid_count commands in flight, or submitters wait for IDs
/// that only they could free (ended, like every wait, by the timeout: the queue fails).
///
/// Deadlines: wait_for gives up after its timeout and returns sc::host_timeout, marking the box
/// abandoned with one read-modify-write of the box's state: exactly one of the waiter and the
/// holder sees the other's bit, so either the waiter takes a completion that just arrived, or the
/// holder, passing the late completion, frees the ID on the waiter's behalf. Until then
/// abandoned(cid) holds: the controller may still move the command's data. On a queue whose
/// owner reclaims late IDs (host queues under a recovery watchdog, set_owner_reclaims), the
/// holder leaves the late completion's ID reserved instead (abandoned() turns false: the data
/// moved) and the owner frees it (reclaim) when it next looks: an ID the owner may still name in
/// an Abort is never handed to a new command in the meantime. Submission waits (for
/// the slot's turn, a command ID, the tail) end when the queue made no progress (SQ and CQ heads
/// unchanged) for the timeout: the submitter then fails the queue.
///
/// Failure: fail() marks the queue failed (a stalled submission, too many abandoned IDs, a
/// completion that cannot be right: an SQHD past the tail, or an ID not in flight). Every later
/// submission returns no_cid and every wait returns sc::host_queue_failed at once, abandoning
/// its ID (its command may still be live). Nothing here undoes that: the owner resets the queue
/// on both sides (deletes and recreates it at the controller, or resets the controller; then
/// clears this bookkeeping) while no thread uses it. On the host, "no thread uses it" is counted:
/// `users` holds the threads in a submission plus the command IDs handed out and not yet
/// waited for; a thread that enters a failed queue leaves at once. queue_pair::quiesce fails the
/// queue and waits for the count to reach 0 (io_queue_pair::recover, bam::queue_recovery).
///
/// Memory order: entries are published with release stores of the marker / doorbell / DW3
/// word and read after the matching acquire loads. Bookkeeping words (tickets, turn counters,
/// markers, locks, boxes) use `Scope`: thread_scope_device when only GPU threads (or only host
/// threads) use the queue. Doorbells and completion entries are at the controller's scope,
/// `Doorbell::scope`: system for memory_doorbell and mmio_doorbell (the controller is another
/// agent), device for device_doorbell (a controller engine on the same GPU).
template <class Doorbell = memory_doorbell, cuda::thread_scope Scope = cuda::thread_scope_device>
class queue_pair_ref {
 public:
  template <class T>
  using ref_t = cuda::atomic_ref<T, Scope>;

  /// What submit returns when the queue failed before the command was enqueued (0xffff is
  /// reserved by the specification, never in the pool). wait(no_cid) returns
  /// sc::host_queue_failed at once.
  static constexpr std::uint16_t no_cid = 0xffff;

  queue_pair_ref() = default;
  BAM_HD explicit queue_pair_ref(const queue_pointers& p) : p_(p) {
    static_assert(std::is_trivially_copyable_v<queue_pair_ref>, "kernels take it by value");
  }

  /// Allocates a command ID, enqueues `cmd` (its cid field is overwritten), rings the doorbell
  /// (coalesced with concurrent submitters) and waits for its completion, which it returns.
  BAM_HD nvme::completion submit_and_wait(nvme::command cmd) const {
    return submit_and_wait(cmd, 0);
  }

  /// As submit_and_wait, but each wait is bounded by `timeout_ns` (0: never): the completion
  /// wait returns an entry with status sc::host_timeout and the command's ID; a submission
  /// stalled that long fails the queue (sc::host_queue_failed).
  BAM_HD nvme::completion submit_and_wait(nvme::command cmd, std::uint64_t timeout_ns) const {
    const std::uint16_t cid = submit(cmd, timeout_ns);
    return wait_for(cid, timeout_ns);
  }

  /// submit_and_wait as a function of its own in device code (BAM_NOINLINE), for a slow path
  /// inlined into its caller (the cache's miss path, the ordering read): the caller's kernel
  /// then does not carry the submission's and the wait's registers (docs/cache.md,
  /// "Registers"). A loop that does nothing but I/O (nvm-block-bench) calls the inline form:
  /// as a call it lost 10 % at 512 B (H200). `alone`: the caller has the queue to itself (the
  /// ordering read's lock holder on its drive's ordering queue), so its wait sleeps at most about
  /// one command's time between polls (32 ns), where a shared queue's waiter without registers
  /// to spare sleeps up to 1 us (about 2 us of real sleep on the H200); a hint: another thread on
  /// the queue only makes it poll more often. A flag, not a second function: a kernel that calls
  /// both the ordering read and a miss path would carry two out-of-line submissions (taxi-query's
  /// array kernel 1.3 % slower on ideal drives with them, H200; docs/gpu-engine.md, "The ordering
  /// read's waiter").
  BAM_HD BAM_NOINLINE nvme::completion submit_and_wait_outlined(nvme::command cmd,
                                                                std::uint64_t timeout_ns,
                                                                bool alone = false) const {
    // Narrow batches: the wide ones' arrays would count in every calling kernel's registers
    // (ptxas allocates a called function's registers in its callers).
    return finish<narrow>(enqueue<narrow>(cmd, timeout_ns), timeout_ns, alone);
  }

  /// First half of submit_and_wait: enqueues `cmd` (its cid field is overwritten) and returns
  /// the command ID to pass to wait(); no_cid when the queue failed. `timeout_ns`: fail the queue
  /// after it made no progress that long while this submission waits (0: never).
  BAM_HD std::uint16_t submit(nvme::command& cmd, std::uint64_t timeout_ns = 0) const {
    return enqueue(cmd, timeout_ns);
  }

  /// Second half: waits for the completion of `cid` and returns it; the ID is free again.
  BAM_HD nvme::completion wait(std::uint16_t cid) const { return wait_for(cid, 0); }

  /// Second half with a timeout (0: wait forever); see the class comment for what happens to
  /// the command ID of a command that timed out.
  BAM_HD nvme::completion wait_for(std::uint16_t cid, std::uint64_t timeout_ns) const {
    return finish<wide>(cid, timeout_ns);
  }

  /// Gives up on `cid` without waiting (e.g. its caller unwinds between submit and wait): its
  /// completion, when it arrives, is passed by the queue and frees the ID; until then
  /// abandoned(cid) holds. Not counted as a timeout.
  BAM_HD void abandon(std::uint16_t cid) const {
    if (cid == no_cid) return;
    (void)give_up(cid, nvme::sc::abort_requested);
    leave();
  }

  /// Moves the CQ head over the completions posted so far, if no other thread is doing it: the
  /// late completions of abandoned commands free their IDs (a queue passes them only while some
  /// thread waits on it). For the queue's owner (its recovery watchdog), which resets the queue
  /// itself and so is not counted as a user, and for a thread that waits for its abandoned
  /// command's ID to come back with nobody else on the queue. True when it took the CQ lock (the
  /// head moved, or nothing new was posted after all).
  BAM_HD bool poll() const { return help_head(); }

  /// Without waiting: true once the completion of `cid` (submitted by this thread, not yet
  /// waited for) is in its box, so that wait(cid) returns it at once. Moves the CQ head first if
  /// no other thread is doing it, as a waiter does.
  BAM_HD bool completed(std::uint16_t cid) const {
    if (cid >= p_.cid_count) return false;
    ref_t<std::uint32_t> state(p_.boxes[cid].state);
    if ((state.load(acquire) & box_ready) != 0) return true;
    (void)help_head();
    return (state.load(acquire) & box_ready) != 0;
  }

  /// True once the queue was failed: every later submission and wait returns
  /// sc::host_queue_failed at once, until the owner resets the queue.
  BAM_HD bool failed() const {
    return ref_t<std::uint32_t>(p_.counters->failed).load(acquire) != 0;
  }

  /// Fails the queue (see the class comment). Idempotent.
  BAM_HD void fail() const {
    ref_t<std::uint64_t>(p_.counters->failures).fetch_add(1, relaxed);
    ref_t<std::uint32_t>(p_.counters->failed).store(1, release);
  }

  /// True while a command with ID `cid` that timed out may still be completed (and move data)
  /// by the controller: its late completion has not been passed, and the queue has not been
  /// reset. Memory the command named must not be reused while this holds. False for no_cid
  /// (nothing was enqueued).
  BAM_HD bool abandoned(std::uint16_t cid) const {
    if (cid >= p_.cid_count) return false;
    const std::uint32_t st = ref_t<std::uint32_t>(p_.boxes[cid].state).load(acquire);
    return (st & box_abandoned) != 0 && (st & box_ready) == 0;
  }

  // ---- the owner's (host recovery watchdog's) side of abandoned IDs ------------------------

  /// Host owner only: whether the CQ-lock holder leaves the IDs of late completions reserved
  /// for the owner to reclaim (on) or frees them itself (off, the default). Switched under the
  /// CQ lock, so that no holder that read the old setting is still passing entries; switching
  /// off frees every ID left reserved. Not while another thread reclaims or resets the queue.
  void set_owner_reclaims(bool on) const {
    backoff bo;
    std::uint64_t head = 0;
    while (!lock_position(p_.counters->cq_head, head_word(), head))
      bo.pause();
    ref_t<std::uint32_t>(p_.counters->owner_reclaims).store(on ? 1 : 0, relaxed);
    unlock_position(p_.counters->cq_head, head);
    if (!on) {
      for (std::uint32_t id = 0; id < p_.cid_count; ++id)
        (void)reclaim(static_cast<std::uint16_t>(id));
    }
  }

  /// The owner (one thread at a time): frees `cid` if its command was abandoned and its late
  /// completion has been passed, i.e. the ID is reserved (true); otherwise changes nothing
  /// (false: the ID is free, in use, or its command still with the controller).
  BAM_HD bool reclaim(std::uint16_t cid) const {
    if (cid >= p_.cid_count) return false;
    ref_t<std::uint32_t> state(p_.boxes[cid].state);
    if (state.load(acquire) != (box_ready | box_abandoned)) return false;
    state.store(0, relaxed);
    release_cid(cid);  // release: the box is empty for the ID's next user
    ref_t<std::uint32_t>(p_.counters->abandoned).fetch_sub(1, relaxed);
    return true;
  }

  BAM_HD std::uint16_t qid() const { return p_.qid; }
  BAM_HD std::uint32_t sq_entries() const { return p_.sq_entries; }
  BAM_HD std::uint32_t cq_entries() const { return p_.cq_entries; }
  BAM_HD const queue_pointers& pointers() const { return p_; }

 private:
  /// A thread's hold on the queue (bam/queue/queue_hold.hpp) keeps the words below as this
  /// protocol leaves them.
  template <class, cuda::thread_scope, bool>
  friend class queue_hold;

  /// sc::host_timeout as a value device code may compare with (no reference to the host object).
  static constexpr nvme::status timeout_status{nvme::sc::host_timeout.sct,
                                               nvme::sc::host_timeout.sc};
  /// How many SQ markers the tail-lock holder reads at once, how many CQ entries the CQ-lock
  /// holder passes at once, their loads in flight together, and of those how many entries' ID
  /// bits and words it reads at once (3 registers each, live together). Wide is the default;
  /// narrow is for submit_and_wait_outlined, the slow path of kernels that keep their own state
  /// (the cache's miss path), whose registers the wide arrays would raise (docs/gpu-engine.md,
  /// "Batched holders" and "Holders in registers": chunks of 8 there cost the hot cache kernel
  /// 24 % through spills). `spare`: the caller has registers to spare for the steps that save a
  /// round trip by keeping a value live (a waiter that holds the CQ lock takes its own completion
  /// when it is the only entry it passes, as at QD1; a tail holder sees its own entry passed by
  /// its ticket; the CQ holder reads the SQ positions with its other loads). In the narrow batches
  /// the last two each raised the hot cache kernel's spills (ptxas: 224 bytes of stores before,
  /// 296 with the tail check, 308 with the early SQ reads; docs/gpu-engine.md, "QD1").
  struct batches {
    std::uint32_t tail, head, chunk;
    bool spare;
  };
  static constexpr batches wide{16, 32, 8, true};
  static constexpr batches narrow{8, 8, 1, false};

  /// A waiter's own command, for move_head: when the holder passes its completion as the only
  /// entry of a batch (an ID in flight; QD1), it takes the entry's words here instead of filling
  /// the box; `got` says it did. (Looking for it among every entry of a batch cost the 128-queue
  /// `null` point 3 %: docs/gpu-engine.md, "QD1".)
  struct own_entry {
    std::uint16_t cid = no_cid;  ///< no_cid: the holder waits for nothing (no ID matches)
    bool got = false;
    std::uint32_t dw0 = 0, dw1 = 0, dw3 = 0;
  };

  /// GPU: sleep per pass that a waiting submitter is still behind (see enqueue).
  static constexpr std::uint32_t turn_sleep_per_pass_ns = 1000;
  /// GPU: a waiter's sleep ceiling per command its queue holds (see await, sleep_cap).
  static constexpr unsigned wait_sleep_per_command_ns = 32;

  // ---- deadlines -----------------------------------------------------------------------------
  /// Watches a submitter's wait: expired once the queue failed, or when neither the SQ head nor
  /// the CQ head moved for `timeout_ns` (0: only a failed queue ends the wait). Progress, not the
  /// wait's length, decides: a thread far behind in a long line of submitters is not stalled.
  struct stall_watch {
    std::uint64_t timeout_ns = 0, since = 0, seen = 0;
    BAM_HD bool expired(const queue_pair_ref& q) {
      if (q.failed()) return true;
      if (timeout_ns == 0) return false;
      const std::uint64_t v =
          ref_t<std::uint64_t>(q.p_.counters->sq_head).load(relaxed) +
          position_of(ref_t<std::uint64_t>(q.p_.counters->cq_head).load(relaxed));
      const std::uint64_t t = now_ns();
      if (since == 0 || v != seen) {
        seen = v;
        since = t;
        return false;
      }
      return t - since >= timeout_ns;
    }
  };

  // ---- users (host threads: see the class comment) ------------------------------------------
  /// Host threads: counts the caller in; false (not counted) when the queue failed. The count's
  /// increment and the load of the failed mark are sequentially consistent, as are quiesce's
  /// store of the mark and its loads of the count: either the thread sees the mark, or quiesce
  /// sees the thread. (GPU threads are not counted: enqueue looks at the mark itself.)
  bool enter() const {
    ref_t<std::uint32_t> users(p_.counters->users);
    users.fetch_add(1, cuda::memory_order_seq_cst);
    if (ref_t<std::uint32_t>(p_.counters->failed).load(cuda::memory_order_seq_cst) == 0)
      return true;
    users.fetch_sub(1, release);
    return false;
  }
  BAM_HD void leave() const {
#if !BAM_DEVICE_CODE
    ref_t<std::uint32_t>(p_.counters->users).fetch_sub(1, release);
#endif
  }

  /// wait_for with the holders' batches `B`; `alone` as submit_and_wait_outlined's.
  template <batches B>
  BAM_HD nvme::completion finish(std::uint16_t cid, std::uint64_t timeout_ns,
                                 bool alone = false) const {
    if (cid == no_cid) return failed_entry(cid, nvme::sc::host_queue_failed);
    const nvme::completion c = await<B>(cid, timeout_ns, alone);
    leave();  // the ID is this thread's no more (collected, or abandoned)
    return c;
  }

  /// wait_for without the count: polls the box of `cid` until its completion, the deadline or
  /// the queue's failure. `alone`: the sleep ceiling is one command's, without a look at the
  /// queue (submit_and_wait_outlined's).
  template <batches B = wide>
  BAM_HD nvme::completion await(std::uint16_t cid, std::uint64_t timeout_ns,
                                [[maybe_unused]] bool alone = false) const {
    const std::uint64_t deadline = timeout_ns == 0 ? ~std::uint64_t{0} : now_ns() + timeout_ns;
    ref_t<std::uint32_t> state(p_.boxes[cid].state);
    // On the device, the waiter's sleep grows to about wait_sleep_per_command_ns per command
    // the queue holds (its tickets past the CQ head), backoff's default 1 us at most: a thread
    // alone on its queue (QD1) sees its completion within about 64 ns of real sleep instead of up
    // to 2 us, and a busy queue's waiters poll as before. Only where registers are spare (the
    // narrow batches' kernels keep their own state); the host's back-off takes no ceiling.
#if BAM_DEVICE_CODE
    const std::uint64_t held =
        alone ? 1
        : B.spare
            ? ref_t<std::uint64_t>(p_.counters->sq_ticket).load(relaxed) - position_of(head_word())
            : ~std::uint64_t{0};
    backoff bo(sleep_cap(held));
#else
    backoff bo;
#endif
    for (;;) {
      // Polled relaxed on the device, with one acquire fence once the box is ready (an acquire
      // load is a fence each time); the box, the CQ head and the failed mark (nothing it
      // publishes is read here) with their loads in flight together.
      const std::uint32_t st = state.load(device_relaxed(acquire));
      const std::uint64_t head = head_word();
      const bool failed_now =
          ref_t<std::uint32_t>(p_.counters->failed).load(device_relaxed(acquire)) != 0;
      if ((st & box_ready) != 0) {
#if BAM_DEVICE_CODE
        cuda::atomic_thread_fence(acquire, Scope);
#endif
        return collect(cid);
      }
      // A waiter that holds the CQ lock takes its own completion as it passes it (own_entry):
      // no box, no second look.
      own_entry own{B.spare ? cid : no_cid};
      if (help_head_at<B>(head, own)) {
        if (B.spare && own.got) return take_own(own);
        continue;
      }
      if (failed_now) return give_up(cid, nvme::sc::host_queue_failed);
      if (deadline != ~std::uint64_t{0} && now_ns() >= deadline)
        return give_up(cid, nvme::sc::host_timeout);
      bo.pause();
    }
  }

  /// A waiter's sleep ceiling with `held` commands in its queue (see await). The ticket and the
  /// head are read relaxed, in no set order: a head read past the ticket read wraps to a huge
  /// count, which reads as a busy queue (the default ceiling).
  BAM_HD static unsigned sleep_cap(std::uint64_t held) {
    constexpr std::uint64_t busy = backoff::default_max_ns / wait_sleep_per_command_ns;
    if (held >= busy) return backoff::default_max_ns;
    return static_cast<unsigned>(held == 0 ? 1 : held) * wait_sleep_per_command_ns;
  }

  BAM_HD static nvme::completion failed_entry(std::uint16_t cid, nvme::status st) {
    nvme::completion c{};
    c.cid = cid;
    c.sf = static_cast<std::uint16_t>(nvme::completion::make_dw3(cid, false, st) >> 16);
    return c;
  }

  /// A waiter's own completion, taken by the waiter itself as CQ-lock holder (move_head): its box
  /// was never written. Free the ID (on the device relaxed: nothing of the box to publish).
  BAM_HD nvme::completion take_own(const own_entry& own) const {
    const nvme::completion c = entry_of(own.dw0, own.dw1, own.dw3);
    release_cid(own.cid, device_relaxed(release));
    return c;
  }

  /// The completion a waiter gets: the entry's DW0, DW1 and DW3, and this queue's SQ ID.
  BAM_HD nvme::completion entry_of(std::uint32_t dw0, std::uint32_t dw1, std::uint32_t dw3) const {
    nvme::completion c{};
    c.dw0 = dw0;
    c.dw1 = dw1;
    reinterpret_cast<std::uint32_t*>(&c)[nvme::completion_dw3_index] = dw3;
    c.sqid = p_.qid;
    return c;
  }

  /// The box of `cid` is ready: take the completion, empty the box, free the ID.
  BAM_HD nvme::completion collect(std::uint16_t cid) const {
    completion_box& b = p_.boxes[cid];
    const nvme::completion c = entry_of(b.dw0, b.dw1, b.dw3);
    ref_t<std::uint32_t>(b.state).store(0, relaxed);
    release_cid(cid);  // release: the box is empty for the ID's next user
    return c;
  }

  /// The wait for `cid` ends without its completion (timeout, failed queue, abandon): mark the
  /// box abandoned; if the completion arrived meanwhile, take it after all.
  BAM_HD nvme::completion give_up(std::uint16_t cid, nvme::status st) const {
    // Counted before the box says so: whoever frees the ID after seeing the abandoned bit
    // (the CQ holder, the watchdog's reclaim) then never takes the count below zero.
    ref_t<std::uint32_t> outstanding(p_.counters->abandoned);
    const std::uint32_t lost = outstanding.fetch_add(1, relaxed) + 1;
    const std::uint32_t old =
        ref_t<std::uint32_t>(p_.boxes[cid].state).fetch_or(box_abandoned, acq_rel);
    if ((old & box_ready) != 0) {
      outstanding.fetch_sub(1, relaxed);
      return collect(cid);
    }
    if (st.sct == timeout_status.sct && st.sc == timeout_status.sc)
      ref_t<std::uint64_t>(p_.counters->timeouts).fetch_add(1, relaxed);
    // Too many IDs held by commands that never completed: the pool would run dry.
    if (lost > p_.cid_count / 2) fail();
    return failed_entry(cid, st);
  }

  // ---- command IDs ---------------------------------------------------------------------------
  /// Takes a free command ID, preferring `preferred` (the ticket's own, so that threads never
  /// contend for one allocation cursor), else any free ID, scanning the pool from there; no_cid
  /// when `watch` expires first. Called only by a thread whose SQ turn has come: at most N-1
  /// threads look for IDs at once, however many wait for turns. (An earlier design took the ID
  /// before the ticket, from a shared cursor; past 2N threads every waiting thread spun on that
  /// cursor with two atomic read-modify-writes per try and a single queue fell from 0.7 M to
  /// 0.04 M IOPS at 64K threads.)
  template <batches B>
  BAM_HD std::uint16_t acquire_cid(std::uint32_t preferred, stall_watch& watch) const {
    const std::uint32_t words = p_.cid_count / 32;
    {
      // The preferred ID is usually free (each ticket prefers its own): one read-modify-write,
      // without a load before it (setting a bit already set changes nothing).
      const std::uint32_t b = 1u << (preferred % 32);
      if ((ref_t<std::uint32_t>(p_.cid_bits[preferred / 32]).fetch_or(b, acquire) & b) == 0)
        return static_cast<std::uint16_t>(preferred);
    }
    backoff bo;
    for (;;) {
      std::uint32_t word = preferred / 32;
      std::uint32_t want = 1u << (preferred % 32);
      for (std::uint32_t w = 0; w < words; ++w) {
        ref_t<std::uint32_t> bits(p_.cid_bits[word]);
        std::uint32_t free_bits = ~bits.load(relaxed);
        while (free_bits != 0) {
          const std::uint32_t b = (free_bits & want) != 0 ? want : free_bits & (0u - free_bits);
          const std::uint32_t old = bits.fetch_or(b, acquire);
          if ((old & b) == 0)
            return static_cast<std::uint16_t>(
                word * 32 + static_cast<std::uint32_t>(cuda::std::countr_zero(b)));
          free_bits = ~old & ~b;
        }
        want = 0;
        if (++word == words) word = 0;
      }
      if (help_head<B>()) continue;  // every ID in use: completions free them
      if (watch.expired(*this)) return no_cid;
      bo.pause();
    }
  }
  /// Frees `id`; `order` release by default: what the ID's user wrote (its box emptied) is
  /// seen by its next user.
  BAM_HD void release_cid(std::uint16_t id, memory_order order = release) const {
    ref_t<std::uint32_t>(p_.cid_bits[id / 32]).fetch_and(~(1u << (id % 32)), order);
  }
  BAM_HD bool cid_in_use(std::uint16_t id) const {
    return (ref_t<std::uint32_t>(p_.cid_bits[id / 32]).load(relaxed) & (1u << (id % 32))) != 0;
  }

  // ---- locks ---------------------------------------------------------------------------------
  /// Takes the lock of a position word (queue_counters::sq_tail, cq_head): true, with the
  /// position it guards in `position` (the read-modify-write returns it: no load after taking the
  /// lock). False when another thread holds it, without a read-modify-write when the caller's
  /// last look at the word, `seen`, already showed it held.
  BAM_HD static bool lock_position(std::uint64_t& word, std::uint64_t seen,
                                   std::uint64_t& position) {
    if (position_locked(seen)) return false;
    const std::uint64_t old = ref_t<std::uint64_t>(word).fetch_or(position_lock, acquire);
    position = position_of(old);
    return !position_locked(old);
  }
  /// Releases a position word's lock, leaving `position`.
  BAM_HD static void unlock_position(std::uint64_t& word, std::uint64_t position) {
    ref_t<std::uint64_t>(word).store(position_word(position, false), release);
  }

  // ---- submission ----------------------------------------------------------------------------
  /// Takes a ticket, waits for the slot's turn, takes a command ID, writes the entry and sees
  /// the tail past it. Returns the command ID, or no_cid when the queue failed before the entry
  /// was written (after that, the ID: its wait reports the failure). A host caller is counted as a
  /// user from here until the wait for the ID returns (not at all for no_cid); on the GPU a
  /// submission that finds the queue failed has taken a ticket (`queue_stats::submitted`).
  template <batches B = wide>
  BAM_HD std::uint16_t enqueue(nvme::command& cmd, std::uint64_t timeout_ns) const {
#if BAM_DEVICE_CODE
    // The ticket and the failed mark with their loads in flight together (one round trip, not
    // two; GPU threads are not counted as users). A ticket taken from a failed queue is never
    // used: the queue stays failed until its owner resets it, which zeroes the tickets.
    const std::uint64_t ticket = ref_t<std::uint64_t>(p_.counters->sq_ticket).fetch_add(1, relaxed);
    if (ref_t<std::uint32_t>(p_.counters->failed).load(relaxed) != 0) return no_cid;
#else
    if (!enter()) return no_cid;
    const std::uint64_t ticket = ref_t<std::uint64_t>(p_.counters->sq_ticket).fetch_add(1, relaxed);
#endif
    const auto slot = static_cast<std::uint32_t>(ticket % p_.sq_entries);
    const auto turn = static_cast<std::uint32_t>(ticket / p_.sq_entries);
    stall_watch watch{timeout_ns};

    // Wait for the previous occupant of the slot to be both submitted and fetched.
    ref_t<std::uint32_t> turn_counter(p_.turn_counters[slot]);
    backoff bo;
    for (std::uint32_t seen; (seen = turn_counter.load(acquire)) != 2 * turn;) {
      if (watch.expired(*this)) {
        fail();  // our ticket will never be used: the slot's later turns cannot come
        leave();
        return no_cid;
      }
#if BAM_DEVICE_CODE
      // A thread several passes behind (64K threads on 1024 slots wait up to 64 passes) sleeps
      // in proportion to the passes ahead of it instead of polling every microsecond: the
      // polling of the far-behind threads slowed the whole queue by 20-30 % at 64K-256K threads
      // (H200, single queue pair); with this it stays within 0.70-0.88 M IOPS up to 1M threads.
      const std::uint32_t ahead = turn - seen / 2;
      if (ahead > 1 && ahead < 0x10000u) {
        __nanosleep((ahead < 64 ? ahead : 64) * turn_sleep_per_pass_ns);
        continue;
      }
#endif
      // Next in line: the slot frees when the controller's fetch of it is seen in a completion.
      if (help_head<B>()) continue;
      bo.pause();
    }

    cmd.cid = acquire_cid<B>(static_cast<std::uint32_t>(ticket % p_.cid_count), watch);
    if (cmd.cid == no_cid) {
      fail();
      leave();
      return no_cid;
    }
    p_.sq[slot] = cmd;
    ref_t<std::uint32_t> marker(p_.tail_markers[slot]);
    marker.store(1, release);

    // Until some tail-lock holder has moved the tail past our slot, try to be that holder. The
    // holder's clear of our marker publishes nothing we read: a relaxed look is enough. The
    // marker and the tail's word are loaded together (one round trip), and the lock, when free,
    // is taken by one read-modify-write that returns the tail. With registers to spare, a holder
    // that moved the tail past `ticket` (virtual tail position v is ticket v's entry) needs no
    // look after.
    backoff bo_tail;
    ref_t<std::uint64_t> tail_word(p_.counters->sq_tail);
    for (;;) {
      const std::uint32_t mark = marker.load(device_relaxed(acquire));
      const std::uint64_t seen = tail_word.load(relaxed);
      if (mark == 0) break;
      if (std::uint64_t tail = 0; lock_position(p_.counters->sq_tail, seen, tail)) {
        tail = move_tail<B.tail>(tail);
        unlock_position(p_.counters->sq_tail, tail);
        if ((B.spare && tail > ticket) || marker.load(device_relaxed(acquire)) == 0) break;
      }
      if (help_head<B>()) continue;  // a full SQ empties as completions are passed
      if (watch.expired(*this)) {
        fail();  // the entry may still go out: its wait reports the failure, ID abandoned
        return cmd.cid;
      }
      bo_tail.pause();
    }
    // First of the slot's two increments for this pass. The slot's next occupant waits for both,
    // and what it needs (our entry fetched, our marker cleared) reaches it through the second, a
    // release by the CQ-lock holder that passed our completion: this one may be relaxed (on the
    // device; a relaxed read-modify-write continues the other's release sequence whichever
    // comes first).
    turn_counter.fetch_add(1, device_relaxed(release));
    return cmd.cid;
  }

  /// Tail-lock holder: moves the tail over consecutive marked slots and rings the doorbell once.
  /// Markers are read `Batch` at a time (`batches`), their loads in flight together: one after
  /// another, a dependent load per slot, held one queue pair's tail to about 2-3 M slots/s
  /// (docs/gpu-engine.md, "Batched holders"). Every loop over a batch runs to `Batch` with a
  /// constant index (a predicate, not a shorter trip count), so the batch stays in registers: an
  /// array indexed by a run-time count lives in local memory on the GPU, where each loaded value's
  /// store waits for its load and the loads went one round trip after another ("Holders in
  /// registers"). On the device markers are read and cleared relaxed and one fence after the loop
  /// orders the entries they publish before the doorbell (a release per slot cost one fence each:
  /// "Fences"). `tail`: the virtual tail the lock guarded (lock_position). Returns the virtual
  /// tail it left, which the caller's unlock stores.
  template <std::uint32_t Batch>
  BAM_HD std::uint64_t move_tail(std::uint64_t tail) const {
    static_assert(Batch > 0, "a batch reads at least one marker");
    queue_counters& c = *p_.counters;
    // The SQ head only bounds the room (nothing it publishes is read here): an old value
    // understates the room, so on the device it is read relaxed (an acquire is a fence). It is
    // loaded with the first batch's markers (one round trip); markers past the room are not
    // counted.
    std::uint64_t head = ref_t<std::uint64_t>(c.sq_head).load(device_relaxed(acquire));
    const std::uint64_t start = tail;
    std::uint32_t slot = static_cast<std::uint32_t>(tail % p_.sq_entries);
    for (;;) {
      std::uint32_t marker[Batch];
      BAM_UNROLL
      for (std::uint32_t k = 0, s = slot; k < Batch; ++k) {
        marker[k] = ref_t<std::uint32_t>(p_.tail_markers[s]).load(device_relaxed(acquire));
        if (++s == p_.sq_entries) s = 0;
      }
      // A full SQ holds N-1 entries: tail == head would read as empty to the controller.
      if (tail - head >= p_.sq_entries - 1) {
        head = ref_t<std::uint64_t>(c.sq_head).load(device_relaxed(acquire));
        if (tail - head >= p_.sq_entries - 1) break;
      }
      const std::uint64_t room = p_.sq_entries - 1 - (tail - head);
      const std::uint32_t want = room < Batch ? static_cast<std::uint32_t>(room) : Batch;
      std::uint32_t n = 0;  // marked slots from `slot` on, at most `want`
      BAM_UNROLL
      for (std::uint32_t k = 0; k < Batch; ++k) {
        if (k == want || marker[k] == 0) break;
        ++n;
      }
      BAM_UNROLL
      for (std::uint32_t k = 0; k < Batch; ++k) {
        if (k < n) {
          ref_t<std::uint32_t>(p_.tail_markers[slot]).store(0, device_relaxed(release));
          if (++slot == p_.sq_entries) slot = 0;
        }
      }
      tail += n;
      if (n < want) break;
    }
    if (tail == start) return tail;
    // The one fence orders the entries the markers published (acquired from them) and the tail
    // (in its word, still locked: the CQ-lock holder's check of an SQHD reads it) before the
    // doorbell. The lock's release store (the caller's unlock, a fence of its own)
    // then orders this doorbell before the next holder's: after a relaxed unlock the doorbell,
    // written after this fence, could land after a later holder's and move the tail back.
    ref_t<std::uint64_t>(c.sq_tail).store(position_word(tail, true), device_relaxed(release));
#if BAM_DEVICE_CODE
    cuda::atomic_thread_fence(acq_rel, Scope);
#endif
    Doorbell::template ring_after_fence<Scope>(p_.sq_doorbell, slot);
    ref_t<std::uint64_t>(c.sq_doorbell_writes).fetch_add(1, relaxed);
    return tail;
  }

  // ---- completion ----------------------------------------------------------------------------
  /// Completion words are written by the controller: accessed at its scope.
  using cq_ref = cuda::atomic_ref<std::uint32_t, Doorbell::scope>;

  BAM_HD std::uint32_t& cqe_dw3(std::uint32_t slot) const {
    return reinterpret_cast<std::uint32_t*>(p_.cq + slot)[nvme::completion_dw3_index];
  }
  /// Phase of entries written in pass k of the ring: 1 for even k, 0 for odd k.
  BAM_HD bool phase_at(std::uint64_t pos) const {
    return ((pos / p_.cq_entries) & 1) == 0;
  }

  /// The slots an SQHD of `sqhd` moves the SQ head past from the virtual head `sq_head` (an
  /// SQHD that is not a slot gives a count release_sq_slots refuses).
  BAM_HD std::uint32_t sq_advance(std::uint32_t sqhd, std::uint64_t sq_head) const {
    const auto old_slot = static_cast<std::uint32_t>(sq_head % p_.sq_entries);
    return sqhd >= old_slot ? sqhd - old_slot : sqhd + p_.sq_entries - old_slot;
  }

  /// CQ-lock holder, after passing entries up to one whose SQHD is `sqhd`: releases the SQ slots
  /// the controller fetched since `sq_head` (each slot's second turn-counter increment) and moves
  /// the SQ head there. False, releasing nothing, when the SQHD cannot be right: not a slot, or
  /// past the tail `sq_tail` (the controller cannot have fetched what was not submitted). On the
  /// device the release fence before the boxes' ready bits (move_head, after the last CQ entry
  /// was read) orders these stores: one fence, not one per slot.
  BAM_HD bool release_sq_slots(std::uint32_t sqhd, std::uint64_t sq_head,
                               std::uint64_t sq_tail) const {
    const auto old_slot = static_cast<std::uint32_t>(sq_head % p_.sq_entries);
    const std::uint32_t advance = sq_advance(sqhd, sq_head);
    if (sqhd >= p_.sq_entries || advance > sq_tail - sq_head) return false;
    if (advance == 0) return true;
    for (std::uint32_t i = 0, s = old_slot; i < advance; ++i) {
      ref_t<std::uint32_t>(p_.turn_counters[s]).fetch_add(1, device_relaxed(release));
      if (++s == p_.sq_entries) s = 0;
    }
    ref_t<std::uint64_t>(p_.counters->sq_head).store(sq_head + advance, device_relaxed(release));
    return true;
  }

  /// The SQ tail, for the CQ-lock holder's check of an SQHD. Relaxed on the device: the acquire
  /// fence after the DW3 of the entry that carried the SQHD orders this load after the tail
  /// holder's store of the tail it rang (the doorbell's ring is a release after that store; the
  /// controller reads the doorbell and then fences before it fetches up to that SQHD, and
  /// releases the entry after).
  BAM_HD std::uint64_t sq_tail_for_sqhd_check() const {
    return position_of(ref_t<std::uint64_t>(p_.counters->sq_tail).load(device_relaxed(acquire)));
  }

  /// The CQ head's word (head and lock) as a hint (the holder's lock returns the head itself):
  /// relaxed on the device, where every waiter's every poll reads it.
  BAM_HD std::uint64_t head_word() const {
    return ref_t<std::uint64_t>(p_.counters->cq_head).load(device_relaxed(acquire));
  }

  /// If the entry at the head is posted and the CQ lock is free, moves the head (true: the
  /// caller may have something new to look at). At most one load when there is nothing to do.
  template <batches B = wide>
  BAM_HD bool help_head() const {
    own_entry none;
    return help_head_at<B>(head_word(), none);
  }
  /// help_head with the head's word already read (`hint`), passing `own`'s completion to it
  /// (move_head). The lock is tried only where the hint found it free and the entry at the
  /// hinted head posted, by one read-modify-write that returns the head; the word is not loaded
  /// again (a second load of it beside the entry's cost the 128-queue `null` point about 10 % and
  /// one queue pair 4-9 %: docs/gpu-engine.md, "Locks that hold their position").
  template <batches B>
  BAM_HD bool help_head_at(std::uint64_t hint, own_entry& own) const {
    const std::uint64_t head = position_of(hint);
    const auto slot = static_cast<std::uint32_t>(head % p_.cq_entries);
    if (position_locked(hint)) return false;
    if (nvme::completion::dw3_phase(cq_ref(cqe_dw3(slot)).load(relaxed)) != phase_at(head))
      return false;
    std::uint64_t start = 0;
    if (!lock_position(p_.counters->cq_head, hint, start)) return false;
    unlock_position(p_.counters->cq_head, move_head<B.head, B.chunk, B.spare>(start, own));
    return true;
  }

  /// CQ-lock holder: moves the head over every posted entry, leaving each in its ID's box (or,
  /// for an ID whose waiter gave up, freeing the ID), advances the SQ head to the last entry's
  /// SQHD and rings the CQ doorbell once. Entries are handled `Batch` at a time, with their loads
  /// and box updates in flight together: one entry after another, each waiting for its own
  /// read-modify-write, held a GPU queue to a third of what it carries this way (H100, 512 B,
  /// 128 queues: 34 M against 77 M completions/s). As in move_tail, every loop over a batch has
  /// a constant trip count, so the batch stays in registers; the entries' ID bits and words are
  /// read `Chunk` at a time, all loads of a chunk in flight before any is used. `start`: the
  /// virtual head the lock guarded (lock_position). Returns the head it left, which the caller's
  /// unlock stores (waiters see the new head from there).
  template <std::uint32_t Batch, std::uint32_t Chunk, bool Spare>
  BAM_HD std::uint64_t move_head(std::uint64_t start, own_entry& own) const {
    static_assert(Batch > 0 && Batch <= 32 && Chunk > 0 && Batch % Chunk == 0,
                  "a batch's entries are one 32-bit mask, in whole chunks");
    queue_counters& c = *p_.counters;
    // The SQ head is the holder's too (written only under the CQ lock); the SQ tail is read
    // after an acquire fence that follows the DW3 of the last entry passed (below). With
    // registers to spare, the head with the first batch's loads and the tail with each batch's;
    // else both after the loop.
    std::uint64_t sq_head = 0, sq_tail = 0;
    if constexpr (Spare) sq_head = ref_t<std::uint64_t>(c.sq_head).load(relaxed);
    const std::uint64_t limit = start + p_.cq_entries - 1;  // a full CQ holds N-1 entries
    std::uint64_t head = start;
    auto slot = static_cast<std::uint32_t>(head % p_.cq_entries);
    bool phase = phase_at(head);
    std::uint32_t sqhd = 0, late = 0, freed = 0;
    bool invalid = false;
    // Read under the CQ lock, which set_owner_reclaims takes to switch it.
    const bool owner_reclaims = ref_t<std::uint32_t>(c.owner_reclaims).load(relaxed) != 0;
    for (;;) {
      std::uint32_t dw3[Batch];
      BAM_UNROLL
      for (std::uint32_t k = 0, s = slot; k < Batch; ++k) {
#if BAM_DEVICE_CODE
        dw3[k] = cq_ref(cqe_dw3(s)).load(relaxed);
#else  // host: acquire loads cost nothing extra on x86, and ThreadSanitizer understands them
        dw3[k] = cq_ref(cqe_dw3(s)).load(acquire);
#endif
        if (++s == p_.cq_entries) s = 0;
      }
      std::uint32_t n = 0;  // posted entries from the head on (each with its pass's phase)
      const auto most = static_cast<std::uint32_t>(limit - head < Batch ? limit - head : Batch);
      BAM_UNROLL
      for (std::uint32_t k = 0, s = slot; k < Batch; ++k) {
        const bool ph = (s >= slot) == phase;  // the phase flips where the ring wraps
        if (k == most || nvme::completion::dw3_phase(dw3[k]) != ph) break;
        ++n;
        if (++s == p_.cq_entries) s = 0;
      }
      if (n == 0) break;
#if BAM_DEVICE_CODE
      cuda::atomic_thread_fence(acquire, Doorbell::scope);  // the entries after their DW3
#endif
      if constexpr (Spare) sq_tail = sq_tail_for_sqhd_check();
      std::uint32_t ok = 0;    // bit k: entry k's ID is in flight, and its box was filled
      std::uint32_t mine = 0;  // bit k: entry k is the holder's own command (own), taken
      BAM_UNROLL
      for (std::uint32_t k0 = 0, s = slot; k0 < Batch; k0 += Chunk) {
        if (k0 >= n) break;
        std::uint32_t bits[Chunk], dw0[Chunk], dw1[Chunk];
        std::uint32_t own_state = 0;
        BAM_UNROLL
        for (std::uint32_t j = 0, t = s; j < Chunk; ++j) {
          const std::uint16_t cid = nvme::completion::dw3_cid(dw3[k0 + j]);
          const bool live = k0 + j < n && cid < p_.cid_count;
          bits[j] = live ? ref_t<std::uint32_t>(p_.cid_bits[cid / 32]).load(relaxed) : 0;
          // The box of the own command: ready only if an earlier holder passed a completion for
          // it (its fetch-or is before that holder's unlock, and this lock's acquire after it).
          if (Spare && k0 + j == 0 && n == 1 && live && cid == own.cid)
            own_state = ref_t<std::uint32_t>(p_.boxes[cid].state).load(relaxed);
          dw0[j] = live ? p_.cq[t].dw0 : 0;
          dw1[j] = live ? p_.cq[t].dw1 : 0;
          if (k0 + j + 1 == n) sqhd = p_.cq[t].sqhd;
          if (++t == p_.cq_entries) t = 0;
        }
        BAM_UNROLL
        for (std::uint32_t j = 0; j < Chunk; ++j) {
          const std::uint16_t cid = nvme::completion::dw3_cid(dw3[k0 + j]);
          // An ID not in flight: nobody waits for it, and there is nothing to free.
          if ((bits[j] & (1u << (cid % 32))) == 0) continue;
          // The own command's completion as the batch's only entry (n == 1 ends the call's
          // loop), unless one was passed before (its box is ready): a second completion for one
          // command is invalid (in neither mask).
          if (Spare && k0 + j == 0 && n == 1 && cid == own.cid) {
            if ((own_state & box_ready) == 0) {
              own.got = true;
              own.dw0 = dw0[j];
              own.dw1 = dw1[j];
              own.dw3 = dw3[k0 + j];
              mine |= 1u << (k0 + j);
            }
            continue;
          }
          ok |= 1u << (k0 + j);
          completion_box& b = p_.boxes[cid];
          b.dw0 = dw0[j];
          b.dw1 = dw1[j];
          b.dw3 = dw3[k0 + j];
        }
        BAM_UNROLL
        for (std::uint32_t j = 0; j < Chunk; ++j)
          if (++s == p_.cq_entries) s = 0;
      }
#if BAM_DEVICE_CODE
      cuda::atomic_thread_fence(release, Scope);  // the boxes before their ready bits
#endif
      // Every ready bit of the batch first, then what each entry's old state says: an entry
      // handled before a later one's read-modify-write could free an ID that a second completion
      // in the same batch then marks ready again, unseen (a completion for a command not in
      // flight, which fails the queue).
      std::uint32_t was_ready = 0, was_abandoned = 0;  // bit k: entry k's box before its fetch-or
      BAM_UNROLL
      for (std::uint32_t k0 = 0; k0 < Batch; k0 += Chunk) {
        if (k0 >= n) break;
        std::uint32_t old[Chunk];
        BAM_UNROLL
        for (std::uint32_t j = 0; j < Chunk; ++j)
          old[j] =
              (ok >> (k0 + j) & 1u) != 0
                  ? ref_t<std::uint32_t>(p_.boxes[nvme::completion::dw3_cid(dw3[k0 + j])].state)
                        .fetch_or(box_ready, device_relaxed(acq_rel))
                  : 0;
        BAM_UNROLL
        for (std::uint32_t j = 0; j < Chunk; ++j) {
          was_ready |= ((old[j] & box_ready) != 0 ? 1u : 0u) << (k0 + j);
          was_abandoned |= ((old[j] & box_abandoned) != 0 ? 1u : 0u) << (k0 + j);
        }
      }
      const std::uint32_t counted = n == 32 ? ~0u : (1u << n) - 1u;  // the entries passed
      if (((~(ok | mine) | was_ready) & counted) != 0)
        invalid = true;  // not in flight, or a second completion for one command
      // Entries whose waiter gave up: freed here on the waiter's behalf, or left reserved for
      // the owner's reclaim.
      const std::uint32_t gave_up = counted & ok & ~was_ready & was_abandoned;
      late += static_cast<std::uint32_t>(cuda::std::popcount(gave_up));
      if (!owner_reclaims) {
        BAM_UNROLL
        for (std::uint32_t k = 0; k < Batch; ++k) {
          if ((gave_up >> k) == 0) break;
          if ((gave_up >> k & 1u) == 0) continue;
          const std::uint16_t cid = nvme::completion::dw3_cid(dw3[k]);
          ref_t<std::uint32_t>(p_.boxes[cid].state).store(0, relaxed);
          release_cid(cid);
          ++freed;
        }
      }
      head += n;
      slot = static_cast<std::uint32_t>(head % p_.cq_entries);
      phase = phase_at(head);
      if (n < Batch) break;
    }
    if (head == start) return start;

    if constexpr (!Spare) {
      sq_head = ref_t<std::uint64_t>(c.sq_head).load(relaxed);
      sq_tail = sq_tail_for_sqhd_check();
    }
    if (!release_sq_slots(sqhd, sq_head, sq_tail)) invalid = true;
    // Every CQ entry passed was read before the last batch's release fence. The caller's unlock
    // (a release) orders this doorbell before the next holder's.
    Doorbell::template ring_after_fence<Scope>(p_.cq_doorbell, slot);
    ref_t<std::uint64_t>(c.cq_doorbell_writes).fetch_add(1, relaxed);
    if (late != 0) ref_t<std::uint64_t>(c.late_completions).fetch_add(late, relaxed);
    if (freed != 0) ref_t<std::uint32_t>(c.abandoned).fetch_sub(freed, relaxed);
    if (invalid) {
      ref_t<std::uint64_t>(c.invalid_completions).fetch_add(1, relaxed);
      fail();
    }
    return head;
  }

  queue_pointers p_{};
};

}  // namespace bam
