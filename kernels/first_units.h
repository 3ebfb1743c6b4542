/* Each CTA's first unit and its range of units, as the sm90 decode takes them in its launch's
 * parameters (v115, decode_sm90.hip): filled on the host at each launch from the host's copy of the
 * plan (mb_decode_args_t.host_work / host_work_indptr), so that no load from memory the L2 flush left
 * cold stands between a CTA's start and its unit's first copies. Plain C, so the host tests check it. */
#ifndef MB_FIRST_UNITS_H
#define MB_FIRST_UNITS_H

#include <string.h>
#include "kernels.h"

/* A Hopper part's SMs (the plan's CTAs, one a worker); 6.3 KB of parameters, inside the 32 KB that
 * CUDA 12.1 and later allow. */
#define MB_FIRST_UNITS_CTAS 132

typedef struct mb_first_units {
    int32_t n;                                   /* CTAs described; 0: the kernel reads the plan itself */
    int32_t w[MB_FIRST_UNITS_CTAS][2];           /* work_indptr[cta], work_indptr[cta + 1] */
    mb_work_t u[MB_FIRST_UNITS_CTAS];            /* work[work_indptr[cta]] */
    /* page_indptr[u.batch] of a paged cache (0 for a flat one), so that the first tile's row is one
     * load away, the page table's entry, and not two (page_indptr's, then the table's; v133d). Last,
     * so that the fields before keep their places. */
    int32_t page0[MB_FIRST_UNITS_CTAS];
} mb_first_units_t;

/* n = 0 without the host's copy of the plan or past MB_FIRST_UNITS_CTAS CTAs. */
static inline void mb_first_units_fill(const mb_decode_args_t *a, mb_first_units_t *f)
{
    memset(f, 0, sizeof *f);
    if (!a->host_work || !a->host_work_indptr || a->num_ctas > MB_FIRST_UNITS_CTAS) return;
    f->n = a->num_ctas;
    for (int c = 0; c < a->num_ctas; c++) {
        f->w[c][0] = a->host_work_indptr[c], f->w[c][1] = a->host_work_indptr[c + 1];
        f->u[c] = a->host_work[a->host_work_indptr[c]];
        f->page0[c] = a->host_page_indptr ? a->host_page_indptr[f->u[c].batch] : 0;
    }
}

#endif
