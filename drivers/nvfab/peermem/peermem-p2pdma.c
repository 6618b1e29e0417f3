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
 * The PCI device whose BAR holds a page is found by a scan of every PCI
 * device: 6.12 exports no lookup from a page to its provider. The
 * devices found last are kept, with a reference, so that the I/O path
 * scans only for a BAR it has not seen. A kept device answers for a page
 * only while its BAR holds the page's physical address (BARs never
 * overlap), and only while it is on the bus with its driver: the PCI bus
 * notifier empties the cache whenever any device is removed or loses its
 * driver (which takes its P2PDMA memory with it), and a scan that raced
 * with that (the generation moved) keeps nothing.
 */
#define NVFAB_P2PDMA_CACHE	4

static DEFINE_SPINLOCK(nvfab_p2pdma_cache_lock);
static struct pci_dev *nvfab_p2pdma_cache[NVFAB_P2PDMA_CACHE];
static unsigned int nvfab_p2pdma_cache_next;
static unsigned long nvfab_p2pdma_cache_gen;

static bool nvfab_p2pdma_bar_holds(struct pci_dev *pdev, phys_addr_t phys)
{
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		if (pci_resource_len(pdev, bar) &&
		    phys >= pci_resource_start(pdev, bar) &&
		    phys <= pci_resource_end(pdev, bar))
			return true;
	}
	return false;
}

/* A kept device whose BAR holds @phys, with a reference; sets @gen. */
static struct pci_dev *nvfab_p2pdma_cache_find(phys_addr_t phys,
					       unsigned long *gen)
{
	struct pci_dev *pdev = NULL;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&nvfab_p2pdma_cache_lock, flags);
	*gen = nvfab_p2pdma_cache_gen;
	for (i = 0; i < NVFAB_P2PDMA_CACHE; i++) {
		if (nvfab_p2pdma_cache[i] &&
		    nvfab_p2pdma_bar_holds(nvfab_p2pdma_cache[i], phys)) {
			pdev = pci_dev_get(nvfab_p2pdma_cache[i]);
			break;
		}
	}
	spin_unlock_irqrestore(&nvfab_p2pdma_cache_lock, flags);
	return pdev;
}

/* Keep @pdev, unless the bus changed since generation @gen was read. */
static void nvfab_p2pdma_cache_add(struct pci_dev *pdev, unsigned long gen)
{
	struct pci_dev *old = NULL;
	unsigned long flags;

	spin_lock_irqsave(&nvfab_p2pdma_cache_lock, flags);
	if (gen == nvfab_p2pdma_cache_gen) {
		old = nvfab_p2pdma_cache[nvfab_p2pdma_cache_next];
		nvfab_p2pdma_cache[nvfab_p2pdma_cache_next] = pci_dev_get(pdev);
		nvfab_p2pdma_cache_next = (nvfab_p2pdma_cache_next + 1) %
					  NVFAB_P2PDMA_CACHE;
	}
	spin_unlock_irqrestore(&nvfab_p2pdma_cache_lock, flags);
	pci_dev_put(old);
}

static void nvfab_p2pdma_cache_flush(void)
{
	struct pci_dev *old[NVFAB_P2PDMA_CACHE];
	unsigned long flags;
	int i;

	spin_lock_irqsave(&nvfab_p2pdma_cache_lock, flags);
	nvfab_p2pdma_cache_gen++;
	for (i = 0; i < NVFAB_P2PDMA_CACHE; i++) {
		old[i] = nvfab_p2pdma_cache[i];
		nvfab_p2pdma_cache[i] = NULL;
	}
	spin_unlock_irqrestore(&nvfab_p2pdma_cache_lock, flags);
	for (i = 0; i < NVFAB_P2PDMA_CACHE; i++)
		pci_dev_put(old[i]);
}

static int nvfab_p2pdma_bus_event(struct notifier_block *nb,
				  unsigned long action, void *data)
{
	switch (action) {
	case BUS_NOTIFY_DEL_DEVICE:
	case BUS_NOTIFY_UNBIND_DRIVER:
	case BUS_NOTIFY_UNBOUND_DRIVER:
		nvfab_p2pdma_cache_flush();
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block nvfab_p2pdma_bus_nb = {
	.notifier_call = nvfab_p2pdma_bus_event,
};

/*
 * The PCI device that published @page: the one whose BAR holds the page's
 * physical address, from the cache or else from a scan.
 * Context: any context (the submission path); does not sleep.
 * Return: the device with a reference held, or NULL.
 */
static struct pci_dev *nvfab_p2pdma_provider(struct page *page)
{
	phys_addr_t phys = page_to_phys(page);
	struct pci_dev *pdev;
	unsigned long gen;

	pdev = nvfab_p2pdma_cache_find(phys, &gen);
	if (pdev)
		return pdev;
	while ((pdev = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, pdev))) {
		if (nvfab_p2pdma_bar_holds(pdev, phys)) {
			nvfab_p2pdma_cache_add(pdev, gen);
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
 * Also watches the PCI bus, so that the providers it keeps (see
 * nvfab_p2pdma_provider()) are forgotten when a device goes.
 *
 * Context: module init, may sleep.
 * Return: 0, bus_register_notifier()'s or nvfab_peer_register()'s error.
 */
int nvfab_p2pdma_init(void)
{
	int ret;

	ret = bus_register_notifier(&pci_bus_type, &nvfab_p2pdma_bus_nb);
	if (ret)
		return ret;
	ret = nvfab_peer_register(&nvfab_p2pdma_provider_ops);
	if (ret) {
		bus_unregister_notifier(&pci_bus_type, &nvfab_p2pdma_bus_nb);
		nvfab_p2pdma_cache_flush();
	}
	return ret;
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
	bus_unregister_notifier(&pci_bus_type, &nvfab_p2pdma_bus_nb);
	nvfab_p2pdma_cache_flush();
}
