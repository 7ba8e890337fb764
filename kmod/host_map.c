// SPDX-License-Identifier: GPL-2.0
/*
 * host_map.c - pin user memory and map it for a controller's DMA through the
 * DMA API (so an IOMMU is honoured), reporting the bus address of each 4 KiB page.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "bamkit.h"

/* Fill m->addrs with the bus address of every 4 KiB page of the mapped table. */
static int bamkit_collect_addrs(struct bamkit_mapping *m)
{
	struct scatterlist *sg;
	u32 n = 0;
	int i;

	for_each_sgtable_dma_sg(&m->sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		unsigned int len = sg_dma_len(sg);
		unsigned int off;

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

	nr = length >> PAGE_SHIFT;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->kind = BAMKIT_MAP_HOST;
	m->vaddr = vaddr;
	m->length = length;
	m->page_shift = BAMKIT_BUS_PAGE_SHIFT;
	m->npages = length >> BAMKIT_BUS_PAGE_SHIFT;
	m->pages = kvmalloc_array(nr, sizeof(*m->pages), GFP_KERNEL);
	m->addrs = kvmalloc_array(m->npages, sizeof(*m->addrs), GFP_KERNEL);
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

	ret = sg_alloc_table_from_pages(&m->sgt, m->pages, nr, 0, length, GFP_KERNEL);
	if (ret)
		goto err;
	ret = dma_map_sgtable(&bdev->pdev->dev, &m->sgt, DMA_BIDIRECTIONAL, 0);
	if (ret) {
		sg_free_table(&m->sgt);
		goto err;
	}
	m->sgt_mapped = true;
	ret = bamkit_collect_addrs(m);
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
	kvfree(m->pages);
	kvfree(m->addrs);
	kfree(m);
}
