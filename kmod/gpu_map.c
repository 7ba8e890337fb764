// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_map.c - map GPU memory (cudaMalloc'd, 64 KiB pages) for a controller's
 * DMA through NVIDIA's peer-to-peer interface (nv-p2p.h).
 *
 * Built only with BAMKIT_HAVE_NV_P2P (the Makefile sets it when NVIDIA_SRC
 * points at a driver source tree with nv-p2p.h). Without it, MAP_GPU answers
 * -EOPNOTSUPP and the module says so when it loads. The nvidia_p2p_* entry
 * points are resolved at run time (symbol_get), so the module loads without
 * the NVIDIA driver; MAP_GPU then answers -ENOPKG. Each GPU mapping holds a
 * reference on them, so the NVIDIA driver cannot go while one is alive.
 *
 * NOT TESTED ON HARDWARE: nothing where this was written has an NVIDIA GPU.
 *
 * Teardown can come from two sides: the owner (UNMAP, file release, device
 * remove) or the NVIDIA driver's free callback (the GPU memory was freed, e.g.
 * cudaFree or the CUDA context died, while still mapped). Whoever claims the
 * mapping first (under g->lock) tears it down in its own way: the owner with
 * nvidia_p2p_dma_unmap_pages + nvidia_p2p_put_pages, the callback with
 * nvidia_p2p_free_dma_mapping + nvidia_p2p_free_page_table (it must not call
 * put_pages). The callback cannot wait for the controller to stop: if it
 * runs, it cuts the controller's bus mastering at once and marks the mapping
 * dead (GET_ADDRS answers ENXIO); the next owner's open turns bus mastering
 * back on once the controller is stopped. The structure is reference counted:
 * one reference for the owner and one for the callback registration, dropped
 * exactly once, either by the callback when it runs or by the owner once
 * put_pages has unregistered it.
 */
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "bamkit.h"

#ifdef BAMKIT_HAVE_NV_P2P
#include "nv-p2p.h"

/* The NVIDIA driver's entry points, resolved at run time: nvidia_p2p_<name>. */
#define BAMKIT_NV_FUNCTIONS(f) \
	f(get_pages) f(put_pages) f(dma_map_pages) f(dma_unmap_pages) \
	f(free_page_table) f(free_dma_mapping)

struct bamkit_nv_ops {
#define BAMKIT_NV_MEMBER(name) typeof(&nvidia_p2p_##name) name;
	BAMKIT_NV_FUNCTIONS(BAMKIT_NV_MEMBER)
#undef BAMKIT_NV_MEMBER
};

static void bamkit_nv_put(struct bamkit_nv_ops *ops)
{
#define BAMKIT_NV_PUT(name) \
	if (ops->name) \
		symbol_put(nvidia_p2p_##name);
	BAMKIT_NV_FUNCTIONS(BAMKIT_NV_PUT)
#undef BAMKIT_NV_PUT
	memset(ops, 0, sizeof(*ops));
}

/* All of them or none (false: the NVIDIA driver is not loaded). */
static bool bamkit_nv_get(struct bamkit_nv_ops *ops)
{
	bool all = true;

#define BAMKIT_NV_GET(name) \
	ops->name = symbol_get(nvidia_p2p_##name); \
	all = all && ops->name;
	BAMKIT_NV_FUNCTIONS(BAMKIT_NV_GET)
#undef BAMKIT_NV_GET
	if (!all)
		bamkit_nv_put(ops);
	return all;
}

struct bamkit_gpu_mapping {
	struct kref ref;
	spinlock_t lock;
	bool torn_down;		/* pages released by one side */
	bool cb_consumed;	/* the callback's reference was dropped */
	bool dead;		/* the GPU memory was freed under the mapping */
	struct bamkit_dev *bdev;	/* a reference */
	struct bamkit_nv_ops ops;
	u64 vaddr;
	struct nvidia_p2p_page_table *page_table;
	struct nvidia_p2p_dma_mapping *dma_mapping;
};

static void bamkit_gpu_free(struct kref *ref)
{
	struct bamkit_gpu_mapping *g = container_of(ref, struct bamkit_gpu_mapping, ref);

	bamkit_nv_put(&g->ops);
	bamkit_dev_put(g->bdev);
	kfree(g);
	/* Held while a callback may still come (it runs our code). */
	module_put(THIS_MODULE);
}

/* Invoked by the NVIDIA driver when the GPU memory goes away under us. */
static void bamkit_gpu_free_callback(void *data)
{
	struct bamkit_gpu_mapping *g = data;
	bool claim, consume, cut = false;

	spin_lock(&g->lock);
	claim = !g->torn_down;
	g->torn_down = true;
	consume = !g->cb_consumed;
	g->cb_consumed = true;
	if (claim) {
		/*
		 * The controller may still DMA into the memory going away and
		 * we cannot wait for it to stop: cut its bus mastering now.
		 * Under g->lock, so that the owner (whose release of the
		 * mapping comes before the device's) cannot unbind it meanwhile.
		 */
		cut = !bamkit_stopped(g->bdev);
		if (cut)
			bamkit_master_off(g->bdev);
		WRITE_ONCE(g->dead, true);
	}
	spin_unlock(&g->lock);

	if (claim) {
		dev_warn(&g->bdev->pdev->dev,
			 "GPU memory at 0x%llx freed while still mapped for DMA%s\n", g->vaddr,
			 cut ? ": bus mastering off until the controller is reopened" : "");
		if (g->dma_mapping)
			g->ops.free_dma_mapping(g->dma_mapping);
		g->ops.free_page_table(g->page_table);
	}
	if (consume)
		kref_put(&g->ref, bamkit_gpu_free);
}

bool bamkit_gpu_supported(void)
{
	return true;
}

bool bamkit_gpu_provider_loaded(void)
{
	struct bamkit_nv_ops ops = {};

	if (!bamkit_nv_get(&ops))
		return false;
	bamkit_nv_put(&ops);
	return true;
}

bool bamkit_gpu_dead(const struct bamkit_mapping *m)
{
	return m->kind == BAMKIT_MAP_GPU && m->gpu && READ_ONCE(m->gpu->dead);
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

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	m->addrs = kvmalloc_array(npages, sizeof(*m->addrs), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!m->addrs || !g) {
		kfree(g);
		ret = -ENOMEM;
		goto err_free;
	}
	kref_init(&g->ref);	/* owner */
	spin_lock_init(&g->lock);
	bamkit_dev_get(bdev);
	g->bdev = bdev;
	__module_get(THIS_MODULE);
	g->vaddr = vaddr;
	if (!bamkit_nv_get(&g->ops)) {
		dev_err_ratelimited(&bdev->pdev->dev,
				    "MAP_GPU: the NVIDIA driver is not loaded (no nvidia_p2p_get_pages)\n");
		kref_put(&g->ref, bamkit_gpu_free);
		ret = -ENOPKG;
		goto err_free;
	}

	kref_get(&g->ref);	/* callback registration */
	ret = g->ops.get_pages(0, 0, vaddr, length, &g->page_table, bamkit_gpu_free_callback, g);
	if (ret) {
		kref_put(&g->ref, bamkit_gpu_free);
		kref_put(&g->ref, bamkit_gpu_free);
		goto err_free;
	}
	m->kind = BAMKIT_MAP_GPU;
	m->gpu = g;
	if (!NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(g->page_table) ||
	    g->page_table->page_size != NVIDIA_P2P_PAGE_SIZE_64KB ||
	    g->page_table->entries != npages) {
		ret = -EINVAL;
		goto err_teardown;
	}
	ret = g->ops.dma_map_pages(bdev->pdev, g->page_table, &g->dma_mapping);
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

	m->vaddr = vaddr;
	m->length = length;
	m->npages = npages;
	m->page_shift = BAMKIT_GPU_PAGE_SHIFT;
	*out = m;
	return 0;

err_teardown:
	bamkit_unmap_gpu(bdev, m);
	return ret;
err_free:
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
				g->ops.dma_unmap_pages(bdev->pdev, g->page_table, g->dma_mapping);
			/* Success unregisters the callback: its reference is ours to drop. */
			if (g->ops.put_pages(0, 0, g->vaddr, g->page_table) == 0) {
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

bool bamkit_gpu_provider_loaded(void)
{
	return false;
}

bool bamkit_gpu_dead(const struct bamkit_mapping *m)
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
