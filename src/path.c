#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "numeric.h"
#include "path.h"

/* ---- plan cache ---- */

static int same_key(const mb_plan_params_t *a, const mb_plan_params_t *b)
{
    return a->batch == b->batch && a->q_len == b->q_len && a->heads == b->heads && a->splits == b->splits &&
           a->rows_per_unit == b->rows_per_unit && a->kv_granularity == b->kv_granularity &&
           a->max_ctas == b->max_ctas && a->fault == b->fault && a->page_size == b->page_size &&
           a->unit_overhead == b->unit_overhead && a->dram_ctas == b->dram_ctas &&
           memcmp(a->kv_lens, b->kv_lens, sizeof(int32_t) * a->batch) == 0;
}

int mb_plan_cache_get(mb_plan_cache_t *pc, const mb_plan_params_t *p, mb_plan_entry_t **out, int *built,
                      char *err, size_t errlen)
{
    for (mb_plan_entry_t *e = pc->head; e; e = e->next)
        if (same_key(&e->key, p)) { pc->hits++; *out = e; *built = 0; return 0; }
    mb_plan_entry_t *e = calloc(1, sizeof *e);
    int32_t *lens = malloc(sizeof(int32_t) * p->batch);
    if (!e || !lens || mb_plan_build(p, &e->plan) != 0) {
        free(e);
        free(lens);
        snprintf(err, errlen, "cannot build a plan for batch %d, q_len %d, heads %d", p->batch, p->q_len, p->heads);
        return 2;
    }
    memcpy(lens, p->kv_lens, sizeof(int32_t) * p->batch);
    e->key = *p;
    e->key.kv_lens = lens;
    e->next = pc->head;
    pc->head = e;
    pc->builds++;
    *out = e;
    *built = 1;
    return 0;
}

/* Every host-to-device copy goes on the stream the kernels run on, and is waited for. A plain
 * hipMemcpy runs on the legacy stream, which the tool's non-blocking stream (gpuenv.c) does not wait
 * for, and from pageable memory it may return before its DMA has landed (CUDA's "API synchronization
 * behavior"): a kernel launched next could read the bytes before they arrive. Session 54 met it as an
 * illegal address: a sweep point whose plan was uploaded just before its first call, with no hipFree
 * between them to synchronize the device, had CTAs read their later units from the plan too soon. */
static int to_device(void *dst, const void *src, size_t bytes, hipStream_t s, char *err, size_t errlen)
{
    if (bytes) GPU_CHECK(hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, s));
    GPU_CHECK(hipStreamSynchronize(s));
    return 0;
fail:
    return 4;
}

static int upload(void **dst, const void *src, size_t bytes, hipStream_t s, char *err, size_t errlen)
{
    GPU_CHECK(hipMalloc(dst, bytes ? bytes : 1));
    return to_device(*dst, src, bytes, s, err, errlen);
fail:
    return 4;
}

int mb_plan_upload(mb_plan_cache_t *pc, mb_plan_entry_t *e, hipStream_t s, int *uploaded, char *err, size_t errlen)
{
    const mb_plan_t *p = &e->plan;
    size_t nb = (size_t)e->key.batch + 1;
    *uploaded = 0;
    if (e->d_work) return 0;
    if (upload(&e->d_qo, p->qo_indptr, sizeof(int32_t) * nb, s, err, errlen) ||
        upload(&e->d_kv, p->kv_indptr, sizeof(int32_t) * nb, s, err, errlen) ||
        upload(&e->d_work_indptr, p->work_indptr, sizeof(int32_t) * (p->num_ctas + 1), s, err, errlen) ||
        upload(&e->d_reduce, p->reduce, sizeof(mb_reduce_t) * p->num_reduce, s, err, errlen) ||
        upload(&e->d_work, p->work, sizeof(mb_work_t) * p->num_units, s, err, errlen))
        return 4;
    pc->uploads++;
    *uploaded = 1;
    return 0;
}

void mb_plan_cache_free(mb_plan_cache_t *pc)
{
    mb_plan_entry_t *e = pc->head;
    while (e) {
        mb_plan_entry_t *next = e->next;
        void *d[] = { e->d_qo, e->d_kv, e->d_work, e->d_work_indptr, e->d_reduce };
        for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) if (d[i]) (void)hipFree(d[i]);
        free((void *)e->key.kv_lens);
        mb_plan_free(&e->plan);
        free(e);
        e = next;
    }
    memset(pc, 0, sizeof *pc);
}

/* ---- workspace ---- */

mb_plan_params_t mb_case_plan_params(const mb_case_t *c, int splits, const mb_kernel_info_t *k, int max_ctas,
                                     int fault)
{
    mb_plan_params_t p = { c->batch, c->q_len, c->heads, c->kv_lens, splits, k->rows_per_unit,
                           k->kv_granularity, max_ctas, fault, c->page_size, 0, 0 };
    const int rows = mb_plan_unit_rows(&p);
    if (k->unit_overhead) p.unit_overhead = k->unit_overhead(rows);
    if (k->dram_ctas) p.dram_ctas = k->dram_ctas(rows);
    return p;
}

/* Device memory, so the pool's padding rows count here; the bytes a call must move (the roofline
 * figure, runner.c) are the logical tokens only. */
double mb_ws_bytes(const mb_case_t *c, const mb_plan_t *plan, const mb_kernel_info_t *k)
{
    double rows = (double)plan->total_q * c->heads, kv = (double)mb_case_cache_rows(c);
    double slots = (double)plan->num_slots * k->rows_per_unit;
    return rows * MB_DK * 3.0                      /* Q bf16 + fp8 */
         + kv * MB_DK * 3.0                        /* KV bf16 source + fp8, whole pages when paged */
         + (double)mb_case_pages(c) * 4.0          /* page table */
         + rows * MB_DV * (2.0 + 4.0)              /* output bf16 + reference fp32 */
         + slots * (MB_DV + 1) * 4.0               /* partials */
         + plan->num_units * sizeof(mb_work_t) + 4096;
}

static int ws_alloc(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen)
{
    GPU_CHECK(hipMalloc((void **)&ws->q_bf16, ws->n_q * 2));
    GPU_CHECK(hipMalloc((void **)&ws->q_fp8, ws->n_q));
    GPU_CHECK(hipMalloc((void **)&ws->kv_bf16, ws->n_kv * 2 + 16));
    GPU_CHECK(hipMalloc((void **)&ws->kv_fp8, ws->n_kv + 16));
    GPU_CHECK(hipMalloc((void **)&ws->out, ws->n_out * 2));
    GPU_CHECK(hipMalloc((void **)&ws->ref, ws->n_out * 4));
    GPU_CHECK(hipMalloc((void **)&ws->amax, 4));
    GPU_CHECK(hipMalloc((void **)&ws->kv_scale, 4));
    GPU_CHECK(hipMalloc((void **)&ws->sink, 4));
    GPU_CHECK(hipMalloc((void **)&ws->q_amax, 4));
    GPU_CHECK(hipMalloc((void **)&ws->q_scale, 4));
    const float one = 1.0f;
    if (to_device(ws->q_scale, &one, 4, s, err, errlen)) return 4;
    GPU_CHECK(hipMalloc((void **)&ws->d_qo, sizeof(int32_t) * (ws->c->batch + 1)));
    GPU_CHECK(hipMalloc((void **)&ws->d_kv, sizeof(int32_t) * (ws->c->batch + 1)));
    return 0;
fail:
    return 4;
}

static int ws_indptr(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen)
{
    const mb_case_t *c = ws->c;
    int rc = 4;
    int32_t *qo = malloc(sizeof(int32_t) * (c->batch + 1)), *kv = malloc(sizeof(int32_t) * (c->batch + 1));
    if (!qo || !kv) { snprintf(err, errlen, "out of host memory"); goto fail; }
    qo[0] = kv[0] = 0;
    for (int b = 0; b < c->batch; b++) { qo[b + 1] = qo[b] + c->q_len; kv[b + 1] = kv[b] + c->kv_lens[b]; }
    if (!to_device(ws->d_qo, qo, sizeof(int32_t) * (c->batch + 1), s, err, errlen) &&
        !to_device(ws->d_kv, kv, sizeof(int32_t) * (c->batch + 1), s, err, errlen))
        rc = 0;
fail:
    free(qo);
    free(kv);
    return rc;
}

/* A paged case's page table, built on the host (mb_page_table_build) and uploaded once; the device
 * copies belong to ws->pages from the moment they exist, so mb_ws_destroy frees them on any path.
 * A flat case leaves ws->pages.table NULL. */
static int ws_pages(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen)
{
    const mb_case_t *c = ws->c;
    if (c->page_size == 0) return 0;
    size_t pages = (size_t)mb_case_pages(c), nb = (size_t)c->batch + 1;
    int32_t *table = malloc(sizeof(int32_t) * pages), *indptr = malloc(sizeof(int32_t) * nb);
    void *d_table = NULL, *d_indptr = NULL;
    int rc = 4;
    if (!table || !indptr) { snprintf(err, errlen, "out of host memory for the page table"); goto end; }
    if (mb_page_table_build(c->batch, c->kv_lens, c->page_size, c->page_order == MB_PAGES_SHUFFLED, c->seed,
                            table, indptr)) {
        snprintf(err, errlen, "cannot build a page table of page size %d", c->page_size);
        goto end;
    }
    rc = upload(&d_table, table, sizeof(int32_t) * pages, s, err, errlen);
    if (!rc) rc = upload(&d_indptr, indptr, sizeof(int32_t) * nb, s, err, errlen);
end:
    ws->pages = (mb_pages_t){ d_table, d_indptr, c->page_size };
    free(table);
    free(indptr);
    return rc;
}

/* Q ~ N(0, q_std) and the KV source ~ N(0, kv_std) in bf16, then the KV cache quantised with one
 * per-tensor scale (amax / fp8_max), all on the GPU from the case's seed. */
static int ws_generate(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen)
{
    const mb_case_t *c = ws->c;
    GPU_CHECK(mb_launch_gen_bf16(ws->q_bf16, ws->n_q, c->seed, MB_STREAM_Q, (float)c->q_std, s));
    GPU_CHECK(mb_launch_gen_bf16(ws->kv_bf16, ws->n_kv, c->seed, MB_STREAM_KV, (float)c->kv_std, s));
    GPU_CHECK(hipMemsetAsync(ws->amax, 0, 4, s));
    GPU_CHECK(mb_launch_amax_bf16(ws->kv_bf16, ws->n_kv, ws->amax, s));
    GPU_CHECK(mb_launch_quant_kv(ws->kv_bf16, ws->n_kv, ws->amax, ws->kv_scale, ws->kv_fp8, s));
    GPU_CHECK(hipStreamSynchronize(s));
    GPU_CHECK(hipMemcpy(&ws->kv_scale_value, ws->kv_scale, 4, hipMemcpyDeviceToHost));
    return 0;
fail:
    return 4;
}

int mb_ws_create(mb_ws_t *ws, const mb_case_t *c, const mb_kernel_info_t *k, mb_gpu_t *g, int fault,
                 char *err, size_t errlen)
{
    memset(ws, 0, sizeof *ws);
    ws->c = c;
    ws->kinfo = *k;
    ws->fault = fault;
    ws->total_q = (int64_t)c->batch * c->q_len;
    ws->total_kv = mb_case_total_kv(c);
    ws->n_q = ws->total_q * c->heads * MB_DK;
    /* the whole cache: the padding rows of a paged pool get random data too, as stale pages hold in a
     * real pool, so a kernel that reads past a batch's last token cannot get a harmless value */
    ws->n_kv = mb_case_cache_rows(c) * MB_DK;
    ws->n_out = ws->total_q * c->heads * MB_DV;
    if (ws_alloc(ws, g->stream, err, errlen) || ws_indptr(ws, g->stream, err, errlen) || ws_pages(ws, g->stream, err, errlen) ||
        ws_generate(ws, g->stream, err, errlen))
        return 4;
    int rc = k->describe_kv ? k->describe_kv(ws->kv_fp8, mb_case_cache_rows(c), c->page_size, &ws->kv_map) : 0;
    if (rc) {
        snprintf(err, errlen, "%s kernel: cannot describe the KV cache to the GPU's copy unit (driver error %d)", k->name, rc);
        return 4;
    }
    return 0;
}

int mb_ws_fused_cast(const mb_ws_t *ws) { return ws->c->q_quant == MB_Q_CAST && ws->kinfo.fuses_q_cast; }

int mb_ws_bind_plan(mb_ws_t *ws, mb_plan_entry_t *pe, char *err, size_t errlen)
{
    const mb_plan_t *p = &pe->plan;
    const mb_case_t *c = ws->c;
    size_t rows = (size_t)p->num_slots * ws->kinfo.rows_per_unit;
    if (rows > ws->partial_rows || !ws->partial_o) {
        if (ws->partial_o) (void)hipFree(ws->partial_o);
        if (ws->partial_lse) (void)hipFree(ws->partial_lse);
        ws->partial_o = ws->partial_lse = NULL;
        ws->partial_rows = rows ? rows : 1;
        GPU_CHECK(hipMalloc((void **)&ws->partial_o, ws->partial_rows * MB_DV * 4));
        GPU_CHECK(hipMalloc((void **)&ws->partial_lse, ws->partial_rows * 4));
    }
    if (ws->gexec) { (void)hipGraphExecDestroy(ws->gexec); ws->gexec = NULL; }
    ws->pe = pe;
    mb_decode_args_t d = { ws->q_fp8, c->q_quant == MB_Q_NONE ? ws->q_bf16 : NULL,
                           mb_ws_fused_cast(ws) ? ws->q_bf16 : NULL, ws->kv_fp8, ws->kv_scale,
                           ws->q_scale, (float)(1.0 / sqrt((double)MB_DK)),
                           pe->d_qo, pe->d_kv, ws->pages, pe->d_work, pe->d_work_indptr, p->num_ctas, p->num_units,
                           c->heads, c->q_len, c->causal, ws->kinfo.rows_per_unit,
                           ws->partial_o, ws->partial_lse, ws->out, ws->fault, ws->kv_map,
                           p->num_reduce > 0, p->work, p->work_indptr,
                           ws->kv_scale_value, 1.0f, c->q_quant == MB_Q_CAST, p->page_indptr };
    mb_combine_args_t cb = { pe->d_reduce, p->num_reduce, ws->kinfo.rows_per_unit, c->heads, p->splits_max, pe->d_qo,
                             ws->partial_o, ws->partial_lse, ws->out,
                             ws->kinfo.partials_f16 && ws->kinfo.partials_f16(c->q_len * c->heads, ws->kv_map.whole_tile) };
    ws->dargs = d;
    ws->cargs = cb;
    return 0;
fail:
    return 4;
}

void mb_ws_destroy(mb_ws_t *ws)
{
    void *bufs[] = { ws->q_bf16, ws->kv_bf16, ws->out, ws->q_fp8, ws->kv_fp8, ws->amax, ws->kv_scale,
                     ws->partial_o, ws->partial_lse, ws->ref, ws->d_qo, ws->d_kv, ws->sink, ws->q_amax, ws->q_scale,
                     (void *)ws->pages.table, (void *)ws->pages.page_indptr };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) if (bufs[i]) (void)hipFree(bufs[i]);
    if (ws->gexec) (void)hipGraphExecDestroy(ws->gexec);
    memset(ws, 0, sizeof *ws);
}

/* ---- the call ---- */

/* "plan": "rebuild" — what a caller without a cache pays: build the plan on the host and upload it,
 * every call. The plan is deterministic, so the bound device copy is overwritten with the same bytes. */
static int rebuild_plan(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen)
{
    mb_plan_entry_t *e = ws->pe;
    mb_plan_t p;
    int rc = 4;
    if (mb_plan_build(&e->key, &p)) { snprintf(err, errlen, "plan rebuild failed"); return 4; }
    size_t nb = sizeof(int32_t) * (e->key.batch + 1);
    GPU_CHECK(hipMemcpyAsync(e->d_qo, p.qo_indptr, nb, hipMemcpyHostToDevice, s));
    GPU_CHECK(hipMemcpyAsync(e->d_kv, p.kv_indptr, nb, hipMemcpyHostToDevice, s));
    GPU_CHECK(hipMemcpyAsync(e->d_work_indptr, p.work_indptr, sizeof(int32_t) * (p.num_ctas + 1), hipMemcpyHostToDevice, s));
    if (p.num_reduce) GPU_CHECK(hipMemcpyAsync(e->d_reduce, p.reduce, sizeof(mb_reduce_t) * p.num_reduce, hipMemcpyHostToDevice, s));
    GPU_CHECK(hipMemcpyAsync(e->d_work, p.work, sizeof(mb_work_t) * p.num_units, hipMemcpyHostToDevice, s));
    rc = 0;
fail:
    /* Copies from pageable memory are staged before they return, so the host plan can go now. */
    mb_plan_free(&p);
    return rc;
}

static int quantise_q(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen)
{
    switch (ws->c->q_quant) {
    case MB_Q_CAST:   /* a kernel that fuses the cast reads the bf16 Q itself */
        if (!mb_ws_fused_cast(ws)) GPU_CHECK(mb_launch_qcast(ws->q_bf16, ws->q_fp8, ws->n_q, s));
        break;
    case MB_Q_AMAX:   /* the reference recipe, as separate passes: reduce, then a scaled cast */
        GPU_CHECK(hipMemsetAsync(ws->q_amax, 0, 4, s));
        GPU_CHECK(mb_launch_amax_bf16(ws->q_bf16, ws->n_q, ws->q_amax, s));
        GPU_CHECK(mb_launch_quant_kv(ws->q_bf16, ws->n_q, ws->q_amax, ws->q_scale, ws->q_fp8, s));
        break;
    case MB_Q_NONE:
        break;
    }
    return 0;
fail:
    return 4;
}

static int enqueue(mb_ws_t *ws, hipStream_t s, hipEvent_t *stage, char *err, size_t errlen)
{
    if (ws->c->plan_rebuild && rebuild_plan(ws, s, err, errlen)) return 4;
    if (stage) GPU_CHECK(hipEventRecord(stage[0], s));
    if (quantise_q(ws, s, err, errlen)) return 4;
    if (ws->fault == MB_FAULT_EXTRA_PASS) GPU_CHECK(mb_launch_read_all(ws->kv_fp8, ws->n_kv, ws->sink, s));
    if (stage) GPU_CHECK(hipEventRecord(stage[1], s));
    GPU_CHECK(ws->kinfo.launch(&ws->dargs, s));
    if (stage) GPU_CHECK(hipEventRecord(stage[2], s));
    GPU_CHECK(mb_launch_combine(&ws->cargs, s));
    return 0;
fail:
    return 4;
}

static int capture(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen)
{
    hipGraph_t graph = NULL;
    GPU_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
    if (enqueue(ws, s, NULL, err, errlen)) {
        (void)hipStreamEndCapture(s, &graph);
        if (graph) (void)hipGraphDestroy(graph);
        return 4;
    }
    GPU_CHECK(hipStreamEndCapture(s, &graph));
    GPU_CHECK(hipGraphInstantiateWithFlags(&ws->gexec, graph, 0));
    GPU_CHECK(hipGraphDestroy(graph));
    return 0;
fail:
    if (graph) (void)hipGraphDestroy(graph);
    return 4;
}

int mb_path_call(mb_ws_t *ws, hipStream_t s, mb_mode_t mode, hipEvent_t *stage, char *err, size_t errlen)
{
    if (mode == MB_MODE_EAGER) return enqueue(ws, s, stage, err, errlen);
    if (!ws->gexec && capture(ws, s, err, errlen)) return 4;
    GPU_CHECK(hipGraphLaunch(ws->gexec, s));
    return 0;
fail:
    return 4;
}

int mb_path_poison(mb_ws_t *ws, hipStream_t s, char *err, size_t errlen)
{
    /* 0xff bytes are NaN in bf16 and fp32 alike. */
    GPU_CHECK(hipMemsetAsync(ws->out, 0xff, ws->n_out * 2, s));
    GPU_CHECK(hipMemsetAsync(ws->partial_o, 0xff, ws->partial_rows * MB_DV * 4, s));
    GPU_CHECK(hipMemsetAsync(ws->partial_lse, 0xff, ws->partial_rows * 4, s));
    return 0;
fail:
    return 4;
}
