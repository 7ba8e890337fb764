// bam/driver/queue_recovery.hpp: API. What a host NVMe driver does about commands that do not
// come back, in one place for every host client of a set of I/O queue pairs (host_context's
// cache and block writes, nvm-block-bench's queue runner): a watchdog thread.
//
// A thread whose wait for a command times out leaves its command ID abandoned
// (queue_pair_ref::wait_for). The watchdog sees it and sends an Abort for it through the admin
// queue; a controller that still holds the command completes it (Command Abort Requested), the
// watchdog moves the queue's head over that completion and the ID is free again, with nothing
// lost. A late completion's ID stays reserved until the watchdog reclaims it
// (queue_pair_ref::set_owner_reclaims), so an Abort it sends always names the command it meant,
// never a new one that took the ID. When that does not happen (the Abort finds nothing, gets no
// completion, or the ID is still abandoned a timeout later), when too many IDs are abandoned at
// once, or when the queue failed, the watchdog recovers the queue (an episode): fails it (every
// waiter gets sc::host_queue_failed), and once no host thread uses it, deletes and recreates it
// through the admin queue and resets its bookkeeping (io_queue_pair::try_recover). Then the
// queue is usable again. The watchdog never waits for one queue's threads: it looks again at the
// next pass, and the other queues' Aborts go on meanwhile.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bam/driver/controller_driver.hpp"
#include "bam/driver/io_queue_pair.hpp"
#include "bam/driver/recovery_options.hpp"
#include "bam/report/recovery_counts.hpp"

namespace bam {

class queue_recovery {
 public:
  explicit queue_recovery(recovery_options o = {});
  ~queue_recovery();  ///< stop()
  queue_recovery(const queue_recovery&) = delete;
  queue_recovery& operator=(const queue_recovery&) = delete;

  /// Watches `pair`, created by `driver`; both must outlive the watch (stop() ends it). Host
  /// threads only may use the pair (it is quiesced and reset in place), and its rings must be
  /// the driver's: std::invalid_argument, naming the queue, for a pair whose rings its owner
  /// allocated (create_io_queue_pair(entries, rings): the watchdog cannot zero and recreate
  /// them, and their users may be GPU threads) and for an empty pair. From here on the pair's
  /// late completions leave their IDs to the watchdog (queue_pair_ref::set_owner_reclaims).
  void watch(controller_driver& driver, io_queue_pair& pair);
  /// Starts the watchdog thread (idempotent).
  void start();
  /// Stops and joins it, and ends every watch (idempotent): the pairs free their late IDs
  /// themselves again; an episode still open (threads still used the failed queue) is counted
  /// in recovery_failures, the queue left failed.
  void stop();
  /// One look at every watched queue: what the thread does every period_us (tests call it
  /// directly, without start()). Never waits for a queue's threads.
  void pass();

  recovery_counts counts() const;
  /// The message of the last recovery that failed or is overdue (empty: none).
  std::string last_failure() const;

 private:
  struct pending_abort {
    std::uint64_t since_ns = 0;  ///< when the Abort was sent
    bool found = false;          ///< the controller said it aborted the command
    bool retried = false;        ///< a second Abort was sent (the first found nothing)
  };
  struct watched {
    controller_driver* driver = nullptr;
    io_queue_pair* pair = nullptr;
    std::unordered_map<std::uint16_t, pending_abort> pending;  ///< by command ID
    bool dead = false;            ///< an admin command of its recovery failed: left failed
    bool recovering = false;      ///< an episode is open: failed, waiting for its threads to leave
    bool overdue = false;         ///< the episode's wait passed the timeout (noted once)
    std::uint64_t failed_ns = 0;  ///< when the episode began
  };

  void look(watched& w);
  /// Frees the reserved IDs of late completions; forgets Aborts whose command has ended.
  void reclaim(watched& w);
  void abort(watched& w, std::uint16_t cid, pending_abort& p);
  void begin_recovery(watched& w);
  /// One try at the open episode: recreates the queue if no thread uses it.
  void try_recover(watched& w);
  void note(const std::string& msg);

  recovery_options opts_;
  /// One pass (or stop) at a time: the watched entries belong to it. Never waits on a queue.
  std::mutex pass_mutex_;
  /// queues_ (the list) and last_failure_: held for a copy or an assignment only, never across
  /// a queue's work, so watch(), counts() and last_failure() never wait for a pass.
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<watched>> queues_;
  std::string last_failure_;
  struct atomic_counts {
    std::atomic<std::uint64_t> aborts_sent{0}, aborts_found{0}, abort_failures{0}, recoveries{0},
        queue_recreations{0}, recovery_failures{0}, recovery_ns{0};
  } counts_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace bam
