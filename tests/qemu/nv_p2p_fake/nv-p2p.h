/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nv-p2p.h - the part of NVIDIA's peer-to-peer kernel interface that bamkit uses,
 * declared for the QEMU test's stand-in provider (nv_p2p_fake.c). Same names,
 * signatures and structure layouts as the NVIDIA driver's header, so that bamkit
 * builds against either; the real one comes with the NVIDIA driver source.
 */
#ifndef BAMKIT_FAKE_NV_P2P_H
#define BAMKIT_FAKE_NV_P2P_H

#include <linux/types.h>

struct pci_dev;

#define NVIDIA_P2P_MAJOR(v) (((v) >> 16) & 0xffff)
#define NVIDIA_P2P_MINOR(v) ((v) & 0xffff)
#define NVIDIA_P2P_COMPATIBLE(p, v) \
	(NVIDIA_P2P_MAJOR((p)->version) == NVIDIA_P2P_MAJOR(v) && \
	 NVIDIA_P2P_MINOR((p)->version) >= NVIDIA_P2P_MINOR(v))

enum nvidia_p2p_page_size_type {
	NVIDIA_P2P_PAGE_SIZE_4KB = 0,
	NVIDIA_P2P_PAGE_SIZE_64KB,
	NVIDIA_P2P_PAGE_SIZE_128KB,
	NVIDIA_P2P_PAGE_SIZE_COUNT
};

struct nvidia_p2p_page {
	u64 physical_address;
	u32 registers[6];
};

#define NVIDIA_P2P_PAGE_TABLE_VERSION 0x00010002
#define NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(p) \
	NVIDIA_P2P_COMPATIBLE(p, NVIDIA_P2P_PAGE_TABLE_VERSION)

struct nvidia_p2p_page_table {
	u32 version;
	u32 page_size;	/* enum nvidia_p2p_page_size_type */
	struct nvidia_p2p_page **pages;
	u32 entries;
	u8 *gpu_uuid;
};

#define NVIDIA_P2P_DMA_MAPPING_VERSION 0x00020003
#define NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(p) \
	NVIDIA_P2P_COMPATIBLE(p, NVIDIA_P2P_DMA_MAPPING_VERSION)

struct nvidia_p2p_dma_mapping {
	u32 version;
	enum nvidia_p2p_page_size_type page_size_type;
	u32 entries;
	u64 *dma_addresses;
	void *private;
	struct pci_dev *pci_dev;
};

int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address, u64 length,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data);
int nvidia_p2p_dma_map_pages(struct pci_dev *peer, struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping);
int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer, struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping);
int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping);

#endif
