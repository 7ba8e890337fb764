// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module init/exit and the PCI driver of bamkit.
 *
 * The driver has an empty ID table: it never claims a device by itself. A user
 * hands it an NVMe controller explicitly through sysfs (unbind from nvme, write
 * "bamkit" to driver_override, then bind or drivers_probe); see README.md.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/irqdomain.h>
#include <linux/msi.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/swiotlb.h>
#include <linux/version.h>

#include "bamkit.h"

static struct class *bamkit_class;
static dev_t bamkit_devt_base;
static DEFINE_IDA(bamkit_minors);
/* minor -> device, for open(): a reference is taken under the lock. */
static DEFINE_MUTEX(bamkit_devs_lock);
static struct bamkit_dev *bamkit_devs[BAMKIT_MAX_DEVICES];

/* NVMe register offsets used to quiesce a controller. */
#define NVME_REG_CAP 0x00
#define NVME_REG_CC 0x14
#define NVME_REG_CSTS 0x1c
#define NVME_CC_EN 0x1u
#define NVME_CSTS_RDY 0x1u

/*
 * Stop the controller's DMA: clear CC.EN and wait for CSTS.RDY to drop, so that
 * no queue still points into memory that is about to be unpinned. Used when
 * mappings are released behind the user's back (file closed, device removed).
 * Returns false when the controller did not stop within CAP.TO.
 */
bool bamkit_quiesce(struct bamkit_dev *bdev)
{
	u32 cc, csts;
	u32 cap;
	unsigned long deadline;

	if (!bdev->regs)
		return true;
	cc = readl(bdev->regs + NVME_REG_CC);
	if (cc == ~0u)
		return true;	/* not answering: gone from the bus */
	cap = readl(bdev->regs + NVME_REG_CAP);	/* CAP.TO is in the low half */
	if (cc & NVME_CC_EN)
		writel(cc & ~NVME_CC_EN, bdev->regs + NVME_REG_CC);
	/* CAP.TO is in 500 ms units; wait at most that (and at least 1 s). */
	deadline = jiffies + msecs_to_jiffies(max_t(u32, 1000, ((cap >> 24) & 0xff) * 500));
	for (;;) {
		csts = readl(bdev->regs + NVME_REG_CSTS);
		if (csts == ~0u || !(csts & NVME_CSTS_RDY))
			return true;
		if (time_after(jiffies, deadline)) {
			dev_warn(&bdev->pdev->dev, "controller did not become idle after reset\n");
			return false;
		}
		usleep_range(1000, 2000);
	}
}

/*
 * Whether the controller cannot DMA now: disabled and idle (CC.EN = 0 and
 * CSTS.RDY = 0, what a controller reset or shutdown by its owner leaves),
 * not answering, or with bus mastering off. Memory unmapped by the owner is
 * unpinned only then.
 */
bool bamkit_stopped(struct bamkit_dev *bdev)
{
	u32 cc, csts;

	if (!bdev->regs || atomic_read(&bdev->master_off))
		return true;
	cc = readl(bdev->regs + NVME_REG_CC);
	if (cc == ~0u)
		return true;
	if (cc & NVME_CC_EN)
		return false;
	csts = readl(bdev->regs + NVME_REG_CSTS);
	return csts == ~0u || !(csts & NVME_CSTS_RDY);
}

/*
 * Cut the controller's DMA at once, without waiting for it: for the GPU free
 * callback (which may not sleep) and for a controller that would not stop.
 */
void bamkit_master_off(struct bamkit_dev *bdev)
{
	pci_clear_master(bdev->pdev);
	atomic_set(&bdev->master_off, 1);
}

/*
 * Called for a new owner (under bdev->lock): bus mastering that was cut is
 * turned back on only once the controller is seen stopped, so that it cannot
 * resume DMA into memory that was freed meanwhile.
 */
int bamkit_master_restore(struct bamkit_dev *bdev)
{
	if (!atomic_read(&bdev->master_off))
		return 0;
	if (!bamkit_quiesce(bdev)) {
		dev_err(&bdev->pdev->dev,
			"bus mastering stays off: the controller does not stop (unbind and rebind it)\n");
		return -EIO;
	}
	pci_set_master(bdev->pdev);
	atomic_set(&bdev->master_off, 0);
	dev_info(&bdev->pdev->dev, "controller stopped, bus mastering back on\n");
	return 0;
}

static void bamkit_dev_free(struct kref *ref)
{
	struct bamkit_dev *bdev = container_of(ref, struct bamkit_dev, ref);

	pci_dev_put(bdev->pdev);
	kfree(bdev);
}

void bamkit_dev_get(struct bamkit_dev *bdev)
{
	kref_get(&bdev->ref);
}

void bamkit_dev_put(struct bamkit_dev *bdev)
{
	kref_put(&bdev->ref, bamkit_dev_free);
}

struct bamkit_dev *bamkit_dev_get_by_minor(unsigned int minor)
{
	struct bamkit_dev *bdev = NULL;

	mutex_lock(&bamkit_devs_lock);
	if (minor < BAMKIT_MAX_DEVICES && bamkit_devs[minor]) {
		bdev = bamkit_devs[minor];
		kref_get(&bdev->ref);
	}
	mutex_unlock(&bamkit_devs_lock);
	return bdev;
}

static int bamkit_count_device(struct device *dev, void *data)
{
	++*(int *)data;
	return 0;
}

/*
 * Whether a DMA write to the MSI address range can only raise this device's
 * own interrupts (interrupt remapping): otherwise its owner could inject any
 * interrupt, which is why VFIO refuses such devices too.
 */
static bool bamkit_msi_isolated(struct pci_dev *pdev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	return msi_device_has_isolated_msi(&pdev->dev);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 19, 0)
	return irq_domain_check_msi_remap() ||
	       device_iommu_capable(&pdev->dev, IOMMU_CAP_INTR_REMAP);
#else
	return irq_domain_check_msi_remap() || iommu_capable(pdev->dev.bus, IOMMU_CAP_INTR_REMAP);
#endif
}

/*
 * Whether the IOMMU confines the controller to what this module maps for it:
 * a translating domain in strict mode (an unmapped address faults at once; a
 * lazy domain's flush queue may leave a freed page reachable for a while), no
 * other device in the group (peer-to-peer between group members may bypass
 * the IOMMU), and interrupt remapping. Says why not in `why`.
 */
static bool bamkit_iommu_isolates(struct bamkit_dev *bdev, const char **why)
{
	struct pci_dev *pdev = bdev->pdev;
	struct iommu_domain *domain = iommu_get_domain_for_dev(&pdev->dev);
	struct iommu_group *group;
	int n = 0;

	bdev->translated = domain && (domain->type & __IOMMU_DOMAIN_PAGING);
	if (!domain) {
		*why = "no IOMMU";
		return false;
	}
	if (domain->type == IOMMU_DOMAIN_DMA_FQ) {
		*why = "IOMMU in lazy mode (boot with iommu.strict=1)";
		return false;
	}
	if (domain->type != IOMMU_DOMAIN_DMA) {
		*why = "IOMMU not translating (passthrough)";
		return false;
	}
	group = iommu_group_get(&pdev->dev);
	if (!group) {
		*why = "no IOMMU group";
		return false;
	}
	iommu_group_for_each_dev(group, &n, bamkit_count_device);
	iommu_group_put(group);
	if (n != 1) {
		*why = "IOMMU group shared with other devices";
		return false;
	}
	if (!bamkit_msi_isolated(pdev)) {
		*why = "IOMMU without interrupt remapping";
		return false;
	}
	*why = "strict IOMMU translation";
	return true;
}

/*
 * bamkit hands bus addresses to the controller directly and never calls
 * dma_sync: it must be able to address all of memory without bounce buffers.
 */
static int bamkit_check_dma(struct pci_dev *pdev)
{
	if (dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64))) {
		dev_err(&pdev->dev, "no 64-bit DMA mask: refused (bamkit cannot bounce-buffer DMA)\n");
		return -EIO;
	}
	if (!dev_is_dma_coherent(&pdev->dev)) {
		dev_err(&pdev->dev, "DMA is not cache-coherent: refused (bamkit never syncs DMA)\n");
		return -EIO;
	}
	if (dma_addressing_limited(&pdev->dev)) {
		dev_err(&pdev->dev,
			"DMA cannot reach all of memory: refused (bamkit cannot bounce-buffer DMA)\n");
		return -EIO;
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
	if (is_swiotlb_force_bounce(&pdev->dev)) {
		dev_err(&pdev->dev,
			"every DMA would be bounced (swiotlb=force or memory encryption): refused\n");
		return -EIO;
	}
#endif
	return 0;
}

static int bamkit_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct bamkit_dev *bdev;
	const char *why;
	int ret;

	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM)) {
		dev_err(&pdev->dev, "BAR0 is not a memory BAR\n");
		return -ENODEV;
	}
	if (pci_resource_len(pdev, 0) < PAGE_SIZE) {
		dev_err(&pdev->dev, "BAR0 is smaller than a page\n");
		return -ENODEV;
	}

	bdev = kzalloc(sizeof(*bdev), GFP_KERNEL);
	if (!bdev)
		return -ENOMEM;
	bdev->pdev = pci_dev_get(pdev);
	kref_init(&bdev->ref);
	mutex_init(&bdev->lock);
	mutex_init(&bdev->bar_lock);
	INIT_LIST_HEAD(&bdev->files);
	atomic_set(&bdev->master_off, 0);

	ret = pci_enable_device_mem(pdev);
	if (ret)
		goto err_free;
	ret = pci_request_region(pdev, 0, BAMKIT_NAME);
	if (ret)
		goto err_disable;
	ret = bamkit_check_dma(pdev);
	if (ret)
		goto err_release;
	bdev->isolated = bamkit_iommu_isolates(bdev, &why);
	pci_set_master(pdev);
	/* Queues run without interrupts: keep INTx from firing unhandled. */
	pci_intx(pdev, 0);

	bdev->bar_start = pci_resource_start(pdev, 0);
	bdev->bar_len = pci_resource_len(pdev, 0);
	bdev->regs = pci_iomap(pdev, 0, PAGE_SIZE);
	if (!bdev->regs) {
		ret = -ENOMEM;
		goto err_master;
	}

	ret = ida_alloc_max(&bamkit_minors, BAMKIT_MAX_DEVICES - 1, GFP_KERNEL);
	if (ret < 0)
		goto err_unmap;
	bdev->minor = ret;
	bdev->devt = MKDEV(MAJOR(bamkit_devt_base), bdev->minor);

	bdev->cdev = cdev_alloc();
	if (!bdev->cdev) {
		ret = -ENOMEM;
		goto err_minor;
	}
	bdev->cdev->ops = &bamkit_fops;
	bdev->cdev->owner = THIS_MODULE;
	ret = cdev_add(bdev->cdev, bdev->devt, 1);
	if (ret)
		goto err_cdev;
	bdev->dev = device_create(bamkit_class, &pdev->dev, bdev->devt, bdev,
				  BAMKIT_DEVICE_PREFIX "%d", bdev->minor);
	if (IS_ERR(bdev->dev)) {
		ret = PTR_ERR(bdev->dev);
		goto err_cdev;
	}
	pci_set_drvdata(pdev, bdev);
	/*
	 * Published last: open() finds the device only from here on, so no file
	 * can hold a reference to it on any error path above (an open before
	 * this point gets ENODEV).
	 */
	mutex_lock(&bamkit_devs_lock);
	bamkit_devs[bdev->minor] = bdev;
	mutex_unlock(&bamkit_devs_lock);
	dev_info(&pdev->dev, "bound as /dev/" BAMKIT_DEVICE_PREFIX "%d, BAR0 %pa bytes; %s: %s\n",
		 bdev->minor, &bdev->bar_len, why,
		 bdev->isolated ? "the node's permissions decide who may use it"
				: "writable opens need CAP_SYS_RAWIO");
	return 0;

err_cdev:
	cdev_del(bdev->cdev);
err_minor:
	ida_free(&bamkit_minors, bdev->minor);
err_unmap:
	pci_iounmap(pdev, bdev->regs);
err_master:
	pci_clear_master(pdev);
err_release:
	pci_release_region(pdev, 0);
err_disable:
	pci_disable_device(pdev);
err_free:
	bamkit_dev_put(bdev);	/* never published: this is the only reference */
	return ret;
}

static void bamkit_remove(struct pci_dev *pdev)
{
	struct bamkit_dev *bdev = pci_get_drvdata(pdev);
	struct bamkit_file *bf;

	/* No new opens. Files already open stay valid but lose the device. */
	mutex_lock(&bamkit_devs_lock);
	bamkit_devs[bdev->minor] = NULL;
	mutex_unlock(&bamkit_devs_lock);
	device_destroy(bamkit_class, bdev->devt);
	cdev_del(bdev->cdev);

	mutex_lock(&bdev->bar_lock);
	bdev->bar_revoked = true;
	mutex_unlock(&bdev->bar_lock);

	mutex_lock(&bdev->lock);
	WRITE_ONCE(bdev->gone, true);
	bdev->owner = NULL;
	if (!bamkit_quiesce(bdev))
		bamkit_master_off(bdev);
	list_for_each_entry(bf, &bdev->files, node) {
		bamkit_file_release_mappings(bf);
		/* Revoke BAR mappings: a later access faults (SIGBUS). */
		unmap_mapping_range(bf->filp->f_mapping, 0, 0, 1);
	}
	mutex_unlock(&bdev->lock);

	pci_iounmap(pdev, bdev->regs);
	bdev->regs = NULL;
	pci_intx(pdev, 1);	/* as probe found it, for the next driver */
	pci_clear_master(pdev);
	pci_release_region(pdev, 0);
	pci_disable_device(pdev);
	ida_free(&bamkit_minors, bdev->minor);
	pci_set_drvdata(pdev, NULL);
	dev_info(&pdev->dev, "unbound from bamkit\n");
	bamkit_dev_put(bdev);
}

/* Empty: devices are bound only on explicit request (driver_override). */
static const struct pci_device_id bamkit_ids[] = {
	{ 0, }
};
MODULE_DEVICE_TABLE(pci, bamkit_ids);

static struct pci_driver bamkit_driver = {
	.name = BAMKIT_NAME,
	.id_table = bamkit_ids,
	.probe = bamkit_probe,
	.remove = bamkit_remove,
};

static int __init bamkit_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&bamkit_devt_base, 0, BAMKIT_MAX_DEVICES, BAMKIT_NAME);
	if (ret)
		return ret;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	bamkit_class = class_create(BAMKIT_NAME);
#else
	bamkit_class = class_create(THIS_MODULE, BAMKIT_NAME);
#endif
	if (IS_ERR(bamkit_class)) {
		ret = PTR_ERR(bamkit_class);
		goto err_region;
	}
	ret = pci_register_driver(&bamkit_driver);
	if (ret)
		goto err_class;
	if (bamkit_gpu_supported())
		pr_info(BAMKIT_NAME ": loaded, GPU memory mapping built in (nv-p2p); the NVIDIA driver is %s\n",
			bamkit_gpu_provider_loaded() ? "loaded"
						     : "not loaded now (MAP_GPU returns -ENOPKG until it is)");
	else
		pr_info(BAMKIT_NAME ": loaded, GPU memory mapping NOT built in "
			"(rebuild with NVIDIA_SRC=<nvidia driver source>); MAP_GPU returns -EOPNOTSUPP\n");
	return 0;

err_class:
	class_destroy(bamkit_class);
err_region:
	unregister_chrdev_region(bamkit_devt_base, BAMKIT_MAX_DEVICES);
	return ret;
}

static void __exit bamkit_exit(void)
{
	pci_unregister_driver(&bamkit_driver);
	class_destroy(bamkit_class);
	unregister_chrdev_region(bamkit_devt_base, BAMKIT_MAX_DEVICES);
	ida_destroy(&bamkit_minors);
	pr_info(BAMKIT_NAME ": unloaded\n");
}

module_init(bamkit_init);
module_exit(bamkit_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bamkit: user-space and GPU access to NVMe controllers (BAR0 mmap, DMA mapping)");
MODULE_VERSION("0.1");
