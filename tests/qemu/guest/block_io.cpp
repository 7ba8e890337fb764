// block_io.cpp: stamped blocks and the verified I/O loop of the QEMU guest test.
#include "block_io.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

#include "bam/detail/hash.hpp"

namespace bam::guest {

namespace {
std::uint64_t word_of(std::uint64_t lba, std::uint64_t gen, std::uint64_t tag, std::size_t i) {
  switch (i) {
    case 0:
      return lba;
    case 1:
      return gen;
    case 2:
      return tag;
    default:
      return bam::mix64(lba * 0x100000001b3ull ^ (gen << 40) ^ (tag << 20) ^ i);
  }
}
}  // namespace

void stamp_block(void* block, std::uint32_t block_size, std::uint64_t lba, std::uint64_t gen,
                 std::uint64_t tag) {
  auto* w = static_cast<std::uint64_t*>(block);
  for (std::size_t i = 0; i < block_size / 8; ++i)
    w[i] = word_of(lba, gen, tag, i);
}

bool check_block(const void* block, std::uint32_t block_size, std::uint64_t lba, std::uint64_t gen,
                 std::uint64_t tag) {
  const auto* w = static_cast<const std::uint64_t*>(block);
  for (std::size_t i = 0; i < block_size / 8; ++i)
    if (w[i] != word_of(lba, gen, tag, i)) return false;
  return true;
}

std::vector<extent> random_extents(std::uint64_t first, std::uint64_t count,
                                   std::uint32_t max_blocks, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> len(1, max_blocks);
  std::vector<extent> out;
  for (std::uint64_t lba = first; lba < first + count;) {
    const auto n =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(len(rng), first + count - lba));
    out.push_back({lba, n});
    lba += n;
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

io_result run_extents(raw_queue& q, const dma_region& buffers, const std::vector<extent>& extents,
                      bool write, std::uint32_t block_size, std::uint64_t gen, std::uint64_t tag) {
  const std::uint32_t slots = q.entries() - 1;
  if (buffers.size < std::size_t{slots} * max_extent_bytes)
    throw std::runtime_error("run_extents: buffer too small for the queue depth");
  std::vector<const extent*> in_flight(slots, nullptr);
  std::vector<std::uint32_t> free_slots(slots);
  for (std::uint32_t i = 0; i < slots; ++i)
    free_slots[i] = slots - 1 - i;
  auto* base = static_cast<std::uint8_t*>(buffers.vaddr);

  io_result res;
  std::uint32_t outstanding = 0;
  std::size_t next = 0;
  auto last_progress = std::chrono::steady_clock::now();
  while (next < extents.size() || outstanding > 0) {
    while (next < extents.size() && !free_slots.empty()) {
      const extent& e = extents[next++];
      const std::uint32_t slot = free_slots.back();
      free_slots.pop_back();
      const std::size_t off = std::size_t{slot} * max_extent_bytes;
      const std::uint32_t bytes = e.blocks * block_size;
      if (bytes > max_extent_bytes) throw std::runtime_error("extent larger than a slot");
      if (write) {
        for (std::uint32_t b = 0; b < e.blocks; ++b)
          stamp_block(base + off + std::size_t{b} * block_size, block_size, e.lba + b, gen, tag);
      } else {
        std::memset(base + off, 0, bytes);
      }
      nvme::command c{};
      c.opcode =
          static_cast<std::uint8_t>(write ? nvme::nvm_opcode::write : nvme::nvm_opcode::read);
      c.cid = static_cast<std::uint16_t>(slot);
      c.nsid = 1;
      c.prp1 = buffers.bus_address(off);
      // The second page of a slot is its own page: any bus address, as PRP2 allows.
      if (bytes > 4096) c.prp2 = buffers.bus_address(off + 4096);
      c.cdw10 = static_cast<std::uint32_t>(e.lba);
      c.cdw11 = static_cast<std::uint32_t>(e.lba >> 32);
      c.cdw12 = e.blocks - 1;
      in_flight[slot] = &e;
      q.submit(c);
      ++outstanding;
      res.max_outstanding = std::max(res.max_outstanding, outstanding);
    }
    auto c = q.poll();
    if (!c) {
      if (std::chrono::steady_clock::now() - last_progress > std::chrono::seconds(20))
        throw std::runtime_error("queue " + std::to_string(q.qid()) + ": I/O completion timeout");
      continue;
    }
    last_progress = std::chrono::steady_clock::now();
    const std::uint32_t slot = c->cid;
    if (slot >= slots || in_flight[slot] == nullptr)
      throw std::runtime_error("completion with an unknown command id");
    const extent& e = *in_flight[slot];
    in_flight[slot] = nullptr;
    free_slots.push_back(slot);
    --outstanding;
    ++res.commands;
    res.blocks += e.blocks;
    if (!c->status().ok()) {
      ++res.bad_status;
      continue;
    }
    if (!write) {
      const std::size_t off = std::size_t{slot} * max_extent_bytes;
      for (std::uint32_t b = 0; b < e.blocks; ++b)
        if (!check_block(base + off + std::size_t{b} * block_size, block_size, e.lba + b, gen, tag))
          ++res.bad_blocks;
    }
  }
  return res;
}

}  // namespace bam::guest
