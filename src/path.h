/* The measured decode call (Q cast -> split-KV decode -> combine) and everything it needs on the GPU:
 * a case's workspace (generated inputs, output, partials) and the plan cache. */
#ifndef MB_PATH_H
#define MB_PATH_H

#include "config.h"
#include "gpuenv.h"
#include "plan.h"

/* A built plan and its device copy, kept for the life of the run and keyed by everything the plan
 * depends on: the same shape in a later case (or call) neither rebuilds nor re-uploads it. */
typedef struct mb_plan_entry {
    mb_plan_params_t key;      /* key.kv_lens points at the entry's own copy */
    mb_plan_t plan;
    void *d_qo, *d_kv, *d_work, *d_work_indptr, *d_reduce;   /* NULL until uploaded */
    struct mb_plan_entry *next;
} mb_plan_entry_t;

typedef struct mb_plan_cache {
    mb_plan_entry_t *head;
    int builds, uploads, hits;
} mb_plan_cache_t;

/* Finds or builds the host plan; *built says whether this call built it. 0, or 2 for parameters no
 * plan can serve (message in err). */
int mb_plan_cache_get(mb_plan_cache_t *pc, const mb_plan_params_t *p, mb_plan_entry_t **out, int *built,
                      char *err, size_t errlen);
/* Copies the plan to the device once (*uploaded = 1), ordered on s and complete on return; later calls
 * do nothing (*uploaded = 0). 0 or 4. */
int mb_plan_upload(mb_plan_cache_t *pc, mb_plan_entry_t *e, hipStream_t s, int *uploaded, char *err, size_t errlen);
void mb_plan_cache_free(mb_plan_cache_t *pc);

/* A case's device state. Inputs, output and reference depend only on the case; the plan (and the
 * partial buffers sized by it) is bound separately, so a sweep reuses one set of inputs for every
 * split count. */
typedef struct mb_ws {
    const mb_case_t *c;
    mb_kernel_info_t kinfo;
    mb_plan_entry_t *pe;       /* bound plan, NULL before mb_ws_bind_plan */
    int fault;
    int64_t total_q, total_kv; /* query rows; logical KV tokens */
    int64_t n_q, n_kv, n_out;  /* elements; n_kv is the whole cache (a paged pool with its padding rows) */
    uint16_t *q_bf16, *kv_bf16, *out;
    uint8_t *q_fp8, *kv_fp8;
    float *amax, *kv_scale, *partial_o, *partial_lse, *ref;
    float kv_scale_value;      /* *kv_scale, read back once the cache is made (mb_decode_args_t.scales_known) */
    float *q_amax, *q_scale;   /* q_quant "amax": reduced and derived on every call; "cast": q_scale = 1 */
    int32_t *d_qo, *d_kv;      /* the case's indptrs, for the reference */
    mb_pages_t pages;          /* the paged cache's table (device); table NULL: flat cache */
    uint32_t *sink;            /* MB_FAULT_EXTRA_PASS writes here */
    size_t partial_rows;       /* capacity of the partial buffers, in rows */
    mb_kv_map_t kv_map;        /* the kernel's description of the cache (describe_kv), if it has one */
    mb_decode_args_t dargs;
    mb_combine_args_t cargs;
    hipGraphExec_t gexec;
} mb_ws_t;

mb_plan_params_t mb_case_plan_params(const mb_case_t *c, int splits, const mb_kernel_info_t *k, int max_ctas,
                                     int fault);
/* Device bytes a case needs, with its plan (for the fit check before anything is allocated). */
double mb_ws_bytes(const mb_case_t *c, const mb_plan_t *plan, const mb_kernel_info_t *k);
/* Allocates and generates the case's inputs (seeded) and quantises the KV cache. 0 or 4. */
int mb_ws_create(mb_ws_t *ws, const mb_case_t *c, const mb_kernel_info_t *k, mb_gpu_t *g, int fault,
                 char *err, size_t errlen);
/* Whether the call's decode does the cast-free Q cast itself (then ws->q_fp8 is written only by the
 * check, for the reference). */
int mb_ws_fused_cast(const mb_ws_t *ws);
/* Points the call at an uploaded plan, growing the partial buffers if it needs more; a captured graph
 * of the previous plan is dropped. 0 or 4. */
int mb_ws_bind_plan(mb_ws_t *ws, mb_plan_entry_t *pe, char *err, size_t errlen);
void mb_ws_destroy(mb_ws_t *ws);

/* One decode call: [plan rebuild and upload, if the case asks] -> Q quantisation (by q_quant) -> decode
 * -> combine. Eager: launches each kernel; stage (may be NULL) gets events recorded after the plan,
 * after the quantisation and after the decode. Graph: replays the call captured on first use. 0 or 4. */
int mb_path_call(mb_ws_t *ws, hipStream_t s, mb_mode_t mode, hipEvent_t *stage, char *err, size_t errlen);
/* Poisons the output (NaN bytes) and partials, so an element the call fails to write cannot pass. */
int mb_path_poison(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen);

#endif
