// Host memory with identity bus addresses, for emulated controllers.
#include <cstdlib>
#include <cstring>
#include <new>

#include "bam/dma.hpp"

namespace bam {

dma_region host_identity_allocator::allocate(std::size_t bytes) {
  const std::size_t page = std::size_t{1} << page_size_log2();
  const std::size_t size = (bytes + page - 1) / page * page;
  void* p = std::aligned_alloc(page, size == 0 ? page : size);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, size);
  dma_region r;
  r.vaddr = p;
  r.size = size;
  r.page_size_log2 = page_size_log2();
  const std::size_t pages = size / page;
  r.bus_pages.resize(pages);
  for (std::size_t i = 0; i < pages; ++i)
    r.bus_pages[i] = reinterpret_cast<std::uintptr_t>(p) + i * page;
  return r;
}

void host_identity_allocator::free(dma_region& region) noexcept {
  std::free(region.vaddr);
  region = {};
}

}  // namespace bam
