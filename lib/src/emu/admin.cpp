// Host emulated NVMe controller: the admin command set, served by the control thread.
#include <algorithm>
#include <cstring>
#include <vector>

#include "bam/nvme/commands.hpp"
#include "controller_impl.hpp"

namespace bam::emu {

namespace {
namespace sc = nvme::sc;
using nvme::admin_opcode;

/// Copies `s` into a space-padded ASCII field.
template <std::size_t N>
void pad_copy(char (&field)[N], const std::string& s) {
  std::memset(field, ' ', N);
  std::memcpy(field, s.data(), std::min(N, s.size()));
}

constexpr std::uint32_t vid_none = 0xffff;  // no PCI vendor: a software controller
}  // namespace

bool emulated_controller::impl::serve_admin() {
  bool did = false;
  nvme::command cmd;
  // Fetch only when the completion can be posted: a full CQ holds commands back in the SQ.
  while (admin_cq.has_space() && admin_sq.fetch(cmd)) {
    admin_commands[cmd.opcode].fetch_add(1, std::memory_order_relaxed);
    const admin_result r = execute_admin(cmd);
    admin_cq.post(r.dw0, static_cast<std::uint16_t>(admin_sq.head), 0, cmd.cid, r.status);
    count_completion(r.status);
    did = true;
    if (!enabled) break;
  }
  drain_counters(admin_sq);
  drain_counters(admin_cq);
  return did;
}

admin_result emulated_controller::impl::execute_admin(const nvme::command& cmd) {
  if (cmd.fuse() != 0 || cmd.psdt() != 0) return {sc::invalid_field, 0};
  switch (static_cast<admin_opcode>(cmd.opcode)) {
    case admin_opcode::identify:
      return identify(cmd);
    case admin_opcode::set_features:
      return features(cmd, true);
    case admin_opcode::get_features:
      return features(cmd, false);
    case admin_opcode::get_log_page:
      return get_log_page(cmd);
    case admin_opcode::create_io_cq:
      return create_cq(cmd);
    case admin_opcode::create_io_sq:
      return create_sq(cmd);
    case admin_opcode::delete_io_sq:
      return delete_sq(cmd);
    case admin_opcode::delete_io_cq:
      return delete_cq(cmd);
    case admin_opcode::abort:
      return abort(cmd);
    default:
      return {sc::invalid_opcode, 0};
  }
}

nvme::status emulated_controller::impl::to_host(const nvme::command& cmd, const void* data,
                                                std::uint64_t bytes) {
  return dma_transfer(dma, cmd.prp1, cmd.prp2, bytes, nvm.mps_log2,
                      const_cast<std::uint8_t*>(static_cast<const std::uint8_t*>(data)),
                      dma_direction::to_host);
}

admin_result emulated_controller::impl::identify(const nvme::command& cmd) {
  const auto cns = static_cast<nvme::identify_cns>(cmd.cdw10 & 0xffu);
  if (cns == nvme::identify_cns::controller) {
    nvme::identify_controller id{};
    id.vid = static_cast<std::uint16_t>(vid_none);
    id.ssvid = static_cast<std::uint16_t>(vid_none);
    pad_copy(id.sn, opts.serial);
    pad_copy(id.mn, opts.model);
    pad_copy(id.fr, opts.firmware);
    id.mdts = static_cast<std::uint8_t>(opts.mdts);
    id.cntlid = 1;
    id.ver = nvme::make_version(1, 4);
    id.acl = 3;
    id.elpe = 0;  // one error log entry
    id.sqes = static_cast<std::uint8_t>(nvme::sqe_size_log2 << 4 | nvme::sqe_size_log2);
    id.cqes = static_cast<std::uint8_t>(nvme::cqe_size_log2 << 4 | nvme::cqe_size_log2);
    id.nn = 1;
    id.oncs = nvme::identify_controller::oncs_write_zeroes | nvme::identify_controller::oncs_dsm;
    id.vwc = 1;
    const std::string nqn = "nqn.2024-01.dev.bamkit:emu:" + opts.serial;
    std::memcpy(id.subnqn, nqn.data(), std::min(nqn.size(), sizeof(id.subnqn) - 1));
    return {to_host(cmd, &id, sizeof(id)), 0};
  }
  if (cns == nvme::identify_cns::ns) {
    if (cmd.nsid != emulated_nsid) return {sc::invalid_namespace, 0};
    nvme::identify_namespace id{};
    id.nsze = id.ncap = id.nuse = opts.namespace_lbas;
    id.nlbaf = 0;
    id.flbas = 0;
    id.dlfeat = 1;  // deallocated blocks read as zeroes
    id.lbaf[0].lbads = static_cast<std::uint8_t>(lba_log2);
    return {to_host(cmd, &id, sizeof(id)), 0};
  }
  if (cns == nvme::identify_cns::active_ns_list) {
    std::uint32_t list[1024] = {};
    if (cmd.nsid < emulated_nsid) list[0] = emulated_nsid;
    return {to_host(cmd, list, sizeof(list)), 0};
  }
  return {sc::invalid_field, 0};
}

admin_result emulated_controller::impl::features(const nvme::command& cmd, bool set) {
  const auto fid = static_cast<nvme::feature_id>(cmd.cdw10 & 0xffu);
  if (fid == nvme::feature_id::number_of_queues) {
    if (set) {
      const std::uint32_t nsqr = cmd.cdw11 & 0xffffu;
      const std::uint32_t ncqr = cmd.cdw11 >> 16;
      if (nsqr == 0xffffu || ncqr == 0xffffu) return {sc::invalid_field, 0};
      const bool any = std::any_of(sqs.begin(), sqs.end(), [](auto& q) { return q != nullptr; }) ||
                       std::any_of(cqs.begin(), cqs.end(), [](auto& q) { return q != nullptr; });
      if (any) return {sc::command_sequence_error, 0};
      allocated_sqs = std::min(nsqr + 1, opts.max_io_queue_pairs);
      allocated_cqs = std::min(ncqr + 1, opts.max_io_queue_pairs);
    }
    return {sc::success, (allocated_cqs - 1) << 16 | (allocated_sqs - 1)};
  }
  if (fid == nvme::feature_id::volatile_write_cache) {
    if (set) volatile_write_cache = (cmd.cdw11 & 1u) != 0;
    return {sc::success, volatile_write_cache ? 1u : 0u};
  }
  return {sc::invalid_field, 0};
}

admin_result emulated_controller::impl::get_log_page(const nvme::command& cmd) {
  const auto lid = static_cast<nvme::log_page_id>(cmd.cdw10 & 0xffu);
  const std::uint64_t dwords = ((std::uint64_t{cmd.cdw11 & 0xffffu} << 16) | (cmd.cdw10 >> 16)) + 1;
  const std::uint64_t bytes = dwords * 4;
  const std::uint64_t offset = (std::uint64_t{cmd.cdw13} << 32) | cmd.cdw12;
  if (offset % 4 != 0 || bytes > (nvm.max_transfer_bytes ? nvm.max_transfer_bytes : 1u << 20) ||
      offset > 4096)
    return {sc::invalid_field, 0};
  std::vector<std::uint8_t> page(4096 + bytes, 0);
  switch (lid) {
    case nvme::log_page_id::error_information:
      break;  // no errors logged: zero entries
    case nvme::log_page_id::smart_health: {
      const std::uint16_t kelvin = 313;  // composite temperature, 40 C
      std::memcpy(&page[1], &kelvin, 2);
      page[3] = 100;  // available spare, percent
      page[4] = 10;   // available spare threshold
      page[5] = 0;    // percentage used
      const std::uint64_t reads = io_commands[std::size_t(nvme::nvm_opcode::read)].load();
      const std::uint64_t writes = io_commands[std::size_t(nvme::nvm_opcode::write)].load();
      std::memcpy(&page[64], &reads, 8);   // host read commands
      std::memcpy(&page[80], &writes, 8);  // host write commands
      break;
    }
    case nvme::log_page_id::firmware_slot:
      page[0] = 1;  // active slot 1
      std::memcpy(&page[8], opts.firmware.data(), std::min<std::size_t>(8, opts.firmware.size()));
      break;
    default:
      return {sc::invalid_log_page, 0};
  }
  return {to_host(cmd, page.data() + offset, bytes), 0};
}

admin_result emulated_controller::impl::create_cq(const nvme::command& cmd) {
  const std::uint16_t qid = cmd.qid();
  const std::uint32_t size = cmd.qsize();
  if (qid == 0 || qid > allocated_cqs || (qid < cqs.size() && cqs[qid]))
    return {sc::invalid_queue_id, 0};
  if (size < 2 || size > opts.max_queue_entries) return {sc::invalid_queue_size, 0};
  if (!cmd.physically_contiguous()) return {sc::invalid_field, 0};
  if ((cmd.prp1 & ((std::uint64_t{1} << nvm.mps_log2) - 1)) != 0)
    return {sc::prp_offset_invalid, 0};
  std::uint8_t* ring = window.map(cmd.prp1, std::uint64_t{size} * sizeof(nvme::completion));
  if (ring == nullptr) return {sc::data_transfer_error, 0};
  auto q = std::make_unique<io_cq>();
  q->st.ring = reinterpret_cast<nvme::completion*>(ring);
  q->st.head_doorbell = bar.word(nvme::reg::cq_head_doorbell(qid, opts.doorbell_stride));
  q->st.entries = size;
  q->st.qid = qid;
  q->worker = next_worker;
  next_worker = (next_worker + 1) % opts.worker_threads;
  bar.write32(nvme::reg::cq_head_doorbell(qid, opts.doorbell_stride), 0);
  if (cqs.size() <= qid) cqs.resize(qid + 1u);
  cqs[qid] = std::move(q);
  return {sc::success, 0};
}

admin_result emulated_controller::impl::create_sq(const nvme::command& cmd) {
  const std::uint16_t qid = cmd.qid();
  const std::uint32_t size = cmd.qsize();
  if (qid == 0 || qid > allocated_sqs || (qid < sqs.size() && sqs[qid]))
    return {sc::invalid_queue_id, 0};
  if (size < 2 || size > opts.max_queue_entries) return {sc::invalid_queue_size, 0};
  if (!cmd.physically_contiguous()) return {sc::invalid_field, 0};
  const std::uint16_t cqid = cmd.cqid();
  if (cqid == 0 || cqid >= cqs.size() || !cqs[cqid]) return {sc::invalid_cq, 0};
  if ((cmd.prp1 & ((std::uint64_t{1} << nvm.mps_log2) - 1)) != 0)
    return {sc::prp_offset_invalid, 0};
  const std::uint8_t* ring = window.map(cmd.prp1, std::uint64_t{size} * sizeof(nvme::command));
  if (ring == nullptr) return {sc::data_transfer_error, 0};
  auto q = std::make_unique<io_sq>();
  q->st.ring = reinterpret_cast<const nvme::command*>(ring);
  q->st.tail_doorbell = bar.word(nvme::reg::sq_tail_doorbell(qid, opts.doorbell_stride));
  q->st.entries = size;
  q->st.qid = qid;
  q->st.cqid = cqid;
  q->cq = cqs[cqid].get();
  q->fault_queue = opts.fault_queue_base + qid - 1u;
  bar.write32(nvme::reg::sq_tail_doorbell(qid, opts.doorbell_stride), 0);
  ++q->cq->attached_sqs;
  if (sqs.size() <= qid) sqs.resize(qid + 1u);
  io_sq* raw = q.get();
  sqs[qid] = std::move(q);
  worker_state& w = *workers[raw->cq->worker];
  std::lock_guard lock(w.mutex);
  w.sqs.push_back(raw);
  return {sc::success, 0};
}

admin_result emulated_controller::impl::delete_sq(const nvme::command& cmd) {
  const std::uint16_t qid = cmd.qid();
  if (qid == 0 || qid >= sqs.size() || !sqs[qid]) return {sc::invalid_queue_id, 0};
  io_sq* q = sqs[qid].get();
  {
    worker_state& w = *workers[q->cq->worker];
    std::lock_guard lock(w.mutex);
    w.sqs.erase(std::find(w.sqs.begin(), w.sqs.end(), q));
    // Every command submitted to the SQ and not completed is completed now, before the delete
    // itself: those still in the SQ and those held by fault injection. Once the delete has
    // completed, nothing of this queue moves data or posts a completion any more.
    auto finish = [&](const nvme::command& c, nvme::status st) {
      if (!post_now(*q, c, st)) {
        discarded_completions.fetch_add(1, std::memory_order_relaxed);
      } else if (st == sc::aborted_sq_deletion) {
        aborted_by_sq_deletion.fetch_add(1, std::memory_order_relaxed);
      }
    };
    nvme::command c;
    while (q->st.fetch(c)) {
      io_commands[c.opcode].fetch_add(1, std::memory_order_relaxed);
      finish(c, sc::aborted_sq_deletion);
    }
    for (const auto& [due, h] : q->held) {
      const bool aborted_already = !h.execute && due != never_due;  // waiting for CQ room
      finish(h.cmd, aborted_already ? h.status : sc::aborted_sq_deletion);
    }
    q->held.clear();
    drain_counters(q->cq->st);
  }
  drain_counters(q->st);
  --q->cq->attached_sqs;
  sqs[qid].reset();
  return {sc::success, 0};
}

admin_result emulated_controller::impl::abort(const nvme::command& cmd) {
  constexpr std::uint32_t not_aborted = 1;
  const std::uint16_t sqid = nvme::decode::abort_sqid(cmd);
  const std::uint16_t cid = nvme::decode::abort_cid(cmd);
  // The admin queue's commands are served at once, and an unknown SQ holds nothing.
  if (sqid == 0 || sqid >= sqs.size() || !sqs[sqid]) return {sc::success, not_aborted};
  if (!opts.abort_finds_commands) return {sc::success, not_aborted};
  io_sq& q = *sqs[sqid];
  std::lock_guard lock(workers[q.cq->worker]->mutex);
  // Only a held command can be aborted: one the worker has not executed (delayed or dropped).
  // Commands still in the SQ are fetched and run normally; finished ones are gone.
  for (auto it = q.held.begin(); it != q.held.end(); ++it) {
    const held_command& h = it->second;
    if (h.cmd.cid != cid || !(h.execute || it->first == never_due)) continue;
    const nvme::command aborted_cmd = h.cmd;
    q.held.erase(it);
    if (!post_now(q, aborted_cmd, sc::abort_requested)) {  // a full CQ: posted when room
      q.held.emplace(0, held_command{aborted_cmd, false, sc::abort_requested});
    }
    aborted.fetch_add(1, std::memory_order_relaxed);
    return {sc::success, 0};
  }
  return {sc::success, not_aborted};
}

admin_result emulated_controller::impl::delete_cq(const nvme::command& cmd) {
  const std::uint16_t qid = cmd.qid();
  if (qid == 0 || qid >= cqs.size() || !cqs[qid]) return {sc::invalid_queue_id, 0};
  if (cqs[qid]->attached_sqs != 0) return {sc::invalid_queue_deletion, 0};
  // Its worker touched the CQ only while an SQ was attached, under the worker's mutex.
  std::lock_guard lock(workers[cqs[qid]->worker]->mutex);
  drain_counters(cqs[qid]->st);
  cqs[qid].reset();
  return {sc::success, 0};
}

}  // namespace bam::emu
