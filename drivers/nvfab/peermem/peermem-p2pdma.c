// SPDX-License-Identifier: GPL-2.0
/*
 * The generic P2PDMA provider of nvfab-peermem (route 1 of
 * Documentation/admin-guide/nvfab-peermem.rst): ZONE_DEVICE pages that a
 * PCI driver published with pci_p2pdma_add_resource(), an NVMe CMB, a GPU
 * BAR, a test BAR. Built only on kernels with CONFIG_PCI_P2PDMA.
 *
 * Reachability is the PCI core's: pci_p2pdma_distance() between the PCI
 * device whose BAR holds the page and the RDMA device. A software RDMA
 * device (rdma_rxe, siw) moves data with the CPU through the kernel's
 * mapping of the BAR, so it reaches every such page, at distance 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

#include <nvfab/peermem.h>

#include <nvfab/compat.h>
#include "peermem.h"

static bool nvfab_p2pdma_owns_page(struct page *page)
{
	return is_pci_p2pdma_page(page);
}

/*
 * The PCI device that published @page: the one whose BAR holds the page's
 * physical address (the PCI core has no lookup from a page to its
 * provider that every supported kernel exports). Looked up each time: a
 * page's provider can be unbound and its pgmap reused, so nothing is
 * cached.
 * Return: the device with a reference held, or NULL.
 */
static struct pci_dev *nvfab_p2pdma_provider(struct page *page)
{
	phys_addr_t phys = page_to_phys(page);
	struct pci_dev *pdev = NULL;
	int bar;

	while ((pdev = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, pdev))) {
		for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
			if (pci_resource_len(pdev, bar) &&
			    phys >= pci_resource_start(pdev, bar) &&
			    phys <= pci_resource_end(pdev, bar))
				return pdev;
		}
	}
	return NULL;
}

static int nvfab_p2pdma_distance(const struct nvfab_peer_map *map)
{
	struct pci_dev *provider;
	int dist;

	if (!map->dma->dev)
		return 0;
	provider = nvfab_p2pdma_provider(map->page);
	if (!provider)
		return -EREMOTEIO;
	dist = pci_p2pdma_distance(provider, map->dma->dev, false);
	pci_dev_put(provider);
	return dist < 0 ? -EREMOTEIO : dist;
}

static int nvfab_p2pdma_map_sg(struct nvfab_peer_map *map,
			       struct scatterlist *sgl, int nents)
{
	struct sg_table sgt = {
		.sgl = sgl, .nents = nents, .orig_nents = nents,
	};
	struct scatterlist *sg;
	int i, ret;

	if (!map->dma->dev) {
		/* the CPU copies: the kernel's mapping of the BAR */
		for_each_sg(sgl, sg, nents, i) {
			sg_dma_address(sg) = (uintptr_t)sg_virt(sg);
			sg_dma_len(sg) = sg->length;
		}
		return nents;
	}
	/* the DMA API maps P2PDMA pages to bus addresses, or refuses them */
	ret = dma_map_sgtable(map->dma->dev, &sgt, map->dir, 0);
	return ret ? ret : sgt.nents;
}

static void nvfab_p2pdma_unmap_sg(struct nvfab_peer_map *map,
				  struct scatterlist *sgl, int nents)
{
	if (map->dma->dev)
		dma_unmap_sg(map->dma->dev, sgl, nents, map->dir);
}

static const struct nvfab_peer_ops nvfab_p2pdma_ops = {
	.owns_page	= nvfab_p2pdma_owns_page,
	.distance	= nvfab_p2pdma_distance,
	.map_sg		= nvfab_p2pdma_map_sg,
	.unmap_sg	= nvfab_p2pdma_unmap_sg,
};

static struct nvfab_peer_provider nvfab_p2pdma_provider_ops = {
	.name	= "p2pdma",
	.owner	= THIS_MODULE,
	.ops	= &nvfab_p2pdma_ops,
};

/**
 * nvfab_p2pdma_init() - register the generic P2PDMA provider
 *
 * Context: module init, may sleep.
 * Return: 0 or nvfab_peer_register()'s error.
 */
int nvfab_p2pdma_init(void)
{
	return nvfab_peer_register(&nvfab_p2pdma_provider_ops);
}

/**
 * nvfab_p2pdma_exit() - withdraw the generic P2PDMA provider
 *
 * Waits for the mappings of P2PDMA memory in flight.
 *
 * Context: module exit, may sleep.
 */
void nvfab_p2pdma_exit(void)
{
	nvfab_peer_unregister(&nvfab_p2pdma_provider_ops);
}
