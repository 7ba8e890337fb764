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

struct bamkit_file;

struct bamkit_dev {
	struct pci_dev *pdev;	/* a reference, for GPU callbacks that outlive remove */
	struct cdev *cdev;	/* separately refcounted: may outlive us */
	struct device *dev;
	dev_t devt;
	int minor;
	resource_size_t bar_start;
	resource_size_t bar_len;
	void __iomem *regs;	/* first page of BAR0, to quiesce the controller */
	/*
	 * Behind an IOMMU in a strict translating domain, alone in its group,
	 * with interrupt remapping: the controller reaches only what this module
	 * mapped for it, so the node's permissions may grant access without
	 * CAP_SYS_RAWIO.
	 */
	bool isolated;
	bool translated;	/* behind a translating IOMMU (strict or lazy) */
	struct kref ref;	/* device + one per open file + one per GPU mapping */
	struct mutex lock;	/* protects gone, files and owner */
	bool gone;		/* removed from the PCI device: no new mappings */
	struct bamkit_file *owner;	/* the one file open for writing, or NULL */
	/*
	 * Bus mastering was turned off behind the owner's back (GPU memory freed
	 * under a mapping, or the controller did not stop): the next writable
	 * open turns it back on once the controller is seen stopped.
	 */
	atomic_t master_off;
	struct mutex bar_lock;	/* orders BAR page faults against revocation */
	bool bar_revoked;	/* under bar_lock: BAR0 may no longer be mapped */
	struct list_head files;
};

struct bamkit_file {
	struct bamkit_dev *bdev;
	struct file *filp;
	struct list_head node;	/* in bdev->files */
	struct mutex lock;	/* protects maps, deferred and nr_maps */
	struct xarray maps;	/* handle -> struct bamkit_mapping */
	/* Unmapped while the controller could still DMA: released once it stops. */
	struct list_head deferred;
	unsigned int nr_maps;	/* in maps and in deferred */
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
	struct list_head deferred_node;	/* in bf->deferred once unmapped */
	/* host */
	struct page **pages;
	unsigned long nr_pinned;
	struct sg_table sgt;
	bool sgt_mapped;
	unsigned long charged;		/* pages charged to user and mm */
	struct user_struct *user;	/* RLIMIT_MEMLOCK account, NULL with CAP_IPC_LOCK */
	struct mm_struct *mm;		/* pinned_vm account */
	/* GPU */
	struct bamkit_gpu_mapping *gpu;
};

/* fops.c */
extern const struct file_operations bamkit_fops;
void bamkit_file_release_mappings(struct bamkit_file *bf);

/* host_map.c */
int bamkit_map_host(struct bamkit_dev *bdev, u64 vaddr, u64 length,
		    struct bamkit_mapping **out);
void bamkit_unmap_host(struct bamkit_dev *bdev, struct bamkit_mapping *m);

/* gpu_map.c */
bool bamkit_gpu_supported(void);
bool bamkit_gpu_provider_loaded(void);
int bamkit_map_gpu(struct bamkit_dev *bdev, u64 vaddr, u64 length,
		   struct bamkit_mapping **out);
void bamkit_unmap_gpu(struct bamkit_dev *bdev, struct bamkit_mapping *m);
bool bamkit_gpu_dead(const struct bamkit_mapping *m);

/* main.c */
struct bamkit_dev *bamkit_dev_get_by_minor(unsigned int minor);
void bamkit_dev_get(struct bamkit_dev *bdev);
void bamkit_dev_put(struct bamkit_dev *bdev);
bool bamkit_quiesce(struct bamkit_dev *bdev);
bool bamkit_stopped(struct bamkit_dev *bdev);
void bamkit_master_off(struct bamkit_dev *bdev);
int bamkit_master_restore(struct bamkit_dev *bdev);

#endif
