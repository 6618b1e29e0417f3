/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfab-peermem internals: the providers built into the module.
 */
#ifndef _NVFAB_PEERMEM_PRIV_H
#define _NVFAB_PEERMEM_PRIV_H

#ifdef CONFIG_PCI_P2PDMA
int nvfab_p2pdma_init(void);
void nvfab_p2pdma_exit(void);
#else
static inline int nvfab_p2pdma_init(void)
{
	return 0;
}

static inline void nvfab_p2pdma_exit(void)
{
}
#endif

#endif /* _NVFAB_PEERMEM_PRIV_H */
