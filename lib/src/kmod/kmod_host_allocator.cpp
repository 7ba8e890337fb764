// kmod_host_allocator: pinned host memory DMA-mapped through bamkit for one or more controllers.
#include "bam/kmod/kmod_host_allocator.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace bam {

namespace {
constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
}  // namespace

kmod_host_allocator::kmod_host_allocator(std::vector<const kmod_device*> devices, bool huge_pages)
    : devices_(std::move(devices)), huge_pages_(huge_pages) {
  if (devices_.empty()) throw std::invalid_argument("kmod_host_allocator: no device");
}

kmod_host_allocator::~kmod_host_allocator() {
  std::lock_guard lock(mutex_);
  for (auto& [vaddr, e] : regions_)
    release(vaddr, e.size, e.handles);
  regions_.clear();
  idle_.clear();
}

void kmod_host_allocator::release(void* vaddr, std::size_t size,
                                  const std::vector<std::uint64_t>& handles) noexcept {
  for (std::size_t d = 0; d < handles.size(); ++d) {
    try {
      // Deferred or not, the pages stay pinned as long as the module needs them.
      (void)devices_[d]->unmap(handles[d]);
    } catch (...) {  // noexcept: a failed unmap is released with the device file
    }
  }
  ::munmap(vaddr, size);
}

dma_region kmod_host_allocator::allocate(std::size_t bytes) {
  // One 4 KiB page is contiguous anyway: only larger regions need huge pages.
  const bool huge = huge_pages_ && bytes > (std::size_t{1} << page_size_log2());
  const std::size_t page = huge ? huge_page_bytes : std::size_t{1} << page_size_log2();
  const std::size_t size = bytes == 0 ? page : (bytes + page - 1) / page * page;
  if (dma_region r = reuse(size); r.vaddr != nullptr) return r;
  // Anonymous mappings are page aligned and zero-filled; populate and lock them so that the
  // pages the module pins are the ones that stay.
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
  if (huge) flags |= MAP_HUGETLB | (21 << MAP_HUGE_SHIFT);  // 2 MiB pages
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap");
  if (::mlock(p, size) != 0) {
    const int err = errno;
    ::munmap(p, size);
    throw std::system_error(err, std::generic_category(), "mlock");
  }
  entry e{size, 12, {}, {}};
  try {
    for (const kmod_device* dev : devices_) {
      kmod_mapping m = dev->map_host(p, size);
      if (e.handles.empty()) e.page_shift = m.page_shift;
      e.handles.push_back(m.handle);
      if (m.page_shift != e.page_shift)
        throw std::runtime_error(dev->path() + ": DMA mapping of another page size");
      e.bus_pages.push_back(std::move(m.bus_pages));
    }
  } catch (...) {
    release(p, size, e.handles);
    throw;
  }
  dma_region r;
  r.vaddr = p;
  r.size = size;
  r.page_size_log2 = e.page_shift;
  r.bus_pages = e.bus_pages.front();
  std::lock_guard lock(mutex_);
  regions_[p] = std::move(e);
  ++live_;
  return r;
}

dma_region kmod_host_allocator::reuse(std::size_t size) {
  dma_region r;
  {
    std::lock_guard lock(mutex_);
    const auto it = idle_.find(size);
    if (it == idle_.end()) return r;
    r.vaddr = it->second;
    idle_.erase(it);
    entry& e = regions_.at(r.vaddr);
    e.idle = false;
    ++live_;
    r.size = size;
    r.page_size_log2 = e.page_shift;
    r.bus_pages = e.bus_pages.front();
  }
  std::memset(r.vaddr, 0, r.size);  // as a fresh anonymous mapping
  return r;
}

std::uint64_t kmod_host_allocator::device_bus_address(const dma_region& region, std::size_t offset,
                                                      std::uint32_t device) const {
  std::lock_guard lock(mutex_);
  const entry& e = regions_.at(region.vaddr);
  if (e.idle) throw std::out_of_range("kmod_host_allocator: region was freed");
  const std::uint32_t shift = e.page_shift;
  return e.bus_pages.at(device).at(offset >> shift) + (offset & ((std::size_t{1} << shift) - 1));
}

void kmod_host_allocator::free(dma_region& region) noexcept {
  if (region.vaddr == nullptr) return;
  {
    std::lock_guard lock(mutex_);
    const auto it = regions_.find(region.vaddr);
    if (it != regions_.end() && !it->second.idle) {
      it->second.idle = true;
      --live_;
      idle_.emplace(it->second.size, region.vaddr);
    }
  }
  region = {};
}

std::size_t kmod_host_allocator::live_regions() const {
  std::lock_guard lock(mutex_);
  return live_;
}

std::size_t kmod_host_allocator::idle_regions() const {
  std::lock_guard lock(mutex_);
  return idle_.size();
}

}  // namespace bam
