// SPDX-License-Identifier: GPL-2.0
/*
 * host_map.c - pin user memory and map it for a controller's DMA through the
 * DMA API (so an IOMMU is honoured), reporting the bus address of each 4 KiB page.
 *
 * Pinned pages are charged as io_uring charges its registered buffers: to the
 * caller's user against RLIMIT_MEMLOCK (unless it has CAP_IPC_LOCK) and to
 * the process's pinned_vm (VmPin in /proc/<pid>/status). The charge goes with
 * the mapping, so it is returned to the right account whoever releases it.
 */
#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>

#include "bamkit.h"

/* Fill m->addrs with the bus address of every 4 KiB page of the mapped table. */
static int bamkit_collect_addrs(struct bamkit_dev *bdev, struct bamkit_mapping *m)
{
	struct scatterlist *sg;
	u32 n = 0;
	int i;

	for_each_sgtable_dma_sg(&m->sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		unsigned int len = sg_dma_len(sg);
		unsigned int off;

		/*
		 * bamkit never syncs: memory that would be bounced is refused.
		 * A translating IOMMU maps page-aligned segments in place (its
		 * DMA ops say "sync needed" for any address on some kernels).
		 */
		if (!bdev->translated && dma_need_sync(&bdev->pdev->dev, addr)) {
			dev_err_ratelimited(&bdev->pdev->dev,
					    "DMA to this memory would go through bounce buffers: refused\n");
			return -EIO;
		}
		if ((addr | len) & ((1u << BAMKIT_BUS_PAGE_SHIFT) - 1))
			return -EIO;
		for (off = 0; off < len; off += 1u << BAMKIT_BUS_PAGE_SHIFT) {
			if (n >= m->npages)
				return -EIO;
			m->addrs[n++] = addr + off;
		}
	}
	return n == m->npages ? 0 : -EIO;
}

/*
 * Whether [vaddr, vaddr + length) is covered by writable memory mappings of
 * ordinary pages: a quick EFAULT before anything is allocated for a range
 * that cannot be pinned.
 */
static int bamkit_check_range(u64 vaddr, u64 length)
{
	struct mm_struct *mm = current->mm;
	unsigned long addr = vaddr, end = vaddr + length;
	struct vm_area_struct *vma;
	int ret = 0;

	if (!mm)
		return -EFAULT;
	mmap_read_lock(mm);
	while (addr < end) {
		vma = vma_lookup(mm, addr);
		if (!vma || !(vma->vm_flags & VM_WRITE) || (vma->vm_flags & (VM_IO | VM_PFNMAP))) {
			ret = -EFAULT;
			break;
		}
		addr = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return ret;
}

static int bamkit_charge(struct bamkit_mapping *m, unsigned long nr)
{
	if (!capable(CAP_IPC_LOCK)) {
		unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		struct user_struct *user = get_uid(current_user());
		unsigned long cur = atomic_long_read(&user->locked_vm);
		unsigned long new;

		do {
			new = cur + nr;
			if (new > limit || new < cur) {
				free_uid(user);
				return -ENOMEM;
			}
		} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
		m->user = user;
	}
	m->mm = current->mm;
	mmgrab(m->mm);
	atomic64_add(nr, &m->mm->pinned_vm);
	m->charged = nr;
	return 0;
}

static void bamkit_uncharge(struct bamkit_mapping *m)
{
	if (!m->charged)
		return;
	if (m->user) {
		atomic_long_sub(m->charged, &m->user->locked_vm);
		free_uid(m->user);
	}
	atomic64_sub(m->charged, &m->mm->pinned_vm);
	mmdrop(m->mm);
	m->charged = 0;
}

int bamkit_map_host(struct bamkit_dev *bdev, u64 vaddr, u64 length,
		    struct bamkit_mapping **out)
{
	struct bamkit_mapping *m;
	unsigned long nr;
	long pinned;
	int ret;

	if (!length || length > BAMKIT_MAX_MAP_BYTES)
		return -EINVAL;
	if ((vaddr | length) & ~PAGE_MASK)
		return -EINVAL;
	if (vaddr + length < vaddr)
		return -EINVAL;
	if (!access_ok((void __user *)(uintptr_t)vaddr, length))
		return -EFAULT;
	ret = bamkit_check_range(vaddr, length);
	if (ret)
		return ret;

	nr = length >> PAGE_SHIFT;
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	m->kind = BAMKIT_MAP_HOST;
	m->vaddr = vaddr;
	m->length = length;
	m->page_shift = BAMKIT_BUS_PAGE_SHIFT;
	m->npages = length >> BAMKIT_BUS_PAGE_SHIFT;
	/* Charged before the page arrays exist: RLIMIT_MEMLOCK bounds them too. */
	ret = bamkit_charge(m, nr);
	if (ret)
		goto err;
	m->pages = kvmalloc_array(nr, sizeof(*m->pages), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	m->addrs = kvmalloc_array(m->npages, sizeof(*m->addrs), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!m->pages || !m->addrs) {
		ret = -ENOMEM;
		goto err;
	}

	pinned = pin_user_pages_fast(vaddr, nr, FOLL_WRITE | FOLL_LONGTERM, m->pages);
	if (pinned < 0) {
		ret = pinned;
		goto err;
	}
	m->nr_pinned = pinned;
	if (pinned != nr) {
		ret = -EFAULT;
		goto err;
	}

	ret = sg_alloc_table_from_pages(&m->sgt, m->pages, nr, 0, length, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err;
	ret = dma_map_sgtable(&bdev->pdev->dev, &m->sgt, DMA_BIDIRECTIONAL, 0);
	if (ret) {
		sg_free_table(&m->sgt);
		goto err;
	}
	m->sgt_mapped = true;
	ret = bamkit_collect_addrs(bdev, m);
	if (ret)
		goto err;
	*out = m;
	return 0;

err:
	bamkit_unmap_host(bdev, m);
	return ret;
}

void bamkit_unmap_host(struct bamkit_dev *bdev, struct bamkit_mapping *m)
{
	if (m->sgt_mapped) {
		dma_unmap_sgtable(&bdev->pdev->dev, &m->sgt, DMA_BIDIRECTIONAL, 0);
		sg_free_table(&m->sgt);
	}
	/* The controller may have written: mark the pages dirty as they go back. */
	if (m->nr_pinned)
		unpin_user_pages_dirty_lock(m->pages, m->nr_pinned, true);
	bamkit_uncharge(m);
	kvfree(m->pages);
	kvfree(m->addrs);
	kfree(m);
}
