// SPDX-License-Identifier: GPL-2.0
/*
 * fops.c - the character device: open/release, mmap of BAR0 and the ioctls
 * (bam/kmod/uapi.h). Every mapping belongs to the open file that made it and
 * is released with it (close or process death) or when the device is removed.
 *
 * Who may do what (kmod/README.md has the table):
 * - a read-only open: GET_INFO only (no BAR0 mapping, no DMA mapping);
 * - a writable open: needs CAP_SYS_RAWIO unless the device is isolated by a
 *   strict IOMMU (bamkit_dev.isolated), and only one file at a time may be
 *   open for writing (EBUSY): that file owns the controller, and only its
 *   release stops the controller.
 * Pages are never unpinned while the controller may DMA into them: UNMAP
 * while the controller runs defers the release until it is seen stopped.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include "bamkit.h"

static int bamkit_open(struct inode *inode, struct file *filp)
{
	bool writable = filp->f_mode & FMODE_WRITE;
	struct bamkit_dev *bdev;
	struct bamkit_file *bf;
	int ret;

	bdev = bamkit_dev_get_by_minor(iminor(inode));
	if (!bdev)
		return -ENODEV;
	/* Without an isolating IOMMU the controller can DMA anywhere. */
	if (writable && !bdev->isolated && !capable(CAP_SYS_RAWIO)) {
		ret = -EPERM;
		goto err_put;
	}
	bf = kzalloc(sizeof(*bf), GFP_KERNEL);
	if (!bf) {
		ret = -ENOMEM;
		goto err_put;
	}
	bf->filp = filp;
	mutex_init(&bf->lock);
	xa_init_flags(&bf->maps, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&bf->deferred);

	mutex_lock(&bdev->lock);
	if (bdev->gone) {
		ret = -ENODEV;
		goto err_unlock;
	}
	if (writable) {
		if (bdev->owner) {
			ret = -EBUSY;
			goto err_unlock;
		}
		ret = bamkit_master_restore(bdev);
		if (ret)
			goto err_unlock;
		bdev->owner = bf;
	}
	bf->bdev = bdev;	/* the reference taken above */
	list_add(&bf->node, &bdev->files);
	mutex_unlock(&bdev->lock);

	filp->private_data = bf;
	return nonseekable_open(inode, filp);

err_unlock:
	mutex_unlock(&bdev->lock);
	kfree(bf);
err_put:
	bamkit_dev_put(bdev);
	return ret;
}

static void bamkit_free_mapping(struct bamkit_dev *bdev, struct bamkit_mapping *m)
{
	if (m->kind == BAMKIT_MAP_HOST)
		bamkit_unmap_host(bdev, m);
	else
		bamkit_unmap_gpu(bdev, m);
}

/* Releases the mappings unmapped while the controller ran. Caller holds bf->lock. */
static void bamkit_release_deferred(struct bamkit_file *bf)
{
	struct bamkit_mapping *m, *tmp;

	list_for_each_entry_safe(m, tmp, &bf->deferred, deferred_node) {
		list_del(&m->deferred_node);
		bf->nr_maps--;
		bamkit_free_mapping(bf->bdev, m);
	}
}

/* Releases them if the controller is stopped now. Caller holds bf->lock. */
static void bamkit_reap_deferred(struct bamkit_file *bf)
{
	if (!list_empty(&bf->deferred) && bamkit_stopped(bf->bdev))
		bamkit_release_deferred(bf);
}

/*
 * Releases every mapping of a file, the controller already stopped. Caller
 * holds bdev->lock.
 */
void bamkit_file_release_mappings(struct bamkit_file *bf)
{
	struct bamkit_mapping *m;
	unsigned long idx;

	mutex_lock(&bf->lock);
	xa_for_each(&bf->maps, idx, m) {
		xa_erase(&bf->maps, idx);
		bf->nr_maps--;
		bamkit_free_mapping(bf->bdev, m);
	}
	bamkit_release_deferred(bf);
	mutex_unlock(&bf->lock);
}

static int bamkit_release(struct inode *inode, struct file *filp)
{
	struct bamkit_file *bf = filp->private_data;
	struct bamkit_dev *bdev = bf->bdev;

	mutex_lock(&bdev->lock);
	list_del(&bf->node);
	if (bdev->owner == bf) {
		bdev->owner = NULL;
		/*
		 * The controller may still point at this file's memory: stop it
		 * first; if it does not stop, cut its bus mastering.
		 */
		if (!bamkit_quiesce(bdev))
			bamkit_master_off(bdev);
		bamkit_file_release_mappings(bf);
	}
	mutex_unlock(&bdev->lock);

	xa_destroy(&bf->maps);
	kfree(bf);
	bamkit_dev_put(bdev);
	return 0;
}

/*
 * BAR0 pages are inserted on fault rather than at mmap time, under bar_lock,
 * so that device removal can revoke them race-free: remove sets bar_revoked
 * under the same lock, then zaps every mapping; a later fault gets SIGBUS.
 */
static vm_fault_t bamkit_bar_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct bamkit_file *bf = vma->vm_private_data;
	struct bamkit_dev *bdev = bf->bdev;
	unsigned long pfn;
	vm_fault_t ret;

	if (vmf->pgoff >= (bdev->bar_len >> PAGE_SHIFT))
		return VM_FAULT_SIGBUS;
	pfn = (bdev->bar_start >> PAGE_SHIFT) + vmf->pgoff;
	mutex_lock(&bdev->bar_lock);
	if (bdev->bar_revoked)
		ret = VM_FAULT_SIGBUS;
	else
		ret = vmf_insert_pfn(vma, vmf->address, pfn);
	mutex_unlock(&bdev->bar_lock);
	return ret;
}

static const struct vm_operations_struct bamkit_bar_vm_ops = {
	.fault = bamkit_bar_fault,
};

static int bamkit_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct bamkit_file *bf = filp->private_data;
	struct bamkit_dev *bdev = bf->bdev;
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	if (READ_ONCE(bdev->gone))
		return -ENODEV;
	/* Even read-only, the registers are the controller's owner's. */
	if (!(filp->f_mode & FMODE_WRITE))
		return -EACCES;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff >= (bdev->bar_len >> PAGE_SHIFT) || len > bdev->bar_len - off)
		return -EINVAL;

	vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
#else
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY;
#endif
	vma->vm_private_data = bf;
	vma->vm_ops = &bamkit_bar_vm_ops;
	return 0;
}

static long bamkit_ioctl_get_info(struct bamkit_file *bf, void __user *arg)
{
	struct bamkit_dev *bdev = bf->bdev;
	struct bamkit_info info = {};
	struct pci_dev *pdev = bdev->pdev;

	info.abi_version = BAMKIT_ABI_VERSION;
	if (bamkit_gpu_supported())
		info.flags |= BAMKIT_INFO_GPU_SUPPORT;
	if (bamkit_gpu_provider_loaded())
		info.flags |= BAMKIT_INFO_GPU_PROVIDER;
	if (bdev->isolated)
		info.flags |= BAMKIT_INFO_IOMMU_ISOLATED;
	if (bf->filp->f_mode & FMODE_WRITE)
		info.flags |= BAMKIT_INFO_OWNER;
	info.bar_size = bdev->bar_len;
	info.vendor = pdev->vendor;
	info.device = pdev->device;
	info.domain = pci_domain_nr(pdev->bus);
	info.bus = pdev->bus->number;
	info.slot = PCI_SLOT(pdev->devfn);
	info.function = PCI_FUNC(pdev->devfn);
	info.minor = bdev->minor;
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long bamkit_ioctl_map(struct bamkit_file *bf, void __user *arg, bool gpu)
{
	struct bamkit_map req;
	struct bamkit_mapping *m;
	u32 id;
	int ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	bamkit_reap_deferred(bf);
	if (bf->nr_maps >= BAMKIT_MAX_MAPPINGS)
		return -ENOSPC;
	if (gpu)
		ret = bamkit_map_gpu(bf->bdev, req.vaddr, req.length, &m);
	else
		ret = bamkit_map_host(bf->bdev, req.vaddr, req.length, &m);
	if (ret == -ENOMEM && !list_empty(&bf->deferred) && bamkit_stopped(bf->bdev)) {
		/* Deferred mappings may hold the RLIMIT_MEMLOCK charge: retry without. */
		bamkit_release_deferred(bf);
		if (gpu)
			ret = bamkit_map_gpu(bf->bdev, req.vaddr, req.length, &m);
		else
			ret = bamkit_map_host(bf->bdev, req.vaddr, req.length, &m);
	}
	if (ret)
		return ret;
	ret = xa_alloc(&bf->maps, &id, m, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		bamkit_free_mapping(bf->bdev, m);
		return ret;
	}
	bf->nr_maps++;
	m->handle = id;
	req.handle = id;
	req.pages = m->npages;
	req.page_shift = m->page_shift;
	if (copy_to_user(arg, &req, sizeof(req))) {
		/* Never handed out: the controller cannot know these addresses. */
		xa_erase(&bf->maps, id);
		bf->nr_maps--;
		bamkit_free_mapping(bf->bdev, m);
		return -EFAULT;
	}
	return 0;
}

static struct bamkit_mapping *bamkit_lookup(struct bamkit_file *bf, u64 handle)
{
	if (handle == 0 || handle > U32_MAX)
		return NULL;
	return xa_load(&bf->maps, (unsigned long)handle);
}

static long bamkit_ioctl_get_addrs(struct bamkit_file *bf, void __user *arg)
{
	struct bamkit_map_addrs req;
	struct bamkit_mapping *m;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	m = bamkit_lookup(bf, req.handle);
	if (!m)
		return -EINVAL;
	/* GPU memory freed under the mapping: its bus addresses are stale. */
	if (bamkit_gpu_dead(m))
		return -ENXIO;
	if (req.count == 0 || (u64)req.first + req.count > m->npages)
		return -EINVAL;
	if (copy_to_user(u64_to_user_ptr(req.addrs), m->addrs + req.first,
			 (size_t)req.count * sizeof(u64)))
		return -EFAULT;
	return 0;
}

static long bamkit_ioctl_unmap(struct bamkit_file *bf, struct bamkit_unmap __user *arg)
{
	struct bamkit_unmap req;
	struct bamkit_mapping *m;
	u32 flags = 0;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	/* Fail on an unwritable argument before anything is undone. */
	if (put_user(0, &arg->flags))
		return -EFAULT;
	if (req.handle == 0 || req.handle > U32_MAX || req.reserved)
		return -EINVAL;
	m = xa_erase(&bf->maps, (unsigned long)req.handle);
	if (!m)
		return -EINVAL;
	if (bamkit_stopped(bf->bdev)) {
		bf->nr_maps--;
		bamkit_free_mapping(bf->bdev, m);
		bamkit_release_deferred(bf);
	} else if (bamkit_gpu_dead(m)) {
		/* Its GPU memory is gone already: nothing left to keep. */
		bf->nr_maps--;
		bamkit_free_mapping(bf->bdev, m);
	} else {
		/*
		 * The controller runs and may still be told to use this memory:
		 * keep it pinned and mapped until it is seen stopped (a later
		 * MAP or UNMAP) or the file is released.
		 */
		list_add_tail(&m->deferred_node, &bf->deferred);
		flags = BAMKIT_UNMAP_DEFERRED;
	}
	/* The handle is gone either way: the flag only informs. */
	if (flags)
		(void)put_user(flags, &arg->flags);
	return 0;
}

static long bamkit_ioctl(struct file *filp, unsigned int cmd, unsigned long uarg)
{
	struct bamkit_file *bf = filp->private_data;
	void __user *arg = (void __user *)uarg;
	bool owner = filp->f_mode & FMODE_WRITE;
	long ret;

	mutex_lock(&bf->lock);
	/* Device removal sets gone, then takes each file's lock to clean up. */
	if (READ_ONCE(bf->bdev->gone)) {
		ret = -ENODEV;
		goto out;
	}
	switch (cmd) {
	case BAMKIT_IOC_GET_INFO:
		ret = bamkit_ioctl_get_info(bf, arg);
		break;
	case BAMKIT_IOC_MAP_HOST:
		ret = owner ? bamkit_ioctl_map(bf, arg, false) : -EBADF;
		break;
	case BAMKIT_IOC_MAP_GPU:
		ret = owner ? bamkit_ioctl_map(bf, arg, true) : -EBADF;
		break;
	case BAMKIT_IOC_MAP_GET_ADDRS:
		/* Without an IOMMU these are physical addresses: the owner's only. */
		ret = owner ? bamkit_ioctl_get_addrs(bf, arg) : -EBADF;
		break;
	case BAMKIT_IOC_UNMAP:
		ret = owner ? bamkit_ioctl_unmap(bf, arg) : -EBADF;
		break;
	default:
		ret = -ENOTTY;
	}
out:
	mutex_unlock(&bf->lock);
	return ret;
}

const struct file_operations bamkit_fops = {
	.owner = THIS_MODULE,
	.open = bamkit_open,
	.release = bamkit_release,
	.mmap = bamkit_mmap,
	.unlocked_ioctl = bamkit_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};
