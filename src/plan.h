/* The work-partition plan (split-KV units spread over persistent CTAs + the reduce map), built on the
 * host in O(batch + units), deterministic. Pure host code: tests replay it without a GPU. */
#ifndef MB_PLAN_H
#define MB_PLAN_H

#include <stdint.h>
#include "../kernels/kernels.h"

typedef struct mb_plan_params {
    int batch, q_len, heads;
    const int32_t *kv_lens;    /* [batch] */
    int splits;                /* requested num_kv_splits; 0 = auto */
    int rows_per_unit;         /* kernel property: most rows one unit holds */
    int kv_granularity;        /* kernel property: split boundaries are multiples of this */
    int max_ctas;              /* grid the GPU runs at once: SMs x resident CTAs per SM */
    int fault;                 /* MB_FAULT_SPLIT_SHIFT: move the first split boundary by one token */
} mb_plan_params_t;

typedef struct mb_plan {
    int num_units, num_ctas, num_slots, num_reduce;
    int splits_max;            /* most splits any batch got */
    int64_t total_kv;
    int total_q;
    int32_t *qo_indptr, *kv_indptr;   /* [batch + 1] */
    mb_work_t *work;                  /* [num_units], CTA-major */
    int32_t *work_indptr;             /* [num_ctas + 1] */
    mb_reduce_t *reduce;              /* [num_reduce] */
} mb_plan_t;

/* Cost of a unit in "tokens": its KV length plus a fixed cost for loading Q and writing rows out. */
#define MB_UNIT_OVERHEAD 32

/* The "auto" split count (README, "Split policy"). */
int mb_auto_splits(const mb_plan_params_t *p);
/* 0, or -1 for invalid parameters / out of memory (nothing allocated then). */
int mb_plan_build(const mb_plan_params_t *p, mb_plan_t *out);
void mb_plan_free(mb_plan_t *plan);
int64_t mb_unit_cost(const mb_work_t *u);

#endif
