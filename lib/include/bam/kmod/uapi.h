/* bam/kmod/uapi.h: API, the ioctl interface of the bamkit kernel module (kmod/).
 * Shared by the module (kernel C) and user space (C++): fixed-size structs, sizes checked at
 * compile time, numbers built with _IOWR. Every field is a fixed-width __u32/__u64. */
#ifndef BAM_KMOD_UAPI_H
#define BAM_KMOD_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#ifdef __cplusplus
#define BAMKIT_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define BAMKIT_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* Version of this interface, reported by BAMKIT_IOC_GET_INFO. 2: owners, privileges, deferred
 * UNMAP (kmod/README.md, "Security model"). */
#define BAMKIT_ABI_VERSION 2
/* Name of the character devices: /dev/bamkit-nvme<N>. */
#define BAMKIT_DEVICE_PREFIX "bamkit-nvme"

/* bamkit_info.flags */
#define BAMKIT_INFO_GPU_SUPPORT 0x1u  /* built against nv-p2p.h: BAMKIT_IOC_MAP_GPU can work */
#define BAMKIT_INFO_GPU_PROVIDER 0x2u /* the NVIDIA driver (nvidia_p2p_*) is loaded now */
/* Behind a strict translating IOMMU with interrupt remapping, alone in its group: writable opens
 * need no CAP_SYS_RAWIO. */
#define BAMKIT_INFO_IOMMU_ISOLATED 0x4u
/* This descriptor is open for writing: the controller's one owner (mmap and mapping ioctls). */
#define BAMKIT_INFO_OWNER 0x8u

/* The most mappings one open file holds (MAP_HOST + MAP_GPU, deferred UNMAPs included);
 * another MAP fails with ENOSPC. */
#define BAMKIT_MAX_MAPPINGS 4096

/* BAMKIT_IOC_GET_INFO: what the controller is. */
struct bamkit_info {
  __u32 abi_version; /* out: BAMKIT_ABI_VERSION */
  __u32 flags;       /* out: BAMKIT_INFO_* */
  __u64 bar_size;    /* out: bytes of BAR0, the most that mmap accepts */
  __u32 vendor;      /* out: PCI vendor ID */
  __u32 device;      /* out: PCI device ID */
  __u32 domain;      /* out: PCI address: domain:bus:slot.function */
  __u32 bus;
  __u32 slot;
  __u32 function;
  __u32 minor;    /* out: N of /dev/bamkit-nvme<N> */
  __u32 reserved; /* zero */
};
BAMKIT_STATIC_ASSERT(sizeof(struct bamkit_info) == 48, "bamkit_info layout");

/* BAMKIT_IOC_MAP_HOST / BAMKIT_IOC_MAP_GPU: pin and DMA-map a virtual range for this controller.
 * Host: vaddr and length multiples of 4 KiB (the CPU page size). GPU: multiples of 64 KiB. */
struct bamkit_map {
  __u64 vaddr;      /* in: start of the range in the caller's address space */
  __u64 length;     /* in: bytes */
  __u64 handle;     /* out: names the mapping in GET_ADDRS and UNMAP; never 0 */
  __u32 pages;      /* out: number of bus pages */
  __u32 page_shift; /* out: log2 of the bus page size (12 for host, 16 for GPU) */
};
BAMKIT_STATIC_ASSERT(sizeof(struct bamkit_map) == 32, "bamkit_map layout");

/* BAMKIT_IOC_MAP_GET_ADDRS: copy out the bus addresses of pages [first, first + count). */
struct bamkit_map_addrs {
  __u64 handle; /* in */
  __u64 addrs;  /* in: user pointer to count __u64 */
  __u32 first;  /* in: first page */
  __u32 count;  /* in: number of pages; first + count must not exceed the mapping's pages */
};
BAMKIT_STATIC_ASSERT(sizeof(struct bamkit_map_addrs) == 24, "bamkit_map_addrs layout");

/* bamkit_unmap.flags. DEFERRED: the controller was running, so the pages stay pinned and mapped
 * until it is seen stopped (CC.EN = 0 and CSTS.RDY = 0 at a later MAP or UNMAP) or the file is
 * closed. */
#define BAMKIT_UNMAP_DEFERRED 0x1u

/* BAMKIT_IOC_UNMAP: undo a MAP_HOST or MAP_GPU. The handle is invalid afterwards either way. */
struct bamkit_unmap {
  __u64 handle;   /* in */
  __u32 flags;    /* out: BAMKIT_UNMAP_* */
  __u32 reserved; /* zero */
};
BAMKIT_STATIC_ASSERT(sizeof(struct bamkit_unmap) == 16, "bamkit_unmap layout");

#define BAMKIT_IOC_MAGIC 0xba
#define BAMKIT_IOC_GET_INFO _IOWR(BAMKIT_IOC_MAGIC, 0x01, struct bamkit_info)
#define BAMKIT_IOC_MAP_HOST _IOWR(BAMKIT_IOC_MAGIC, 0x02, struct bamkit_map)
#define BAMKIT_IOC_MAP_GET_ADDRS _IOWR(BAMKIT_IOC_MAGIC, 0x03, struct bamkit_map_addrs)
#define BAMKIT_IOC_UNMAP _IOWR(BAMKIT_IOC_MAGIC, 0x04, struct bamkit_unmap)
#define BAMKIT_IOC_MAP_GPU _IOWR(BAMKIT_IOC_MAGIC, 0x05, struct bamkit_map)

#undef BAMKIT_STATIC_ASSERT
#endif /* BAM_KMOD_UAPI_H */
