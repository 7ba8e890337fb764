// SPDX-License-Identifier: GPL-2.0
/*
 * nv_p2p_fake.c - a stand-in for the NVIDIA driver's peer-to-peer interface, for
 * the QEMU test only (there is no GPU there). "GPU memory" is the calling
 * process's memory, which must be backed by 2 MiB huge pages so that every
 * 64 KiB "GPU page" is physically contiguous; get_pages pins it, dma_map_pages
 * maps each 64 KiB page for the peer with the DMA API. Writing anything to
 * /sys/module/nv_p2p_fake/parameters/revoke frees every region behind its
 * user's back, through the free callbacks, as the NVIDIA driver does when GPU
 * memory is freed while still mapped. parameters/live reads
 * "<page tables> <dma mappings>" still held. This tests bamkit's side of the
 * protocol, not NVIDIA's implementation. Exported GPL-only, as NVIDIA's open
 * modules export them: bamkit looks them up with symbol_get, which on current
 * kernels finds only GPL-only exports.
 */
#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "nv-p2p.h"

#define FAKE_GPU_PAGE (64u << 10)
#define FAKE_SUBPAGES (FAKE_GPU_PAGE / PAGE_SIZE)

struct fake_region {
	struct list_head node;
	struct page **pages;		/* pinned CPU pages */
	unsigned long npages;
	struct nvidia_p2p_page_table pt;
	struct nvidia_p2p_page *entries;
	struct nvidia_p2p_page **entry_ptrs;
	void (*free_callback)(void *data);
	void *data;
};

static LIST_HEAD(fake_regions);
static DEFINE_MUTEX(fake_lock);
static atomic_t fake_tables = ATOMIC_INIT(0);
static atomic_t fake_mappings = ATOMIC_INIT(0);

static void fake_region_free(struct fake_region *r)
{
	if (r->pages)
		unpin_user_pages(r->pages, r->npages);
	kvfree(r->pages);
	kfree(r->entries);
	kfree(r->entry_ptrs);
	kfree(r);
	atomic_dec(&fake_tables);
}

int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address, u64 length,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	struct fake_region *r;
	unsigned long i, j, n;
	long pinned;

	if (!length || ((virtual_address | length) & (FAKE_GPU_PAGE - 1)) || !free_callback)
		return -EINVAL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	atomic_inc(&fake_tables);
	r->npages = length >> PAGE_SHIFT;
	n = length / FAKE_GPU_PAGE;
	r->pages = kvcalloc(r->npages, sizeof(*r->pages), GFP_KERNEL);
	r->entries = kcalloc(n, sizeof(*r->entries), GFP_KERNEL);
	r->entry_ptrs = kcalloc(n, sizeof(*r->entry_ptrs), GFP_KERNEL);
	if (!r->pages || !r->entries || !r->entry_ptrs)
		goto nomem;
	pinned = pin_user_pages_fast(virtual_address, r->npages, FOLL_WRITE | FOLL_LONGTERM,
				     r->pages);
	if (pinned != r->npages) {
		if (pinned > 0)
			unpin_user_pages(r->pages, pinned);
		kvfree(r->pages);
		r->pages = NULL;
		fake_region_free(r);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		phys_addr_t base = page_to_phys(r->pages[i * FAKE_SUBPAGES]);

		for (j = 1; j < FAKE_SUBPAGES; j++) {
			if (page_to_phys(r->pages[i * FAKE_SUBPAGES + j]) != base + j * PAGE_SIZE) {
				fake_region_free(r);
				return -EINVAL;	/* not huge-page backed */
			}
		}
		r->entries[i].physical_address = base;
		r->entry_ptrs[i] = &r->entries[i];
	}
	r->pt.version = NVIDIA_P2P_PAGE_TABLE_VERSION;
	r->pt.page_size = NVIDIA_P2P_PAGE_SIZE_64KB;
	r->pt.pages = r->entry_ptrs;
	r->pt.entries = n;
	r->free_callback = free_callback;
	r->data = data;
	mutex_lock(&fake_lock);
	list_add(&r->node, &fake_regions);
	mutex_unlock(&fake_lock);
	*page_table = &r->pt;
	return 0;
nomem:
	kvfree(r->pages);
	r->pages = NULL;
	fake_region_free(r);
	return -ENOMEM;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_get_pages);

static void fake_unmap(struct nvidia_p2p_dma_mapping *m)
{
	u32 i;

	for (i = 0; i < m->entries; i++)
		dma_unmap_page(&m->pci_dev->dev, m->dma_addresses[i], FAKE_GPU_PAGE,
			       DMA_BIDIRECTIONAL);
	kfree(m->dma_addresses);
	kfree(m);
	atomic_dec(&fake_mappings);
}

int nvidia_p2p_dma_map_pages(struct pci_dev *peer, struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping)
{
	struct fake_region *r = container_of(page_table, struct fake_region, pt);
	struct nvidia_p2p_dma_mapping *m;
	u32 i;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->dma_addresses = kcalloc(page_table->entries, sizeof(u64), GFP_KERNEL);
	if (!m->dma_addresses) {
		kfree(m);
		return -ENOMEM;
	}
	atomic_inc(&fake_mappings);
	m->version = NVIDIA_P2P_DMA_MAPPING_VERSION;
	m->page_size_type = NVIDIA_P2P_PAGE_SIZE_64KB;
	m->pci_dev = peer;
	for (i = 0; i < page_table->entries; i++) {
		dma_addr_t a = dma_map_page(&peer->dev, r->pages[i * FAKE_SUBPAGES], 0,
					    FAKE_GPU_PAGE, DMA_BIDIRECTIONAL);

		if (dma_mapping_error(&peer->dev, a)) {
			m->entries = i;
			fake_unmap(m);
			return -EIO;
		}
		m->dma_addresses[i] = a;
	}
	m->entries = page_table->entries;
	*dma_mapping = m;
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_dma_map_pages);

int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer, struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping)
{
	if (!dma_mapping || dma_mapping->pci_dev != peer)
		return -EINVAL;
	fake_unmap(dma_mapping);
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_dma_unmap_pages);

int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table)
{
	struct fake_region *r, *found = NULL;

	mutex_lock(&fake_lock);
	list_for_each_entry(r, &fake_regions, node) {
		if (&r->pt == page_table) {
			found = r;
			list_del(&r->node);
			break;
		}
	}
	mutex_unlock(&fake_lock);
	if (!found)
		return -EINVAL;	/* already freed through the callback */
	fake_region_free(found);
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_put_pages);

int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	fake_region_free(container_of(page_table, struct fake_region, pt));
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_free_page_table);

int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping)
{
	fake_unmap(dma_mapping);
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_free_dma_mapping);

static int fake_revoke_set(const char *val, const struct kernel_param *kp)
{
	struct fake_region *r, *tmp;
	LIST_HEAD(victims);

	mutex_lock(&fake_lock);
	list_splice_init(&fake_regions, &victims);
	mutex_unlock(&fake_lock);
	list_for_each_entry_safe(r, tmp, &victims, node) {
		list_del_init(&r->node);
		r->free_callback(r->data);	/* frees r through free_page_table */
	}
	return 0;
}

static int fake_live_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d %d\n", atomic_read(&fake_tables), atomic_read(&fake_mappings));
}

static const struct kernel_param_ops fake_revoke_ops = { .set = fake_revoke_set };
static const struct kernel_param_ops fake_live_ops = { .get = fake_live_get };
module_param_cb(revoke, &fake_revoke_ops, NULL, 0200);
module_param_cb(live, &fake_live_ops, NULL, 0444);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bamkit QEMU test: stand-in for NVIDIA's nv-p2p interface");
