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
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
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

/*
 * Stop the controller's DMA: clear CC.EN and wait for CSTS.RDY to drop, so that
 * no queue still points into memory that is about to be unpinned. Used when
 * mappings are released behind the user's back (file closed, device removed).
 */
void bamkit_quiesce(struct bamkit_dev *bdev)
{
	u32 cc, csts;
	u32 cap;
	unsigned long deadline;

	if (!bdev->regs)
		return;
	cc = readl(bdev->regs + NVME_REG_CC);
	if (cc == ~0u || !(cc & 1u))
		return;
	cap = readl(bdev->regs + NVME_REG_CAP);	/* CAP.TO is in the low half */
	writel(cc & ~1u, bdev->regs + NVME_REG_CC);
	/* CAP.TO is in 500 ms units; wait at most that (and at least 1 s). */
	deadline = jiffies + msecs_to_jiffies(max_t(u32, 1000, ((cap >> 24) & 0xff) * 500));
	for (;;) {
		csts = readl(bdev->regs + NVME_REG_CSTS);
		if (csts == ~0u || !(csts & 1u))
			return;
		if (time_after(jiffies, deadline)) {
			dev_warn(&bdev->pdev->dev, "controller did not become idle after reset\n");
			return;
		}
		usleep_range(1000, 2000);
	}
}

static void bamkit_dev_free(struct kref *ref)
{
	struct bamkit_dev *bdev = container_of(ref, struct bamkit_dev, ref);

	kfree(bdev);
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

static int bamkit_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct bamkit_dev *bdev;
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
	bdev->pdev = pdev;
	kref_init(&bdev->ref);
	mutex_init(&bdev->lock);
	mutex_init(&bdev->bar_lock);
	INIT_LIST_HEAD(&bdev->files);

	ret = pci_enable_device_mem(pdev);
	if (ret)
		goto err_free;
	ret = pci_request_region(pdev, 0, BAMKIT_NAME);
	if (ret)
		goto err_disable;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (ret) {
		dev_err(&pdev->dev, "no usable DMA mask\n");
		goto err_release;
	}
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
	mutex_lock(&bamkit_devs_lock);
	bamkit_devs[bdev->minor] = bdev;
	mutex_unlock(&bamkit_devs_lock);
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
	dev_info(&pdev->dev, "bound as /dev/" BAMKIT_DEVICE_PREFIX "%d, BAR0 %pa bytes\n",
		 bdev->minor, &bdev->bar_len);
	return 0;

err_cdev:
	mutex_lock(&bamkit_devs_lock);
	bamkit_devs[bdev->minor] = NULL;
	mutex_unlock(&bamkit_devs_lock);
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
	kfree(bdev);
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
	bamkit_quiesce(bdev);
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
		pr_info(BAMKIT_NAME ": loaded, GPU memory mapping built in (nv-p2p)\n");
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
