/* JSON results (schema MB_RESULT_SCHEMA): the writer, and the reader that later tools compare with. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>
#include "jsonio.h"
#include "report.h"

/* ---- writer ---- */

void mb_json_env(jb_t *b, cJSON *root, const mb_env_t *e)
{
    cJSON *tool = jb_put(b, root, "tool", cJSON_CreateObject());
    jb_put_str(b, tool, "version", e->tool_version);
    jb_put_str(b, tool, "commit", e->git_commit);
    jb_put_str(b, root, "date", e->date);
    cJSON *d = jb_put(b, root, "device", cJSON_CreateObject());
    jb_put_str(b, d, "vendor", e->vendor);
    jb_put_str(b, d, "name", e->device);
    jb_put_str(b, d, "id", e->gpu_id);
    jb_put_str(b, d, "arch", e->arch);
    jb_put_str(b, d, "fp8", e->fp8_flavour);
    jb_put_num(b, d, "sm_count", e->sm_count);
    jb_put_num(b, d, "l2_bytes", e->l2_bytes);
    jb_put_num(b, d, "mem_bytes", e->mem_bytes);
    jb_put_num(b, d, "driver_version", e->driver_version);
    jb_put_num(b, d, "runtime_version", e->runtime_version);
    jb_put_num(b, d, "copy_tbps", e->copy_tbps);
    jb_put_num(b, d, "launch_floor_us", e->launch_floor_us);
    jb_put_num(b, d, "sm_clock_max_mhz", e->sm_clock_max_mhz);
    jb_put_str(b, d, "module_loading", e->module_loading);
}

/* The config goes in as JSON when it parses, so one file tells the whole story of a run. */
static void json_config(jb_t *b, cJSON *root, const mb_config_t *cfg)
{
    if (!cfg) { jb_put(b, root, "config", cJSON_CreateNull()); return; }
    cJSON *o = jb_put(b, root, "config", cJSON_CreateObject());
    jb_put_str(b, o, "path", cfg->path);
    cJSON *parsed = cfg->text ? cJSON_Parse(cfg->text) : NULL;
    jb_put(b, o, "text", parsed ? parsed : cfg->text ? cJSON_CreateString(cfg->text) : cJSON_CreateNull());
    /* the command line's overrides, already in the text: what ran differs from the file by these */
    if (cfg->sets) jb_put_str(b, o, "set", cfg->sets);
}

static void json_case_def(jb_t *b, cJSON *o, const mb_case_t *c)
{
    char seed[24];
    jb_put_str(b, o, "name", c->name);
    jb_put_str(b, o, "file", c->file);
    jb_put_num(b, o, "index", c->index);
    jb_put_num(b, o, "batch", c->batch);
    jb_put_num(b, o, "q_len", c->q_len);
    jb_put_num(b, o, "heads", c->heads);
    jb_put_str(b, o, "kv_desc", c->kv_desc);
    cJSON *kv = jb_put(b, o, "kv_lens", cJSON_CreateArray());
    for (int i = 0; i < c->batch && kv; i++) jb_put(b, kv, NULL, jb_num(c->kv_lens[i]));
    jb_put_bool(b, o, "causal", c->causal);
    jb_put_str(b, o, "q_quant", mb_q_quant_name(c->q_quant));
    jb_put_str(b, o, "plan_policy", c->plan_rebuild ? "rebuild" : "cached");
    /* page_size 0: a flat cache, which has no page order */
    jb_put_num(b, o, "page_size", c->page_size);
    jb_put_str(b, o, "page_order", c->page_size ? mb_page_order_name(c->page_order) : NULL);
    jb_put(b, o, "splits_requested", c->splits > 0 ? jb_num(c->splits)
                                  : cJSON_CreateString(c->splits == MB_SPLITS_TUNED ? "tuned" : "auto"));
    jb_put_str(b, o, "mode", mb_mode_name(c->mode));
    jb_put_str(b, o, "l2", mb_l2_name(c->l2));
    jb_put_str(b, o, "icache", mb_icache_name(c->icache));
    /* Printed as an integer: a double would round seeds above 2^53. */
    snprintf(seed, sizeof seed, "%" PRIu64, c->seed);
    jb_put(b, o, "seed", cJSON_CreateRaw(seed));
    jb_put_num(b, o, "q_std", c->q_std);
    jb_put_num(b, o, "kv_std", c->kv_std);
    /* the stop rule the case was timed under, so that a reader can tell a noisy time from a short one */
    cJSON *sr = jb_put(b, o, "stop_rule", cJSON_CreateObject());
    jb_put_num(b, sr, "warmup", c->warmup);
    jb_put_num(b, sr, "min_runs", c->min_runs);
    jb_put_num(b, sr, "max_runs", c->max_runs);
    jb_put_num(b, sr, "target_rse", c->target_rse);
    jb_put_num(b, sr, "max_seconds", c->max_seconds);
}

static void json_check(jb_t *b, cJSON *o, const mb_case_result_t *cr)
{
    const mb_check_t *k = &cr->check;
    const mb_case_t *c = cr->c;
    cJSON *ck = jb_put(b, o, "check", cJSON_CreateObject());
    jb_put_num(b, ck, "max_abs", k->max_abs);
    jb_put_num(b, ck, "rel_l2", k->rel_l2);
    jb_put_num(b, ck, "row_rel_l2", k->row_rel_l2);
    jb_put_num(b, ck, "q_saturated", (double)k->q_saturated);
    jb_put_num(b, ck, "q_below_normal", (double)k->q_below_normal);
    jb_put_num(b, ck, "cosine", k->cosine);
    jb_put_num(b, ck, "n_total", (double)k->n_total);
    jb_put_num(b, ck, "n_outside", (double)k->n_outside);
    jb_put_num(b, ck, "n_nonfinite", (double)k->n_nonfinite);
    jb_put_num(b, ck, "atol", c->atol);
    jb_put_num(b, ck, "rtol", c->rtol);
    jb_put_num(b, ck, "max_rel_l2", c->max_rel_l2);
    jb_put_bool(b, ck, "pass", k->pass);
    cJSON *fid = jb_put(b, ck, "fidelity", cJSON_CreateObject());
    jb_put_num(b, fid, "max_abs", k->fid_max_abs);
    jb_put_num(b, fid, "rel_l2", k->fid_rel_l2);
    jb_put_num(b, fid, "cosine", k->fid_cosine);
}

static void json_time(jb_t *b, cJSON *o, const mb_case_result_t *cr)
{
    const mb_stats_t *t = &cr->time;
    cJSON *to = jb_put(b, o, "time_us", cJSON_CreateObject());
    jb_put_num(b, to, "n", t->n);
    jb_put_num(b, to, "median", t->median);
    jb_put_num(b, to, "mean", t->mean);
    jb_put_num(b, to, "min", t->min);
    jb_put_num(b, to, "max", t->max);
    jb_put_num(b, to, "stddev", t->stddev);
    jb_put_num(b, to, "rse", t->rse);
    jb_put_str(b, o, "stop_reason", cr->stop_reason);
    /* samples_us holds every placement's samples, one placement after another; none for a result
     * whose placements are unknown (read from a file written before them) */
    if (cr->placements > 0) {
        jb_put_num(b, o, "placements", cr->placements);
        cJSON *pm = jb_put(b, o, "placement_medians_us", cJSON_CreateArray());
        for (int i = 0; i < cr->placements && pm; i++) jb_put(b, pm, NULL, jb_num(cr->placement_median_us[i]));
    }
    cJSON *s = jb_put(b, o, "samples_us", cJSON_CreateArray());
    for (int i = 0; i < cr->n_samples && s; i++) jb_put(b, s, NULL, jb_num(cr->samples_us[i]));
    /* the SM clock across the timed calls, and per sample what it came from (0: no stamp that time) */
    jb_put(b, o, "sm_clock_mhz", cr->sm_mhz > 0 ? jb_num(cr->sm_mhz) : cJSON_CreateNull());
    if (cr->sm_cycles && cr->sm_ns) {
        cJSON *k = jb_put(b, o, "sm_clock_samples", cJSON_CreateObject());
        cJSON *cy = jb_put(b, k, "cycles", cJSON_CreateArray()), *ns = jb_put(b, k, "ns", cJSON_CreateArray());
        for (int i = 0; i < cr->n_samples && cy && ns; i++) {
            jb_put(b, cy, NULL, jb_num(cr->sm_cycles[i]));
            jb_put(b, ns, NULL, jb_num(cr->sm_ns[i]));
        }
    }
    static const char *const stage[MB_NSTAGES] = {"plan", "quant", "decode", "combine"};
    cJSON *st = jb_put(b, o, "stages_median_us", cJSON_CreateObject());
    for (int i = 0; i < MB_NSTAGES; i++) {
        double v = cr->stage_median_us[i];
        jb_put(b, st, stage[i], v < 0 ? cJSON_CreateNull() : jb_num(v));
    }
    /* the calls the stage times came from (none in graph mode, or in files written before them) */
    jb_put_num(b, o, "staged_calls", cr->staged_calls);
    jb_put(b, o, "staged_total_median_us", cr->staged_calls > 0 ? jb_num(cr->staged_total_us) : cJSON_CreateNull());
}

static void json_case(jb_t *b, cJSON *arr, const mb_case_result_t *cr)
{
    cJSON *o = jb_put(b, arr, NULL, cJSON_CreateObject());
    json_case_def(b, o, cr->c);
    jb_put_str(b, o, "kernel", cr->kernel);
    cJSON *plan = jb_put(b, o, "plan", cJSON_CreateObject());
    jb_put_num(b, plan, "splits_max", cr->splits_max);
    jb_put(b, plan, "splits_chosen_by", cJSON_CreateString(cr->splits_how == 't' ? "tuned" : cr->splits_how == 'a' ? "auto"
                                                       : "config"));
    jb_put_num(b, plan, "units", cr->units);
    jb_put_num(b, plan, "ctas", cr->ctas);
    jb_put_num(b, plan, "slots", cr->slots);
    jb_put_num(b, plan, "reduces", cr->reduces);
    char id[20];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)cr->plan_id);
    jb_put_str(b, plan, "id", id);
    jb_put_bool(b, plan, "built", cr->plan_built);
    jb_put_str(b, o, "status", mb_status_name(cr->status));
    if (cr->status == MB_CASE_ERROR) jb_put_str(b, o, "error", cr->error);
    json_check(b, o, cr);
    json_time(b, o, cr);
    jb_put_num(b, o, "host_wall_us", cr->host_wall_us);
    jb_put_num(b, o, "bytes", cr->bytes);
    jb_put_num(b, o, "tbps", cr->tbps);
    jb_put_num(b, o, "pct_copy", cr->pct_copy);
}

int mb_report_write_json(const mb_report_t *r, const char *path, char *err, size_t errlen)
{
    jb_t b = {0};
    cJSON *root = cJSON_CreateObject();
    if (!root) b.oom = 1;
    jb_put_str(&b, root, "schema", MB_RESULT_SCHEMA);
    mb_json_env(&b, root, &r->env);
    json_config(&b, root, r->config);
    jb_put_bool(&b, root, "interrupted", r->interrupted);
    cJSON *cases = jb_put(&b, root, "cases", cJSON_CreateArray());
    for (int i = 0; i < r->n_results && cases; i++) json_case(&b, cases, &r->results[i]);
    int rc = jb_write(&b, root, path, err, errlen);
    cJSON_Delete(root);
    return rc;
}

static void read_env(rd_t *r, const cJSON *root, mb_env_t *e)
{
    const cJSON *tool = rd_obj(r, root, "", "tool");
    rd_str(r, tool, "tool.", "version", e->tool_version, sizeof e->tool_version);
    rd_str(r, tool, "tool.", "commit", e->git_commit, sizeof e->git_commit);
    rd_str(r, root, "", "date", e->date, sizeof e->date);
    const cJSON *d = rd_obj(r, root, "", "device");
    rd_str(r, d, "device.", "vendor", e->vendor, sizeof e->vendor);
    rd_str(r, d, "device.", "name", e->device, sizeof e->device);
    if (cJSON_GetObjectItemCaseSensitive(d, "id"))   /* files before it have none */
        rd_str(r, d, "device.", "id", e->gpu_id, sizeof e->gpu_id);
    rd_str(r, d, "device.", "arch", e->arch, sizeof e->arch);
    rd_str(r, d, "device.", "fp8", e->fp8_flavour, sizeof e->fp8_flavour);
    e->sm_count = rd_int(r, d, "device.", "sm_count");
    e->l2_bytes = rd_num(r, d, "device.", "l2_bytes");
    e->mem_bytes = rd_num(r, d, "device.", "mem_bytes");
    e->driver_version = rd_int(r, d, "device.", "driver_version");
    e->runtime_version = rd_int(r, d, "device.", "runtime_version");
    e->copy_tbps = rd_num(r, d, "device.", "copy_tbps");
    e->launch_floor_us = rd_num(r, d, "device.", "launch_floor_us");
    e->sm_clock_max_mhz = 0.0;   /* files before it have none: unknown */
    if (cJSON_GetObjectItemCaseSensitive(d, "sm_clock_max_mhz")) {
        e->sm_clock_max_mhz = rd_num(r, d, "device.", "sm_clock_max_mhz");
        if (!(e->sm_clock_max_mhz >= 0)) rd_fail(r, "device.", "sm_clock_max_mhz", "expected a clock in MHz, >= 0");
    }
    if (cJSON_GetObjectItemCaseSensitive(d, "module_loading"))   /* files before it have none: "" */
        rd_str(r, d, "device.", "module_loading", e->module_loading, sizeof e->module_loading);
}

/* The text comes back as the file had it when it was not JSON, else as the parsed JSON reprinted. */
static void read_config(rd_t *r, const cJSON *root, mb_config_t *cfg)
{
    const cJSON *o = rd_item(r, root, "", "config");
    if (!o || cJSON_IsNull(o)) return;
    if (!cJSON_IsObject(o)) { rd_fail(r, "", "config", "expected an object or null"); return; }
    cfg->path = rd_strdup(r, o, "config.", "path");
    const cJSON *t = rd_item(r, o, "config.", "text");
    if (t && cJSON_IsObject(t)) cfg->text = cJSON_Print(t);
    else if (t) cfg->text = rd_strdup(r, o, "config.", "text");
    if (cJSON_GetObjectItemCaseSensitive(o, "set")) cfg->sets = rd_strdup(r, o, "config.", "set");   /* optional */
}

static void read_kv_lens(rd_t *r, const cJSON *o, const char *w, mb_case_t *c)
{
    const cJSON *kv = rd_arr(r, o, w, "kv_lens");
    if (!kv || r->bad) return;
    if (c->batch < 1 || cJSON_GetArraySize(kv) != c->batch) {
        rd_fail(r, w, "kv_lens", "expected batch entries");
        return;
    }
    c->kv_lens = malloc(sizeof(int32_t) * (size_t)c->batch);
    if (!c->kv_lens) { rd_fail(r, w, "kv_lens", strerror(ENOMEM)); return; }
    int i = 0;
    for (const cJSON *it = kv->child; it; it = it->next, i++) {
        double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
        if (!(v >= 0 && v <= MB_MAX_KV_LEN && v == floor(v))) { rd_fail(r, w, "kv_lens", "bad length"); return; }
        c->kv_lens[i] = (int32_t)v;
    }
}

/* Optional: files written before paged caches existed have no page_size, and mean a flat cache. */
static void read_pages(rd_t *r, const cJSON *o, const char *w, mb_case_t *c)
{
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(o, "page_size"), *po = cJSON_GetObjectItemCaseSensitive(o, "page_order");
    if (!ps) return;
    double v = cJSON_IsNumber(ps) ? ps->valuedouble : NAN;
    if (!(v >= 0 && v <= MB_MAX_PAGE_SIZE && v == floor(v))) { rd_fail(r, w, "page_size", "bad page size"); return; }
    c->page_size = (int)v;
    c->page_order = cJSON_IsString(po) && !strcmp(po->valuestring, "contiguous") ? MB_PAGES_CONTIGUOUS : MB_PAGES_SHUFFLED;
}

static void read_case_def(rd_t *r, const cJSON *o, const char *w, mb_case_t *c)
{
    static const char *const modes[2] = {"eager", "graph"};
    static const char *const l2[3] = {"cold", "hot", "cold-clean"};   /* mb_l2_t's order */
    rd_str(r, o, w, "name", c->name, sizeof c->name);
    c->file = rd_strdup(r, o, w, "file");
    c->index = rd_int(r, o, w, "index");
    c->batch = rd_int(r, o, w, "batch");
    c->q_len = rd_int(r, o, w, "q_len");
    c->heads = rd_int(r, o, w, "heads");
    rd_str(r, o, w, "kv_desc", c->kv_desc, sizeof c->kv_desc);
    read_kv_lens(r, o, w, c);
    c->causal = rd_bool(r, o, w, "causal");
    /* Optional: files written before the q_quant and plan variants existed mean the defaults. */
    const cJSON *qq = cJSON_GetObjectItemCaseSensitive(o, "q_quant"), *pp = cJSON_GetObjectItemCaseSensitive(o, "plan_policy");
    c->q_quant = cJSON_IsString(qq) && !strcmp(qq->valuestring, "amax") ? MB_Q_AMAX
               : cJSON_IsString(qq) && !strcmp(qq->valuestring, "none") ? MB_Q_NONE : MB_Q_CAST;
    c->plan_rebuild = cJSON_IsString(pp) && !strcmp(pp->valuestring, "rebuild");
    read_pages(r, o, w, c);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "splits_requested");
    c->splits = cJSON_IsString(s) && !strcmp(s->valuestring, "auto")    ? 0
              : cJSON_IsString(s) && !strcmp(s->valuestring, "tuned") ? MB_SPLITS_TUNED
                                                                     : rd_int(r, o, w, "splits_requested");
    int m = rd_choice(r, o, w, "mode", modes, 2, "expected \"eager\" or \"graph\"");
    c->mode = m == 1 ? MB_MODE_GRAPH : MB_MODE_EAGER;
    const int l = rd_choice(r, o, w, "l2", l2, 3, "expected \"cold\", \"hot\" or \"cold-clean\"");
    c->l2 = l > 0 ? (mb_l2_t)l : MB_L2_COLD;
    /* Optional: files written before it was a setting had the code warm. */
    static const char *const icache[2] = {"warm", "cold"};   /* mb_icache_t's order */
    c->icache = MB_ICACHE_WARM;
    if (cJSON_GetObjectItemCaseSensitive(o, "icache"))
        c->icache = rd_choice(r, o, w, "icache", icache, 2, "expected \"warm\" or \"cold\"") == 1 ? MB_ICACHE_COLD
                                                                                               : MB_ICACHE_WARM;
    double seed = rd_num(r, o, w, "seed");
    if (seed >= 0 && seed < 18446744073709551616.0 && seed == floor(seed)) c->seed = (uint64_t)seed;
    else rd_fail(r, w, "seed", "expected an unsigned integer");
    c->q_std = rd_num(r, o, w, "q_std");
    c->kv_std = rd_num(r, o, w, "kv_std");
    /* Optional: files written before it have none (0s: unknown, which no note reads as noise). */
    if (!cJSON_GetObjectItemCaseSensitive(o, "stop_rule")) return;
    char w2[64];
    snprintf(w2, sizeof w2, "%sstop_rule.", w);
    const cJSON *sr = rd_obj(r, o, w, "stop_rule");
    c->warmup = rd_int(r, sr, w2, "warmup");
    c->min_runs = rd_int(r, sr, w2, "min_runs");
    c->max_runs = rd_int(r, sr, w2, "max_runs");
    c->target_rse = rd_num(r, sr, w2, "target_rse");
    c->max_seconds = rd_num(r, sr, w2, "max_seconds");
}

static void read_check(rd_t *r, const cJSON *o, const char *w, mb_case_t *c, mb_check_t *k)
{
    char w2[64], w3[80];
    snprintf(w2, sizeof w2, "%scheck.", w);
    snprintf(w3, sizeof w3, "%sfidelity.", w2);
    const cJSON *ck = rd_obj(r, o, w, "check");
    k->max_abs = rd_num(r, ck, w2, "max_abs");
    k->rel_l2 = rd_num(r, ck, w2, "rel_l2");
    k->row_rel_l2 = rd_num(r, ck, w2, "row_rel_l2");
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(ck, "q_saturated"), *qb = cJSON_GetObjectItemCaseSensitive(ck, "q_below_normal");
    k->q_saturated = cJSON_IsNumber(qs) ? (int64_t)qs->valuedouble : 0;
    k->q_below_normal = cJSON_IsNumber(qb) ? (int64_t)qb->valuedouble : 0;
    k->cosine = rd_num(r, ck, w2, "cosine");
    k->n_total = rd_count(r, ck, w2, "n_total");
    k->n_outside = rd_count(r, ck, w2, "n_outside");
    k->n_nonfinite = rd_count(r, ck, w2, "n_nonfinite");
    c->atol = rd_num(r, ck, w2, "atol");
    c->rtol = rd_num(r, ck, w2, "rtol");
    c->max_rel_l2 = rd_num(r, ck, w2, "max_rel_l2");
    k->pass = rd_bool(r, ck, w2, "pass");
    const cJSON *fid = rd_obj(r, ck, w2, "fidelity");
    k->fid_max_abs = rd_num(r, fid, w3, "max_abs");
    k->fid_rel_l2 = rd_num(r, fid, w3, "rel_l2");
    k->fid_cosine = rd_num(r, fid, w3, "cosine");
}

static void read_samples(rd_t *r, const cJSON *o, const char *w, mb_case_result_t *cr)
{
    const cJSON *s = rd_arr(r, o, w, "samples_us");
    if (!s || r->bad) return;
    int n = cJSON_GetArraySize(s);
    if (!n) return;
    cr->samples_us = malloc(sizeof(double) * (size_t)n);
    if (!cr->samples_us) { rd_fail(r, w, "samples_us", strerror(ENOMEM)); return; }
    cr->n_samples = n;
    int i = 0;
    for (const cJSON *it = s->child; it; it = it->next, i++) {
        if (!cJSON_IsNumber(it) && !cJSON_IsNull(it)) { rd_fail(r, w, "samples_us", "expected numbers"); return; }
        cr->samples_us[i] = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    }
}

/* One of sm_clock_samples' arrays: n_samples numbers >= 0 (0: that sample had no stamp). */
static double *read_clock_array(rd_t *r, const cJSON *k, const char *w, const char *key, int n)
{
    const cJSON *a = rd_arr(r, k, w, key);
    if (!a || r->bad) return NULL;
    if (cJSON_GetArraySize(a) != n) { rd_fail(r, w, key, "expected one number per sample (the length of samples_us)"); return NULL; }
    double *x = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!x) { rd_fail(r, w, key, strerror(ENOMEM)); return NULL; }
    int i = 0;
    for (const cJSON *it = a->child; it; it = it->next, i++) {
        if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0)) {
            rd_fail(r, w, key, "expected numbers >= 0");
            free(x);
            return NULL;
        }
        x[i] = it->valuedouble;
    }
    return x;
}

/* The SM clock (files written before it have none: sm_mhz 0, no per-sample arrays). */
static void read_clock(rd_t *r, const cJSON *o, const char *w, mb_case_result_t *cr)
{
    cr->sm_mhz = 0.0;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "sm_clock_mhz");
    if (m && !cJSON_IsNull(m)) {
        cr->sm_mhz = rd_num(r, o, w, "sm_clock_mhz");
        if (!(cr->sm_mhz > 0)) rd_fail(r, w, "sm_clock_mhz", "expected a clock in MHz (> 0) or null");
    }
    if (!cJSON_GetObjectItemCaseSensitive(o, "sm_clock_samples") || r->bad) return;
    char w2[64];
    snprintf(w2, sizeof w2, "%ssm_clock_samples.", w);
    const cJSON *k = rd_obj(r, o, w, "sm_clock_samples");
    cr->sm_cycles = read_clock_array(r, k, w2, "cycles", cr->n_samples);
    cr->sm_ns = read_clock_array(r, k, w2, "ns", cr->n_samples);
}

/* Files written before placements have none: placements 0 (unknown). */
static void read_placements(rd_t *r, const cJSON *o, const char *w, mb_case_result_t *cr)
{
    cr->placements = 0;
    if (!cJSON_GetObjectItemCaseSensitive(o, "placements")) return;
    int n = rd_int(r, o, w, "placements");
    const cJSON *m = rd_arr(r, o, w, "placement_medians_us");
    if (r->bad) return;
    if (n < 1 || n > MB_MAX_PLACEMENTS || cJSON_GetArraySize(m) != n) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected an integer in [1, %d], the length of placement_medians_us", MB_MAX_PLACEMENTS);
        rd_fail(r, w, "placements", msg);
        return;
    }
    int i = 0;
    for (const cJSON *it = m->child; it; it = it->next, i++) {
        if (!cJSON_IsNumber(it)) { rd_fail(r, w, "placement_medians_us", "expected numbers"); return; }
        cr->placement_median_us[i] = it->valuedouble;
    }
    cr->placements = n;
}

static void read_time(rd_t *r, const cJSON *o, const char *w, mb_case_result_t *cr)
{
    static const char *const stops[4] = {"target_rse", "max_seconds", "max_runs", "interrupted"};
    /* "qcast" is what files of tool 0.1.0 before the q_quant variants called the quantisation. */
    static const char *const stage[MB_NSTAGES] = {"plan", "quant", "decode", "combine"};
    char w2[64];
    snprintf(w2, sizeof w2, "%stime_us.", w);
    const cJSON *t = rd_obj(r, o, w, "time_us");
    cr->time.n = rd_int(r, t, w2, "n");
    cr->time.median = rd_num(r, t, w2, "median");
    cr->time.mean = rd_num(r, t, w2, "mean");
    cr->time.min = rd_num(r, t, w2, "min");
    cr->time.max = rd_num(r, t, w2, "max");
    cr->time.stddev = rd_num(r, t, w2, "stddev");
    cr->time.rse = rd_num(r, t, w2, "rse");
    const cJSON *stop = rd_item(r, o, w, "stop_reason");
    if (stop && !cJSON_IsNull(stop)) {
        int i = rd_choice(r, o, w, "stop_reason", stops, 4, "expected a known stop reason or null");
        cr->stop_reason = i < 0 ? NULL : stops[i];
    }
    read_samples(r, o, w, cr);
    read_clock(r, o, w, cr);
    read_placements(r, o, w, cr);
    snprintf(w2, sizeof w2, "%sstages_median_us.", w);
    const cJSON *st = rd_obj(r, o, w, "stages_median_us");
    (void)w2;
    for (int i = 0; i < MB_NSTAGES; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(st, stage[i]);
        if (!v && i == MB_STAGE_QUANT) v = cJSON_GetObjectItemCaseSensitive(st, "qcast");
        cr->stage_median_us[i] = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    }
    /* Files written before the staged calls have neither field: their eager stage times came from the
     * timed calls themselves. */
    cr->staged_calls = 0;
    cr->staged_total_us = 0.0;
    if (!cJSON_GetObjectItemCaseSensitive(o, "staged_calls")) return;
    cr->staged_calls = rd_int(r, o, w, "staged_calls");
    if (cr->staged_calls < 0) rd_fail(r, w, "staged_calls", "expected a count");
    if (cr->staged_calls <= 0) return;
    cr->staged_total_us = rd_num(r, o, w, "staged_total_median_us");
    if (!(cr->staged_total_us >= 0)) rd_fail(r, w, "staged_total_median_us", "expected a time in µs where staged_calls > 0");
}

static void read_case(rd_t *r, const cJSON *o, int idx, mb_case_t *c, mb_case_result_t *cr)
{
    static const char *const status[3] = {"pass", "fail", "error"};
    char w[32], wp[48];
    snprintf(w, sizeof w, "cases[%d].", idx);
    snprintf(wp, sizeof wp, "%splan.", w);
    cr->c = c;
    read_case_def(r, o, w, c);
    rd_str(r, o, w, "kernel", cr->kernel, sizeof cr->kernel);
    const cJSON *plan = rd_obj(r, o, w, "plan");
    cr->splits_max = rd_int(r, plan, wp, "splits_max");
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(plan, "splits_chosen_by");
    cr->splits_how = cJSON_IsString(by) && !strcmp(by->valuestring, "tuned") ? 't'
                   : cJSON_IsString(by) && !strcmp(by->valuestring, "auto")  ? 'a' : 0;
    cr->units = rd_int(r, plan, wp, "units");
    cr->ctas = rd_int(r, plan, wp, "ctas");
    cr->slots = rd_int(r, plan, wp, "slots");
    cr->reduces = rd_int(r, plan, wp, "reduces");
    /* Optional: files written before plans had ids (0: unknown, never equal to another plan's). */
    const cJSON *id = plan ? cJSON_GetObjectItemCaseSensitive(plan, "id") : NULL;
    int hex = id && cJSON_IsString(id) && strlen(id->valuestring) == 16;
    for (int k = 0; hex && k < 16; k++) hex = isxdigit((unsigned char)id->valuestring[k]) != 0;
    cr->plan_id = hex ? strtoull(id->valuestring, NULL, 16) : 0;
    if (id && !hex) rd_fail(r, wp, "id", "expected 16 hex digits");
    cr->plan_built = rd_bool(r, plan, wp, "built");
    int s = rd_choice(r, o, w, "status", status, 3, "expected \"pass\", \"fail\" or \"error\"");
    cr->status = s == 0 ? MB_CASE_PASS : s == 1 ? MB_CASE_FAIL : MB_CASE_ERROR;
    if (cr->status == MB_CASE_ERROR) rd_str(r, o, w, "error", cr->error, sizeof cr->error);
    read_check(r, o, w, c, &cr->check);
    read_time(r, o, w, cr);
    cr->host_wall_us = rd_num(r, o, w, "host_wall_us");
    cr->bytes = rd_num(r, o, w, "bytes");
    cr->tbps = rd_num(r, o, w, "tbps");
    cr->pct_copy = rd_num(r, o, w, "pct_copy");
}

/* The schema first: a file of another version would fail later on some field, with a worse message. */
static cJSON *parse_result(const char *path, char *err, size_t errlen)
{
    char *text = mb_read_text(path, err, errlen);
    if (!text) return NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        int line = 1;
        for (const char *p = text; end && p < end; p++) line += *p == '\n';
        snprintf(err, errlen, "%s:%d: not valid JSON", path, line);
    }
    free(text);
    if (!root) return NULL;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsObject(root) || !cJSON_IsString(s)) {
        snprintf(err, errlen, "%s: no \"schema\" string: not an mla-bench result file", path);
    } else if (strcmp(s->valuestring, MB_RESULT_SCHEMA)) {
        snprintf(err, errlen, "%s: schema is \"%.64s\", this tool reads \"%s\"", path, s->valuestring,
                 MB_RESULT_SCHEMA);
    } else {
        return root;
    }
    cJSON_Delete(root);
    return NULL;
}

int mb_report_read_json(const char *path, mb_report_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    cJSON *root = parse_result(path, err, errlen);
    if (!root) return -1;
    rd_t r = {path, err, errlen, 0};
    const cJSON *cases = rd_arr(&r, root, "", "cases");
    int n = cases ? cJSON_GetArraySize(cases) : 0;
    mb_config_t *cfg = calloc(1, sizeof *cfg);
    out->config = cfg;
    if (cfg) {
        cfg->cases = calloc((size_t)n + 1, sizeof *cfg->cases);
        out->results = calloc((size_t)n + 1, sizeof *out->results);
    }
    if (!cfg || !cfg->cases || !out->results) rd_fail(&r, "", "cases", strerror(ENOMEM));
    if (!r.bad) {
        read_env(&r, root, &out->env);
        read_config(&r, root, cfg);
        out->interrupted = rd_bool(&r, root, "", "interrupted");
    }
    const cJSON *it = cases ? cases->child : NULL;
    for (int i = 0; it && !r.bad; it = it->next, i++) {
        char w[32];
        snprintf(w, sizeof w, "cases[%d]", i);
        if (!cJSON_IsObject(it)) { rd_fail(&r, "", w, "expected an object"); break; }
        /* Counted before reading, so a case that fails halfway is freed too. */
        cfg->n_cases = out->n_results = i + 1;
        read_case(&r, it, i, &cfg->cases[i], &out->results[i]);
    }
    cJSON_Delete(root);
    if (r.bad) { mb_report_free_read(out); return -1; }
    return 0;
}

/* The const pointers of a report that was read point at what the reader allocated. */
void mb_report_free_read(mb_report_t *r)
{
    mb_config_t *cfg = (mb_config_t *)r->config;
    for (int i = 0; i < r->n_results; i++) mb_result_free_samples(&r->results[i]);
    free(r->results);
    if (cfg) {
        for (int i = 0; i < cfg->n_cases; i++) {
            free(cfg->cases[i].kv_lens);
            free((char *)cfg->cases[i].file);
        }
        free(cfg->cases);
        free(cfg->path);
        free(cfg->text);
        free(cfg->sets);
        free(cfg);
    }
    memset(r, 0, sizeof *r);
}
