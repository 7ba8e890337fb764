// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_map.c - map GPU memory (cudaMalloc'd, 64 KiB pages) for a controller's
 * DMA through NVIDIA's peer-to-peer interface (nv-p2p.h).
 *
 * Built only with BAMKIT_HAVE_NV_P2P (the Makefile sets it when NVIDIA_SRC
 * points at a driver source tree with nv-p2p.h). Without it, MAP_GPU answers
 * -EOPNOTSUPP and the module says so when it loads.
 *
 * NOT TESTED ON HARDWARE: nothing where this was written has an NVIDIA GPU.
 *
 * Teardown can come from two sides: the owner (UNMAP, file release, device
 * remove) or the NVIDIA driver's free callback (the GPU memory was freed, e.g.
 * cudaFree or the CUDA context died, while still mapped). Whoever claims the
 * mapping first (under g->lock) tears it down in its own way: the owner with
 * nvidia_p2p_dma_unmap_pages + nvidia_p2p_put_pages, the callback with
 * nvidia_p2p_free_dma_mapping + nvidia_p2p_free_page_table (it must not call
 * put_pages). The structure is reference counted: one reference for the owner
 * and one for the callback registration, dropped exactly once, either by the
 * callback when it runs or by the owner once put_pages has unregistered it.
 */
#include <linux/kref.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "bamkit.h"

#ifdef BAMKIT_HAVE_NV_P2P
#include "nv-p2p.h"

struct bamkit_gpu_mapping {
	struct kref ref;
	spinlock_t lock;
	bool torn_down;		/* pages released by one side */
	bool cb_consumed;	/* the callback's reference was dropped */
	struct pci_dev *pdev;
	u64 vaddr;
	struct nvidia_p2p_page_table *page_table;
	struct nvidia_p2p_dma_mapping *dma_mapping;
};

static void bamkit_gpu_free(struct kref *ref)
{
	kfree(container_of(ref, struct bamkit_gpu_mapping, ref));
}

/* Invoked by the NVIDIA driver when the GPU memory goes away under us. */
static void bamkit_gpu_free_callback(void *data)
{
	struct bamkit_gpu_mapping *g = data;
	bool claim, consume;

	spin_lock(&g->lock);
	claim = !g->torn_down;
	g->torn_down = true;
	consume = !g->cb_consumed;
	g->cb_consumed = true;
	spin_unlock(&g->lock);

	if (claim) {
		dev_warn(&g->pdev->dev,
			 "GPU memory at 0x%llx freed while still mapped for DMA\n", g->vaddr);
		if (g->dma_mapping)
			nvidia_p2p_free_dma_mapping(g->dma_mapping);
		nvidia_p2p_free_page_table(g->page_table);
	}
	if (consume)
		kref_put(&g->ref, bamkit_gpu_free);
}

bool bamkit_gpu_supported(void)
{
	return true;
}

int bamkit_map_gpu(struct bamkit_dev *bdev, u64 vaddr, u64 length,
		   struct bamkit_mapping **out)
{
	const u64 gpu_page = 1ULL << BAMKIT_GPU_PAGE_SHIFT;
	struct bamkit_gpu_mapping *g;
	struct bamkit_mapping *m;
	u32 i, npages;
	int ret;

	if (!length || length > BAMKIT_MAX_MAP_BYTES)
		return -EINVAL;
	if ((vaddr | length) & (gpu_page - 1))
		return -EINVAL;
	if (vaddr + length < vaddr)
		return -EINVAL;
	npages = length >> BAMKIT_GPU_PAGE_SHIFT;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!m || !g) {
		ret = -ENOMEM;
		goto err_free;
	}
	m->addrs = kvmalloc_array(npages, sizeof(*m->addrs), GFP_KERNEL);
	if (!m->addrs) {
		ret = -ENOMEM;
		goto err_free;
	}
	kref_init(&g->ref);	/* owner */
	kref_get(&g->ref);	/* callback registration */
	spin_lock_init(&g->lock);
	g->pdev = bdev->pdev;
	g->vaddr = vaddr;

	ret = nvidia_p2p_get_pages(0, 0, vaddr, length, &g->page_table,
				   bamkit_gpu_free_callback, g);
	if (ret) {
		kfree(g);
		g = NULL;
		goto err_free;
	}
	if (!NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(g->page_table) ||
	    g->page_table->page_size != NVIDIA_P2P_PAGE_SIZE_64KB ||
	    g->page_table->entries != npages) {
		ret = -EINVAL;
		goto err_teardown;
	}
	ret = nvidia_p2p_dma_map_pages(bdev->pdev, g->page_table, &g->dma_mapping);
	if (ret) {
		g->dma_mapping = NULL;
		goto err_teardown;
	}
	if (!NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(g->dma_mapping) ||
	    g->dma_mapping->page_size_type != NVIDIA_P2P_PAGE_SIZE_64KB ||
	    g->dma_mapping->entries != npages) {
		ret = -EINVAL;
		goto err_teardown;
	}
	for (i = 0; i < npages; i++)
		m->addrs[i] = g->dma_mapping->dma_addresses[i];

	m->kind = BAMKIT_MAP_GPU;
	m->vaddr = vaddr;
	m->length = length;
	m->npages = npages;
	m->page_shift = BAMKIT_GPU_PAGE_SHIFT;
	m->gpu = g;
	*out = m;
	return 0;

err_teardown:
	m->gpu = g;
	m->kind = BAMKIT_MAP_GPU;
	bamkit_unmap_gpu(bdev, m);
	return ret;
err_free:
	kfree(g);
	if (m)
		kvfree(m->addrs);
	kfree(m);
	return ret;
}

void bamkit_unmap_gpu(struct bamkit_dev *bdev, struct bamkit_mapping *m)
{
	struct bamkit_gpu_mapping *g = m->gpu;
	bool claim, consume = false;

	if (g) {
		spin_lock(&g->lock);
		claim = !g->torn_down;
		g->torn_down = true;
		spin_unlock(&g->lock);

		if (claim) {
			if (g->dma_mapping)
				nvidia_p2p_dma_unmap_pages(bdev->pdev, g->page_table,
							   g->dma_mapping);
			/* Success unregisters the callback: its reference is ours to drop. */
			if (nvidia_p2p_put_pages(0, 0, g->vaddr, g->page_table) == 0) {
				spin_lock(&g->lock);
				consume = !g->cb_consumed;
				g->cb_consumed = true;
				spin_unlock(&g->lock);
			}
		}
		if (consume)
			kref_put(&g->ref, bamkit_gpu_free);
		kref_put(&g->ref, bamkit_gpu_free);
	}
	kvfree(m->addrs);
	kfree(m);
}

#else /* !BAMKIT_HAVE_NV_P2P */

bool bamkit_gpu_supported(void)
{
	return false;
}

int bamkit_map_gpu(struct bamkit_dev *bdev, u64 vaddr, u64 length,
		   struct bamkit_mapping **out)
{
	return -EOPNOTSUPP;
}

void bamkit_unmap_gpu(struct bamkit_dev *bdev, struct bamkit_mapping *m)
{
	kvfree(m->addrs);
	kfree(m);
}

#endif
