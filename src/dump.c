#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "dump.h"
#include "npy.h"
#include "numeric.h"
#include "report.h"

static int make_dir(const char *path, char *err, size_t errlen)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST) goto fail;
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST) goto fail;
    return 0;
fail:
    snprintf(err, errlen, "%s: cannot create directory: %s", buf, strerror(errno));
    return 4;
}

static void *from_device(const void *d, size_t bytes, char *err, size_t errlen)
{
    void *h = malloc(bytes ? bytes : 1);
    if (!h) { snprintf(err, errlen, "out of host memory for --dump"); return NULL; }
    if (bytes) GPU_CHECK(hipMemcpy(h, d, bytes, hipMemcpyDeviceToHost));
    return h;
fail:
    free(h);
    return NULL;
}

typedef struct npy_item { const char *name, *dtype; int ndim; int64_t shape[3]; const void *data; } npy_item_t;

static int write_meta(const char *dir, const mb_ws_t *ws, float q_scale, float kv_scale, char *err, size_t errlen)
{
    char path[1200], text[1536], order[16] = "null";
    const mb_case_t *c = ws->c;
    if (c->page_size) snprintf(order, sizeof order, "\"%s\"", mb_page_order_name(c->page_order));
    int n = snprintf(text, sizeof text,
                     "{\n  \"case\": \"%s\",\n  \"batch\": %d, \"q_len\": %d, \"heads\": %d, \"causal\": %s,\n"
                     "  \"dk\": %d, \"dv\": %d, \"sm_scale\": %.9g, \"q_scale\": %.9g, \"kv_scale\": %.9g,\n"
                     "  \"fp8\": \"%s\", \"seed\": %llu, \"q_quant\": \"%s\",\n"
                     "  \"page_size\": %d, \"page_order\": %s,\n"
                     "  \"note\": \"bf16 tensors are stored as their raw bits (<u2); out_f32/ref are fp32; page_size 0: a flat"
                     " cache, else token j of batch b is kv row page_table[page_indptr[b] + j // page_size] * page_size +"
                     " j %% page_size\"\n}\n",
                     c->name, c->batch, c->q_len, c->heads, c->causal ? "true" : "false", MB_DK, MB_DV,
                     1.0 / 24.0, q_scale, kv_scale, mb_fp8_name(ws->kinfo.fp8_fnuz), (unsigned long long)c->seed,
                     mb_q_quant_name(c->q_quant), c->page_size, order);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    return mb_write_file_atomic(path, text, (size_t)n, err, errlen) ? 4 : 0;
}

/* A paged case's page table and page_indptr, copied back from the device: the tables the kernels read. */
static int write_pages(const char *sub, const mb_ws_t *ws, char *err, size_t errlen)
{
    const mb_case_t *c = ws->c;
    char path[1200];
    int rc = 4;
    if (!c->page_size) return 0;
    int64_t pages = mb_case_pages(c), np[1] = { pages }, nb[1] = { c->batch + 1 };
    int32_t *table = from_device(ws->pages.table, sizeof(int32_t) * (size_t)pages, err, errlen);
    int32_t *indptr = table ? from_device(ws->pages.page_indptr, sizeof(int32_t) * (size_t)nb[0], err, errlen) : NULL;
    if (!indptr) goto out;
    snprintf(path, sizeof path, "%s/page_table.npy", sub);
    if (mb_npy_write(path, "<i4", np, 1, table, err, errlen)) goto out;
    snprintf(path, sizeof path, "%s/page_indptr.npy", sub);
    if (mb_npy_write(path, "<i4", nb, 1, indptr, err, errlen)) goto out;
    rc = 0;
out:
    free(table);
    free(indptr);
    return rc;
}

int mb_dump_case(const char *dir, mb_ws_t *ws, const uint16_t *out, const float *ref, const float *ref_src,
                 char *err, size_t errlen)
{
    const mb_case_t *c = ws->c;
    const mb_plan_t *p = &ws->pe->plan;
    char sub[1024], path[1200];
    int rc = 4;
    snprintf(sub, sizeof sub, "%s/%s-%s", dir, c->name, mb_mode_name(c->mode));
    for (char *s = sub + strlen(dir) + 1; *s; s++) if (*s == '/' || *s == ' ') *s = '_';
    if (make_dir(sub, err, errlen)) return 4;
    uint16_t *q = from_device(ws->q_bf16, ws->n_q * 2, err, errlen);
    uint8_t *q8 = q ? from_device(ws->q_fp8, ws->n_q, err, errlen) : NULL;
    uint8_t *kv8 = q8 ? from_device(ws->kv_fp8, ws->n_kv, err, errlen) : NULL;
    uint16_t *kv = kv8 ? from_device(ws->kv_bf16, ws->n_kv * 2, err, errlen) : NULL;
    float *scale = kv ? from_device(ws->kv_scale, 4, err, errlen) : NULL;
    float *qscale = scale ? from_device(ws->q_scale, 4, err, errlen) : NULL;
    float *outf = qscale ? malloc(sizeof(float) * ws->n_out) : NULL;
    if (!outf) goto out;
    for (int64_t i = 0; i < ws->n_out; i++) outf[i] = mb_bf16_to_f32(out[i]);
    npy_item_t items[] = {
        { "q_bf16", "<u2", 3, { p->total_q, c->heads, MB_DK }, q },
        { "q_fp8", "|u1", 3, { p->total_q, c->heads, MB_DK }, q8 },
        /* the whole cache: a paged pool's rows, padding included, in physical order */
        { "kv_bf16", "<u2", 2, { ws->n_kv / MB_DK, MB_DK, 0 }, kv },
        { "kv_fp8", "|u1", 2, { ws->n_kv / MB_DK, MB_DK, 0 }, kv8 },
        { "kv_scale", "<f4", 1, { 1, 0, 0 }, scale },
        { "qo_indptr", "<i4", 1, { c->batch + 1, 0, 0 }, p->qo_indptr },
        { "kv_indptr", "<i4", 1, { c->batch + 1, 0, 0 }, p->kv_indptr },
        { "plan_work", "<i4", 2, { p->num_units, (int64_t)(sizeof(mb_work_t) / sizeof(int32_t)), 0 }, p->work },
        { "plan_work_indptr", "<i4", 1, { p->num_ctas + 1, 0, 0 }, p->work_indptr },
        { "plan_reduce", "<i4", 2, { p->num_reduce, 5, 0 }, p->reduce },
        { "out_bf16", "<u2", 3, { p->total_q, c->heads, MB_DV }, out },
        { "out_f32", "<f4", 3, { p->total_q, c->heads, MB_DV }, outf },
        { "ref", "<f4", 3, { p->total_q, c->heads, MB_DV }, ref },
        { "ref_bf16_inputs", "<f4", 3, { p->total_q, c->heads, MB_DV }, ref_src },
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", sub, items[i].name);
        if (mb_npy_write(path, items[i].dtype, items[i].shape, items[i].ndim, items[i].data, err, errlen)) goto out;
    }
    rc = write_pages(sub, ws, err, errlen);
    if (!rc) rc = write_meta(sub, ws, *qscale, *scale, err, errlen);
out:
    free(q); free(q8); free(kv8); free(kv); free(scale); free(qscale); free(outf);
    return rc;
}
