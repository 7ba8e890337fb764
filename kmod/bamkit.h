/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bamkit.h - internal state of the bamkit module: one bamkit_dev per bound NVMe
 * controller, one bamkit_file per open of its character device, one bamkit_mapping
 * per pinned and DMA-mapped range.
 */
#ifndef BAMKIT_H
#define BAMKIT_H

#include <linux/cdev.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/xarray.h>

#include "bam/kmod/uapi.h"

#define BAMKIT_NAME "bamkit"
#define BAMKIT_MAX_DEVICES 256
/* Largest single mapping: 64 GiB (bounds the page arrays the kernel allocates). */
#define BAMKIT_MAX_MAP_BYTES (64ULL << 30)
#define BAMKIT_BUS_PAGE_SHIFT 12
#define BAMKIT_GPU_PAGE_SHIFT 16

struct bamkit_dev {
	struct pci_dev *pdev;
	struct cdev *cdev;	/* separately refcounted: may outlive us */
	struct device *dev;
	dev_t devt;
	int minor;
	resource_size_t bar_start;
	resource_size_t bar_len;
	void __iomem *regs;	/* first page of BAR0, to quiesce the controller */
	struct kref ref;	/* device + one per open file */
	struct mutex lock;	/* protects gone and files */
	bool gone;		/* removed from the PCI device: no new mappings */
	struct mutex bar_lock;	/* orders BAR page faults against revocation */
	bool bar_revoked;	/* under bar_lock: BAR0 may no longer be mapped */
	struct list_head files;
};

struct bamkit_file {
	struct bamkit_dev *bdev;
	struct file *filp;
	struct list_head node;	/* in bdev->files */
	struct mutex lock;	/* protects maps */
	struct xarray maps;	/* handle -> struct bamkit_mapping */
};

enum bamkit_map_kind { BAMKIT_MAP_HOST, BAMKIT_MAP_GPU };

struct bamkit_gpu_mapping;

struct bamkit_mapping {
	enum bamkit_map_kind kind;
	u32 handle;
	u64 vaddr;
	u64 length;
	u32 npages;		/* bus pages in addrs */
	u32 page_shift;
	u64 *addrs;		/* bus address of each page */
	/* host */
	struct page **pages;
	unsigned long nr_pinned;
	struct sg_table sgt;
	bool sgt_mapped;
	/* GPU */
	struct bamkit_gpu_mapping *gpu;
};

/* fops.c */
extern const struct file_operations bamkit_fops;
struct bamkit_dev *bamkit_dev_get_by_minor(unsigned int minor);
void bamkit_dev_put(struct bamkit_dev *bdev);
void bamkit_file_release_mappings(struct bamkit_file *bf);

/* host_map.c */
int bamkit_map_host(struct bamkit_dev *bdev, u64 vaddr, u64 length,
		    struct bamkit_mapping **out);
void bamkit_unmap_host(struct bamkit_dev *bdev, struct bamkit_mapping *m);

/* gpu_map.c */
bool bamkit_gpu_supported(void);
int bamkit_map_gpu(struct bamkit_dev *bdev, u64 vaddr, u64 length,
		   struct bamkit_mapping **out);
void bamkit_unmap_gpu(struct bamkit_dev *bdev, struct bamkit_mapping *m);

/* main.c */
void bamkit_quiesce(struct bamkit_dev *bdev);

#endif
