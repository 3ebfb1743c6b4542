/* Report layer: JSON round trip and schema check, CSV and Markdown content, console alignment and
 * color, atomic writes, and the .npy writer. Files go to a fresh directory under /tmp. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cJSON.h>
#include "unit.h"
#include "report.h"
#include "jsonio.h"
#include "npy.h"
#include "stats.h"

enum { NCASES = 3, NSAMP = 6 };

/* Three cases: a pass, a fail and an error, with names that need CSV quoting and Markdown escaping. */
typedef struct {
    mb_case_t cases[NCASES];
    int32_t kv[NCASES][4];
    double samples[NCASES][NSAMP];
    double sm_cycles[NCASES][NSAMP], sm_ns[NCASES][NSAMP];
    mb_config_t cfg;
    mb_case_result_t res[NCASES];
    mb_report_t rep;
} fixture_t;

static char tdir[64];

static void fixture(fixture_t *x)
{
    static const char *const names[NCASES] = {"b4, \"long\" kv", "graph|hot", "broken"};
    static char path[] = "configs/smoke.json";
    static char text[] = "{\"cases\": [{\"batch\": 4}]}";
    memset(x, 0, sizeof *x);
    x->cfg = (mb_config_t){path, text, x->cases, NCASES, NULL};
    for (int i = 0; i < NCASES; i++) {
        mb_case_t *c = &x->cases[i];
        snprintf(c->name, sizeof c->name, "%s", names[i]);
        c->file = path;
        c->index = i;
        c->batch = 4;
        c->q_len = 1 + i;
        c->heads = 16 << i;
        for (int b = 0; b < 4; b++) x->kv[i][b] = 1000 * (i + 1) + 37 * b;
        c->kv_lens = x->kv[i];
        snprintf(c->kv_desc, sizeof c->kv_desc, i ? "uniform[1,4096]" : "1024");
        c->causal = i != 1;
        c->splits = i == 1 ? 4 : 0;
        c->mode = i == 2 ? MB_MODE_EAGER : MB_MODE_GRAPH;
        c->l2 = i == 1 ? MB_L2_HOT : i == 2 ? MB_L2_COLD_CLEAN : MB_L2_COLD;
        c->icache = i == 1 ? MB_ICACHE_COLD : MB_ICACHE_WARM;
        c->seed = i == 0 ? UINT64_C(12345678901) : (uint64_t)i;
        c->q_std = 1.0 / 3.0;
        c->kv_std = 0.7;
        c->atol = 1e-3;
        c->rtol = 1e-2;
        c->max_rel_l2 = 5e-3;
        c->page_size = i == 0 ? 0 : i == 1 ? 16 : 64;   /* flat, paged contiguous, paged shuffled */
        c->warmup = 3 + i;
        c->min_runs = 10;
        c->max_runs = 1000 + i;
        c->target_rse = 0.005;
        c->max_seconds = 2.5;
        c->page_order = i == 1 ? MB_PAGES_CONTIGUOUS : MB_PAGES_SHUFFLED;

        mb_case_result_t *r = &x->res[i];
        r->c = c;
        r->status = (mb_case_status_t)i;
        snprintf(r->kernel, sizeof r->kernel, "mla_fp8_sm90");
        for (int s = 0; s < NSAMP; s++) x->samples[i][s] = 10.0 + i + sqrt(s + 2.0);
        /* 15 significant digits do not read back as this double: cJSON's own printing would lose it. */
        x->samples[i][NSAMP - 1] = 88.30992237586058;
        if (i == 2) {
            snprintf(r->error, sizeof r->error, "plan: out of device memory");
            for (int s = 0; s < MB_NSTAGES; s++) r->stage_median_us[s] = -1.0;
            continue;
        }
        r->splits_max = i ? 4 : 8;
        r->units = 132 + i;
        r->ctas = 132;
        r->slots = 64;
        r->reduces = 12;
        r->plan_id = i ? 0xfedcba9876543210ull : 1;   /* all 64 bits survive the file */
        r->plan_built = i == 0;
        r->check = (mb_check_t){0.001953125, 1.234567890123e-4, 0.99999993, 2.25e-3, 4 * 16 * 512, i ? 17 : 0,
                                0, i ? 3 : 0, i ? 1234 : 0, 0.0625, 2.5e-2, 0.9996, i == 0};
        r->samples_us = x->samples[i];
        r->n_samples = NSAMP;
        /* SM clock: 1700 MHz for the first case (its third sample without a stamp), a throttled 1200 for
         * the second (under 75 % of the 1980 MHz peak below) */
        for (int s = 0; s < NSAMP; s++) {
            x->sm_ns[i][s] = i == 0 && s == 2 ? 0.0 : 20000.0 + 992.0 * s;
            x->sm_cycles[i][s] = x->sm_ns[i][s] * (i ? 1.2 : 1.7);
        }
        r->sm_cycles = x->sm_cycles[i];
        r->sm_ns = x->sm_ns[i];
        r->sm_mhz = mb_sm_mhz(r->sm_cycles, r->sm_ns, NSAMP);
        r->time = (mb_stats_t){NSAMP, 10.5 + i, 10.4 + i, 10.0 + i, 11.0 + i, 0.123456789, 0.00312};
        r->stop_reason = i ? "max_runs" : "target_rse";
        /* three placements 1.0 us apart around a median of 10.5: a spread of 9.52 %; one for the second */
        r->placements = i ? 1 : 3;
        r->placement_median_us[0] = i ? 11.5 : 10.0;
        r->placement_median_us[1] = 11.0;
        r->placement_median_us[2] = 10.25;
        r->stage_median_us[MB_STAGE_PLAN] = -1.0;
        r->stage_median_us[MB_STAGE_QUANT] = i ? 1.5 : -1.0;
        r->stage_median_us[MB_STAGE_DECODE] = i ? 8.25 : -1.0;
        r->stage_median_us[MB_STAGE_COMBINE] = i ? 0.75 : -1.0;
        r->staged_calls = i ? 10 : 0;   /* the stage times' own calls, whole: events and all */
        r->staged_total_us = i ? 15.0625 : 0.0;
        r->host_wall_us = 25.125;
        r->bytes = 1.23456789e9;
        r->tbps = 3.1415926535;
        r->pct_copy = 78.5;
    }
    mb_env_t *e = &x->rep.env;
    snprintf(e->tool_version, sizeof e->tool_version, "0.3.1");
    snprintf(e->git_commit, sizeof e->git_commit, "abcdef0");
    snprintf(e->date, sizeof e->date, "2025-01-02T03:04:05Z");
    snprintf(e->vendor, sizeof e->vendor, "nvidia");
    snprintf(e->device, sizeof e->device, "NVIDIA H200");
    snprintf(e->gpu_id, sizeof e->gpu_id, "GPU-0123abcd-0000-1111-2222-333344445555, pci 0000:1b:00");
    snprintf(e->arch, sizeof e->arch, "sm_90a");
    snprintf(e->fp8_flavour, sizeof e->fp8_flavour, "e4m3fn");
    e->sm_count = 132;
    e->driver_version = 12040;
    e->runtime_version = 12040;
    e->l2_bytes = 52428800;
    e->mem_bytes = 150e9;
    e->copy_tbps = 4.0123;
    e->launch_floor_us = 2.0625;
    e->sm_clock_max_mhz = 1980;
    mb_module_loading_text(e->module_loading, sizeof e->module_loading, "CUDA_MODULE_LOADING", "EAGER");
    x->rep.config = &x->cfg;
    x->rep.results = x->res;
    x->rep.n_results = NCASES;
}

static void tpath(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tdir, name);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf) buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Files whose name starts with '.' in dir: what a failed or interrupted atomic write would leave. */
static int hidden_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static int same_double(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static void check_case_equal(const mb_case_result_t *a, const mb_case_result_t *b)
{
    const mb_case_t *ca = a->c, *cb = b->c;
    CHECKF(!strcmp(ca->name, cb->name), "%s vs %s", ca->name, cb->name);
    CHECK(ca->file && cb->file && !strcmp(ca->file, cb->file));
    CHECK(ca->index == cb->index && ca->batch == cb->batch && ca->q_len == cb->q_len);
    CHECK(ca->heads == cb->heads && ca->causal == cb->causal && ca->splits == cb->splits);
    CHECK(ca->mode == cb->mode && ca->l2 == cb->l2 && ca->icache == cb->icache && ca->seed == cb->seed);
    CHECK(!strcmp(ca->kv_desc, cb->kv_desc));
    for (int i = 0; i < ca->batch; i++) CHECK(ca->kv_lens[i] == cb->kv_lens[i]);
    CHECK(ca->q_std == cb->q_std && ca->kv_std == cb->kv_std);
    CHECK(ca->page_size == cb->page_size && (!ca->page_size || ca->page_order == cb->page_order));
    CHECK(ca->atol == cb->atol && ca->rtol == cb->rtol && ca->max_rel_l2 == cb->max_rel_l2);
    CHECK(ca->warmup == cb->warmup && ca->min_runs == cb->min_runs && ca->max_runs == cb->max_runs);
    CHECK(ca->target_rse == cb->target_rse && ca->max_seconds == cb->max_seconds);
    CHECK(a->status == b->status && !strcmp(a->error, b->error) && !strcmp(a->kernel, b->kernel));
    CHECK(a->splits_max == b->splits_max && a->units == b->units && a->ctas == b->ctas);
    CHECK(a->slots == b->slots && a->reduces == b->reduces && a->plan_built == b->plan_built && a->plan_id == b->plan_id);
    const mb_check_t *ka = &a->check, *kb = &b->check;
    CHECK(ka->max_abs == kb->max_abs && ka->rel_l2 == kb->rel_l2 && ka->cosine == kb->cosine);
    CHECK(ka->row_rel_l2 == kb->row_rel_l2);
    CHECK(ka->q_saturated == kb->q_saturated && ka->q_below_normal == kb->q_below_normal);
    CHECK(ka->n_total == kb->n_total && ka->n_outside == kb->n_outside && ka->n_nonfinite == kb->n_nonfinite);
    CHECK(ka->fid_max_abs == kb->fid_max_abs && ka->fid_rel_l2 == kb->fid_rel_l2);
    CHECK(ka->fid_cosine == kb->fid_cosine && ka->pass == kb->pass);
    const mb_stats_t *ta = &a->time, *tb = &b->time;
    CHECK(ta->n == tb->n && ta->median == tb->median && ta->mean == tb->mean && ta->min == tb->min);
    CHECK(ta->max == tb->max && ta->stddev == tb->stddev && ta->rse == tb->rse);
    CHECK(a->n_samples == b->n_samples);
    for (int i = 0; i < a->n_samples && i < b->n_samples; i++)
        CHECKF(a->samples_us[i] == b->samples_us[i], "sample %d: %.17g vs %.17g", i, a->samples_us[i],
               b->samples_us[i]);
    CHECK((a->stop_reason == NULL) == (b->stop_reason == NULL));
    CHECK(!a->stop_reason || !b->stop_reason || !strcmp(a->stop_reason, b->stop_reason));
    for (int i = 0; i < MB_NSTAGES; i++) CHECK(a->stage_median_us[i] == b->stage_median_us[i]);
    CHECK(a->staged_calls == b->staged_calls && (a->staged_calls == 0 || a->staged_total_us == b->staged_total_us));
    CHECK(a->sm_mhz == b->sm_mhz && !a->sm_cycles == !b->sm_cycles && !a->sm_ns == !b->sm_ns);
    for (int i = 0; a->sm_cycles && b->sm_cycles && i < a->n_samples && i < b->n_samples; i++)
        CHECK(a->sm_cycles[i] == b->sm_cycles[i] && a->sm_ns[i] == b->sm_ns[i]);
    CHECK(same_double(a->host_wall_us, b->host_wall_us) && a->bytes == b->bytes);
    CHECK(same_double(a->tbps, b->tbps) && same_double(a->pct_copy, b->pct_copy));
}

static void test_json_roundtrip(void)
{
    fixture_t x;
    fixture(&x);
    char path[128], err[512] = "";
    tpath(path, sizeof path, "r.json");
    CHECKF(mb_report_write_json(&x.rep, path, err, sizeof err) == 0, "%s", err);
    mb_report_t back;
    CHECKF(mb_report_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(!memcmp(&back.env, &x.rep.env, sizeof back.env));
    CHECK(back.interrupted == 0 && back.n_results == NCASES);
    CHECK(back.config && back.config->n_cases == NCASES);
    CHECK(back.config && back.config->path && !strcmp(back.config->path, x.cfg.path));
    CHECK(back.config && !back.config->sets);   /* a run without --set has none */
    /* The config text went in as JSON, so it comes back reprinted but equal as JSON. */
    cJSON *a = cJSON_Parse(x.cfg.text), *b = back.config ? cJSON_Parse(back.config->text) : NULL;
    CHECK(a && b && cJSON_Compare(a, b, 1));
    cJSON_Delete(a);
    cJSON_Delete(b);
    for (int i = 0; i < back.n_results && i < NCASES; i++) check_case_equal(&x.res[i], &back.results[i]);
    mb_report_free_read(&back);
    CHECK(hidden_files(tdir) == 0);
}

static void test_json_fields(void)
{
    fixture_t x;
    fixture(&x);
    x.rep.interrupted = 1;
    x.res[0].check.cosine = NAN;
    x.res[1].tbps = INFINITY;
    char path[128], err[512] = "";
    tpath(path, sizeof path, "f.json");
    CHECKF(mb_report_write_json(&x.rep, path, err, sizeof err) == 0, "%s", err);
    char *text = slurp(path, NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(root, "interrupted")));
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(root, "schema")), MB_RESULT_SCHEMA));
    const cJSON *cases = cJSON_GetObjectItem(root, "cases");
    const cJSON *c0 = cJSON_GetArrayItem(cases, 0), *c1 = cJSON_GetArrayItem(cases, 1);
    const cJSON *c2 = cJSON_GetArrayItem(cases, 2);
    CHECK(cJSON_GetArraySize(cases) == NCASES);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "check"), "cosine")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(c1, "tbps")));
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c0, "splits_requested")), "auto"));
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(c1, "splits_requested")) == 4);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "stages_median_us"), "decode")));
    CHECK(!cJSON_HasObjectItem(c0, "error") && cJSON_HasObjectItem(c2, "error"));
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c2, "status")), "error"));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(c1, "kv_lens")) == 4);
    /* the cache layout as run: flat has no page order */
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(c0, "page_size")) == 0);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(c0, "page_order")));
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(c1, "page_size")) == 16);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c1, "page_order")), "contiguous"));
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c2, "page_order")), "shuffled"));
    CHECK(strstr(text, "\"seed\":\t12345678901") != NULL);
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "config"), "text")));
    cJSON_Delete(root);
    free(text);

    mb_report_t back;
    CHECKF(mb_report_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.interrupted == 1);
    CHECK(back.n_results == NCASES && isnan(back.results[0].check.cosine) && isnan(back.results[1].tbps));
    mb_report_free_read(&back);
}

/* The fixture written as JSON to tdir/NAME (its path in path), read back as a cJSON tree to edit. */
static cJSON *fixture_as_json(const char *name, char *path, size_t pathlen)
{
    fixture_t x;
    fixture(&x);
    char err[512] = "";
    tpath(path, pathlen, name);
    CHECKF(mb_report_write_json(&x.rep, path, err, sizeof err) == 0, "%s", err);
    char *text = slurp(path, NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    return root;
}

/* An edited JSON tree written to path and read back as a report: mb_report_read_json's result. */
static int read_edited(const cJSON *root, const char *path, mb_report_t *back, char *err, size_t errlen)
{
    char *text = cJSON_Print(root);
    spit(path, text);
    free(text);
    return mb_report_read_json(path, back, err, errlen);
}

/* Files written before the GPU's identity was recorded have no device.id: they still read, with an
 * empty one (the committed baselines are such files); an id of the wrong type is still an error. */
static void test_json_gpu_id_optional(void)
{
    char path[128], err[512] = "";
    cJSON *root = fixture_as_json("noid.json", path, sizeof path);
    cJSON *dev = cJSON_GetObjectItem(root, "device");
    CHECK(dev && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(dev, "id")), "GPU-0123abcd-0000-1111-2222-333344445555, pci 0000:1b:00"));
    cJSON_DeleteItemFromObject(dev, "id");
    char *out = cJSON_Print(root);
    spit(path, out);
    mb_report_t back;
    CHECKF(mb_report_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.env.gpu_id[0] == 0 && !strcmp(back.env.device, "NVIDIA H200"));
    mb_report_free_read(&back);
    cJSON_AddNumberToObject(dev, "id", 7);
    free(out);
    out = cJSON_Print(root);
    spit(path, out);
    CHECK(mb_report_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, "device.id") != NULL, "%s", err);
    free(out);
    cJSON_Delete(root);
}

/* The staged calls' fields are optional (files written before them read as none), but a count of
 * staged calls needs their whole time. */
static void test_json_staged_optional(void)
{
    char path[128], err[512] = "";
    cJSON *root = fixture_as_json("staged.json", path, sizeof path);
    cJSON *c1 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), 1);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(c1, "staged_calls")) == 10);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(c1, "staged_total_median_us")) == 15.0625);
    cJSON_ReplaceItemInObject(c1, "staged_total_median_us", cJSON_CreateNull());
    mb_report_t back;
    CHECK(read_edited(root, path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, "cases[1].staged_total_median_us") != NULL, "%s", err);
    cJSON_DeleteItemFromObject(c1, "staged_calls");
    cJSON_DeleteItemFromObject(c1, "staged_total_median_us");
    CHECKF(read_edited(root, path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.n_results > 1 && back.results[1].staged_calls == 0 && back.results[1].stage_median_us[MB_STAGE_DECODE] == 8.25);
    mb_report_free_read(&back);
    cJSON_Delete(root);
}

static char *console(const mb_report_t *r, int color)
{
    FILE *f = tmpfile();
    if (f) mb_report_print(f, r, color);
    return unit_read_back(f);
}

/* The SM clock's fields are optional (files written before them read as unknown: 0 and no arrays), but
 * malformed ones are errors that name the field. */
static void test_json_clock_optional(void)
{
    char path[128], err[512] = "";
    cJSON *root = fixture_as_json("clock.json", path, sizeof path);
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), 0);
    cJSON *c2 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), 2);
    cJSON *dev = cJSON_GetObjectItem(root, "device");
    CHECK(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(c0, "sm_clock_mhz")) - 1700.0) < 1e-9);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(c2, "sm_clock_mhz")) && !cJSON_HasObjectItem(c2, "sm_clock_samples"));
    cJSON *k = cJSON_GetObjectItem(c0, "sm_clock_samples");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(k, "cycles")) == NSAMP && cJSON_GetArraySize(cJSON_GetObjectItem(k, "ns")) == NSAMP);
    mb_report_t back;
    struct { const char *field; cJSON *bad; } cases[] = {
        {"cases[0].sm_clock_samples.cycles", cJSON_CreateArray()},                /* length 0, not NSAMP */
        {"cases[0].sm_clock_samples.ns", cJSON_CreateNumber(3)},                  /* not an array */
        {"cases[0].sm_clock_mhz", cJSON_CreateNumber(-5)},
        {"device.sm_clock_max_mhz", cJSON_CreateString("1980")},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *fresh = cJSON_Duplicate(root, 1);
        cJSON *f0 = cJSON_GetArrayItem(cJSON_GetObjectItem(fresh, "cases"), 0);
        cJSON *fk = cJSON_GetObjectItem(f0, "sm_clock_samples");
        if (i == 0) cJSON_ReplaceItemInObject(fk, "cycles", cases[i].bad);
        else if (i == 1) cJSON_ReplaceItemInObject(fk, "ns", cases[i].bad);
        else if (i == 2) cJSON_ReplaceItemInObject(f0, "sm_clock_mhz", cases[i].bad);
        else cJSON_ReplaceItemInObject(cJSON_GetObjectItem(fresh, "device"), "sm_clock_max_mhz", cases[i].bad);
        CHECKF(read_edited(fresh, path, &back, err, sizeof err) == -1, "%s accepted", cases[i].field);
        CHECKF(strstr(err, cases[i].field) != NULL, "%s: %s", cases[i].field, err);
        cJSON_Delete(fresh);
    }
    /* a negative cycle count is no count */
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(k, "cycles"), 1, cJSON_CreateNumber(-1));
    CHECK(read_edited(root, path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, "cases[0].sm_clock_samples.cycles") != NULL, "%s", err);
    /* without any clock field: it reads, clock unknown */
    for (int i = 0; i < NCASES; i++) {
        cJSON *ci = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), i);
        cJSON_DeleteItemFromObject(ci, "sm_clock_mhz");
        cJSON_DeleteItemFromObject(ci, "sm_clock_samples");
    }
    cJSON_DeleteItemFromObject(dev, "sm_clock_max_mhz");
    CHECKF(read_edited(root, path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.env.sm_clock_max_mhz == 0 && back.results[0].sm_mhz == 0 && !back.results[0].sm_cycles && !back.results[0].sm_ns);
    /* and an old file's table shows the clock as unknown, with no throttle note */
    char *buf = console(&back, 0);
    CHECKF(buf && strstr(buf, "SM MHz") && !strstr(buf, "clock:"), "%s", buf);
    free(buf);
    mb_report_free_read(&back);
    cJSON_Delete(root);
}

/* The clock is a ratio of sums over the samples with stamps: not a mean of per-sample ratios, which a
 * coarse timer would skew; none known is 0 (unknown), never a division by zero. */
static void test_sm_mhz(void)
{
    const double cyc[4] = {1000, 0, 3000, 500}, ns[4] = {1000, 400, 1000, 0};
    CHECK(fabs(mb_sm_mhz(cyc, ns, 4) - 2000.0) < 1e-9);          /* (1000 + 3000) / 2000 ns */
    CHECK(mb_sm_mhz(cyc + 1, ns + 1, 1) == 0.0);                  /* no cycles: unknown */
    CHECK(mb_sm_mhz(cyc + 3, ns + 3, 1) == 0.0);                  /* no ns: unknown */
    CHECK(mb_sm_mhz(NULL, NULL, 4) == 0.0 && mb_sm_mhz(cyc, ns, 0) == 0.0);
    const double c2[2] = {100, 1900}, n2[2] = {1000, 1000};      /* per-sample ratios 0.1 and 1.9 GHz */
    CHECK(fabs(mb_sm_mhz(c2, n2, 2) - 1000.0) < 1e-9);
}

/* A case whose stop rule ran out short of its target is named, with both figures; one that reached it,
 * one without a stop rule (an older file) and one that stopped short but within target are not. */
static void test_noise_note(void)
{
    fixture_t x;
    fixture(&x);
    x.cases[1].target_rse = 0.001;                                  /* max_runs at 0.312 %: noisy */
    x.cases[0].target_rse = 0.001;                                  /* stopped at target_rse: never */
    CHECK(mb_noisy(&x.res[1]) && !mb_noisy(&x.res[0]) && !mb_noisy(&x.res[2]));
    char *buf = console(&x.rep, 0);
    CHECKF(buf && strstr(buf, "noise: graph|hot stopped at max_runs with ±0.31%, short of its target ±0.10%") &&
           !strstr(buf, "noise: b4"), "%s", buf);
    free(buf);
    x.cases[1].target_rse = 0.005;                                  /* within target though the runs ran out */
    CHECK(!mb_noisy(&x.res[1]));
    x.cases[1].target_rse = 0;                                      /* unknown: files before the stop rule */
    CHECK(!mb_noisy(&x.res[1]));
    /* The stop rule in the file is optional (older files), but whole when present. */
    char path[128], err[512] = "";
    cJSON *root = fixture_as_json("stop-rule.json", path, sizeof path);
    cJSON *c1 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), 1);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(c1, "stop_rule"), "min_runs");
    mb_report_t back;
    CHECK(read_edited(root, path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, "cases[1].stop_rule.min_runs"), "%s", err);
    cJSON_DeleteItemFromObject(c1, "stop_rule");
    CHECKF(read_edited(root, path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.n_results > 1 && back.results[1].c->target_rse == 0 && !mb_noisy(&back.results[1]));
    CHECK(back.n_results > 1 && back.results[0].c->max_runs == 1000);
    mb_report_free_read(&back);
    cJSON_Delete(root);
}

/* The console names the case that ran throttled (under 75 % of the peak), and no other. */
static void test_throttle_note(void)
{
    fixture_t x;
    fixture(&x);
    CHECK(!mb_sm_throttled(&x.res[0], &x.rep.env) && mb_sm_throttled(&x.res[1], &x.rep.env));
    CHECK(!mb_sm_throttled(&x.res[2], &x.rep.env));              /* unknown is not throttled */
    x.rep.env.sm_clock_max_mhz = 0;
    CHECK(!mb_sm_throttled(&x.res[1], &x.rep.env));              /* nor is an unknown peak */
    x.rep.env.sm_clock_max_mhz = 1980;
    x.res[0].sm_mhz = 0.75 * 1980 - 1;                             /* just under the line */
    CHECK(mb_sm_throttled(&x.res[0], &x.rep.env));
    x.res[0].sm_mhz = 1700;
    char *buf = console(&x.rep, 0);
    CHECKF(buf && strstr(buf, "clock: graph|hot ran at 1200 MHz, under 75% of the SM's peak 1980 MHz") != NULL, "%s", buf);
    CHECK(buf && !strstr(buf, "clock: b4") && !strstr(buf, "clock: broken"));
    CHECK(buf && strstr(buf, "SM clock peak 1980 MHz") != NULL);
    CHECK(buf && strstr(buf, "  1700  ") != NULL && strstr(buf, "  1200  ") != NULL);
    free(buf);
}

/* The command line's --set overrides go with the config into the JSON and the Markdown header. */
static void test_config_sets(void)
{
    fixture_t x;
    fixture(&x);
    static char sets[] = "--set placements=8 --set l2=hot";
    x.cfg.sets = sets;
    char path[128], err[512] = "";
    tpath(path, sizeof path, "sets.json");
    CHECKF(mb_report_write_json(&x.rep, path, err, sizeof err) == 0, "%s", err);
    mb_report_t back;
    CHECKF(mb_report_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.config && back.config->sets && !strcmp(back.config->sets, sets));
    mb_report_free_read(&back);
    tpath(path, sizeof path, "sets.md");
    CHECKF(mb_report_write_md(&x.rep, path, err, sizeof err) == 0, "%s", err);
    char *text = slurp(path, NULL);
    CHECKF(text && strstr(text, "- config: configs/smoke.json (--set placements=8 --set l2=hot)\n"), "%s", text);
    free(text);
}

/* How the run's kernels were loaded is recorded as the variable had it, set or not; every report shows
 * it, and a file written before it reads as unknown ("") while a value of the wrong type is an error. */
static void test_module_loading(void)
{
    char buf[96];
    mb_module_loading_text(buf, sizeof buf, "CUDA_MODULE_LOADING", NULL);
    CHECKF(!strcmp(buf, "CUDA_MODULE_LOADING unset"), "%s", buf);
    mb_module_loading_text(buf, sizeof buf, "CUDA_MODULE_LOADING", "");
    CHECKF(!strcmp(buf, "CUDA_MODULE_LOADING="), "%s", buf);   /* set to nothing is not unset */
    mb_module_loading_text(buf, sizeof buf, "HIP_ENABLE_DEFERRED_LOADING", "0");
    CHECKF(!strcmp(buf, "HIP_ENABLE_DEFERRED_LOADING=0"), "%s", buf);

    fixture_t x;
    fixture(&x);
    char *text = console(&x.rep, 0);
    CHECKF(text && strstr(text, "SM clock peak 1980 MHz; CUDA_MODULE_LOADING=EAGER\n"), "%s", text);
    free(text);
    char path[128], err[512] = "";
    tpath(path, sizeof path, "loading.md");
    CHECKF(mb_report_write_md(&x.rep, path, err, sizeof err) == 0, "%s", err);
    text = slurp(path, NULL);
    CHECKF(text && strstr(text, "- module loading: CUDA_MODULE_LOADING=EAGER\n"), "%s", text);
    free(text);

    cJSON *root = fixture_as_json("loading.json", path, sizeof path);
    cJSON *dev = cJSON_GetObjectItem(root, "device");
    CHECK(dev && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(dev, "module_loading")), "CUDA_MODULE_LOADING=EAGER"));
    mb_report_t back;
    cJSON_ReplaceItemInObject(dev, "module_loading", cJSON_CreateNumber(1));
    CHECK(read_edited(root, path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, "device.module_loading") != NULL, "%s", err);
    cJSON_DeleteItemFromObject(dev, "module_loading");
    CHECKF(read_edited(root, path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.env.module_loading[0] == 0);
    text = console(&back, 0);   /* unknown: nothing said about it */
    CHECKF(text && !strstr(text, "MODULE_LOADING") && strstr(text, "SM clock peak 1980 MHz\n"), "%s", text);
    free(text);
    mb_report_free_read(&back);
    cJSON_Delete(root);
}

/* A case's "icache" is read back as written; a value other than warm or cold is refused by its path; a
 * file from before the setting (no field) was timed with the code warm. */
static void test_json_icache(void)
{
    char path[128], err[512] = "";
    cJSON *root = fixture_as_json("icache.json", path, sizeof path);
    cJSON *c1 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), 1);
    CHECK(c1 && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c1, "icache")), "cold"));
    mb_report_t back;
    CHECKF(read_edited(root, path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.n_results > 1 && back.results[1].c->icache == MB_ICACHE_COLD && back.results[0].c->icache == MB_ICACHE_WARM);
    mb_report_free_read(&back);
    cJSON_ReplaceItemInObject(c1, "icache", cJSON_CreateString("lukewarm"));
    CHECK(read_edited(root, path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, "icache") && strstr(err, "expected \"warm\" or \"cold\""), "%s", err);
    cJSON_DeleteItemFromObject(c1, "icache");
    CHECKF(read_edited(root, path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.n_results > 1 && back.results[1].c->icache == MB_ICACHE_WARM);
    mb_report_free_read(&back);
    cJSON_Delete(root);
}

static void test_json_config_not_json(void)
{
    fixture_t x;
    fixture(&x);
    static char text[] = "not { json";
    x.cfg.text = text;
    char path[128], err[512] = "";
    tpath(path, sizeof path, "t.json");
    CHECKF(mb_report_write_json(&x.rep, path, err, sizeof err) == 0, "%s", err);
    mb_report_t back;
    CHECKF(mb_report_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.config && back.config->text && !strcmp(back.config->text, text));
    mb_report_free_read(&back);
}

static void test_json_reader_rejects(void)
{
    char path[128], err[512];
    mb_report_t back;
    tpath(path, sizeof path, "bad.json");

    spit(path, "{\"schema\": \"mla-bench/result/0\", \"cases\": []}");
    CHECK(mb_report_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strstr(err, "schema") && strstr(err, "mla-bench/result/0"), "%s", err);
    CHECK(back.results == NULL && back.config == NULL);

    spit(path, "[1, 2]");
    CHECK(mb_report_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strstr(err, "schema"), "%s", err);

    spit(path, "{\n\"schema\": \n oops}");
    CHECK(mb_report_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strstr(err, ":3: not valid JSON"), "%s", err);

    /* A valid env and one case missing almost everything: the message names the JSON path. */
    fixture_t x;
    fixture(&x);
    x.rep.n_results = 0;
    CHECKF(mb_report_write_json(&x.rep, path, err, sizeof err) == 0, "%s", err);
    char *text = slurp(path, NULL);
    cJSON *root = cJSON_Parse(text);
    cJSON *kase = cJSON_CreateObject();
    cJSON_AddStringToObject(kase, "name", "x");
    cJSON_AddItemToArray(cJSON_GetObjectItem(root, "cases"), kase);
    char *edited = cJSON_Print(root);
    spit(path, edited);
    CHECK(mb_report_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strstr(err, "cases[0].file: missing"), "%s", err);
    CHECK(back.results == NULL && back.config == NULL);
    free(edited);
    cJSON_Delete(root);
    free(text);

    /* plan.id is optional (older files), but when present it is 16 hex digits, not read as 0. */
    fixture(&x);
    CHECKF(mb_report_write_json(&x.rep, path, err, sizeof err) == 0, "%s", err);
    text = slurp(path, NULL);
    root = cJSON_Parse(text);
    cJSON *plan = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), 1), "plan");
    cJSON_ReplaceItemInObject(plan, "id", cJSON_CreateString("fedcba987654321g"));
    edited = cJSON_Print(root);
    spit(path, edited);
    CHECK(mb_report_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, "cases[1].plan.id: expected 16 hex digits"), "%s", err);
    cJSON_DeleteItemFromObject(plan, "id");
    free(edited);
    edited = cJSON_Print(root);
    spit(path, edited);
    CHECKF(mb_report_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.n_results > 1 && back.results[1].plan_id == 0);
    mb_report_free_read(&back);
    free(edited);

    /* placements is optional (older files read as 0: unknown), but it must count its medians. */
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), 0);
    cJSON_ReplaceItemInObject(c0, "placements", cJSON_CreateNumber(2));
    edited = cJSON_Print(root);
    spit(path, edited);
    CHECK(mb_report_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, "cases[0].placements: expected an integer in [1, 8], the length of placement_medians_us"), "%s", err);
    free(edited);
    cJSON_DeleteItemFromObject(c0, "placements");
    cJSON_DeleteItemFromObject(c0, "placement_medians_us");
    edited = cJSON_Print(root);
    spit(path, edited);
    CHECKF(mb_report_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.n_results > 1 && back.results[0].placements == 0 && back.results[1].placements == 1 &&
          back.results[1].placement_median_us[0] == 11.5);
    mb_report_free_read(&back);
    free(edited);
    cJSON_Delete(root);
    free(text);

    tpath(path, sizeof path, "missing.json");
    CHECK(mb_report_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strstr(err, "No such file"), "%s", err);
}

/* RFC 4180 reader for the test: fields of every record, as a flat array with nf per record. */
static int csv_parse(const char *s, char fields[][160], int maxf, int *nrec)
{
    int nf = 0;
    size_t o = 0;
    *nrec = 0;
    while (*s && nf < maxf) {
        if (*s == '"') {
            for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                if (*s == '"') s++;
                fields[nf][o++] = *s;
            }
            if (*s) s++;
        }
        for (; *s && *s != ',' && *s != '\n'; s++) fields[nf][o++] = *s;
        fields[nf++][o] = '\0';
        o = 0;
        if (*s == '\n' || !*s) (*nrec)++;
        if (*s) s++;
    }
    return nf;
}

static void test_csv(void)
{
    fixture_t x;
    fixture(&x);
    char path[128], err[512] = "";
    tpath(path, sizeof path, "r.csv");
    CHECKF(mb_report_write_csv(&x.rep, path, err, sizeof err) == 0, "%s", err);
    char *text = slurp(path, NULL);
    static char f[200][160];
    int nrec = 0, nf = text ? csv_parse(text, f, 200, &nrec) : 0;
    enum { NC = 43 };
    CHECKF(nrec == 1 + NCASES && nf == NC * (1 + NCASES), "records %d fields %d", nrec, nf);
    CHECK(!strcmp(f[0], "name") && !strcmp(f[9], "median_us") && !strcmp(f[NC - 1], "status"));
    /* the staged calls' whole time: none for the first case, 15.0625 for the second */
    CHECK(!strcmp(f[33], "combine_us") && !strcmp(f[34], "staged_total_us"));
    CHECK(!strcmp(f[NC + 34], "") && strtod(f[2 * NC + 34], NULL) == 15.0625);
    /* placements and their spread: (11.0 - 10.0) / 10.5; one placement has none; the error case nothing */
    CHECK(!strcmp(f[37], "placements") && !strcmp(f[38], "placement_spread_pct"));
    CHECKF(!strcmp(f[NC + 37], "3") && fabs(strtod(f[NC + 38], NULL) - 100.0 / 10.5) < 1e-12, "%s %s", f[NC + 37], f[NC + 38]);
    CHECK(!strcmp(f[2 * NC + 37], "1") && !strcmp(f[2 * NC + 38], "0"));
    CHECK(!strcmp(f[3 * NC + 37], "") && !strcmp(f[3 * NC + 38], ""));
    /* the SM clock; the error case has none */
    CHECK(!strcmp(f[39], "sm_mhz") && fabs(strtod(f[NC + 39], NULL) - 1700.0) < 1e-9);
    CHECK(fabs(strtod(f[2 * NC + 39], NULL) - 1200.0) < 1e-9 && !strcmp(f[3 * NC + 39], ""));
    CHECK(!strcmp(f[NC], "b4, \"long\" kv"));
    CHECK(strstr(text, "\"b4, \"\"long\"\" kv\",") != NULL);
    CHECK(!strcmp(f[NC + 3], "1024") && !strcmp(f[NC + 5], "8a") && !strcmp(f[NC + 6], "graph"));
    CHECK(strtod(f[NC + 9], NULL) == 10.5 && strtod(f[NC + 18], NULL) == 3.1415926535);
    CHECK(!strcmp(f[2 * NC + 3], "uniform[1,4096]") && !strcmp(f[2 * NC + 5], "4"));
    CHECK(!strcmp(f[NC + 40], "built") && !strcmp(f[2 * NC + 40], "cached"));
    CHECK(!strcmp(f[NC + 42], "pass") && !strcmp(f[2 * NC + 42], "fail"));
    /* the instruction caches as each case was timed: the second case cold */
    CHECK(!strcmp(f[41], "icache") && !strcmp(f[NC + 41], "warm") && !strcmp(f[2 * NC + 41], "cold"));
    /* The cache layout: page_size 0 and no order for a flat cache. */
    CHECK(!strcmp(f[28], "page_size") && !strcmp(f[29], "page_order"));
    CHECK(!strcmp(f[NC + 28], "0") && !strcmp(f[NC + 29], ""));
    CHECK(!strcmp(f[2 * NC + 28], "16") && !strcmp(f[2 * NC + 29], "contiguous"));
    CHECK(!strcmp(f[3 * NC + 28], "64") && !strcmp(f[3 * NC + 29], "shuffled"));
    /* The error case measured nothing: empty fields, and its splits are the request. */
    CHECK(!strcmp(f[3 * NC + 42], "error") && !strcmp(f[3 * NC + 9], "") && !strcmp(f[3 * NC + 5], "auto"));
    free(text);
}

static void test_markdown(void)
{
    fixture_t x;
    fixture(&x);
    char path[128], err[512] = "";
    tpath(path, sizeof path, "r.md");
    CHECKF(mb_report_write_md(&x.rep, path, err, sizeof err) == 0, "%s", err);
    char *text = slurp(path, NULL);
    CHECK(text && strstr(text, "# mla-bench results") && strstr(text, "NVIDIA H200"));
    CHECK(text && strstr(text, "SMs), GPU-0123abcd-0000-1111-2222-333344445555, pci 0000:1b:00\n"));
    CHECK(text && strstr(text, "2025-01-02T03:04:05Z") && strstr(text, "0.3.1") && strstr(text, "abcdef0"));
    CHECK(text && strstr(text, "configs/smoke.json") && strstr(text, "4.01 TB/s") && strstr(text, "e4m3fn"));
    CHECK(text && !strchr(text, '\033'));
    CHECK(text && strstr(text, "| graph\\|hot "));
    /* the cache settings beside the mode, where they are not the defaults */
    CHECKF(text && strstr(text, "| graph, l2 hot, icache cold ") && strstr(text, "| eager, l2 cold-clean ") && strstr(text, "| graph                      |"), "%s", text);
    CHECK(text && strstr(text, "cases: 1 pass, 1 fail, 1 error"));
    CHECKF(text && strstr(text, " 3, 9.5% |") && strstr(text, " 1 |"), "%s", text);
    /* the variants table names each case's KV layout */
    CHECK(text && strstr(text, "| flat ") && strstr(text, "| 16 contiguous |") && strstr(text, "| 64 shuffled "));
    int rows = 0, header = 0, delim = 0;
    for (char *l = text ? strtok(text, "\n") : NULL; l; l = strtok(NULL, "\n")) {
        if (!strncmp(l, "| case", 6)) header++;
        else if (!strncmp(l, "| ---", 5)) delim++;
        else if (*l == '|') rows++;
    }
    /* the main table, then the variants and stages table (the cases have stage times) */
    CHECKF(header == 2 && delim == 2 && rows == 2 * NCASES, "%d %d %d", header, delim, rows);
    free(text);
}

/* Byte offset of display column col in s (UTF-8), or NULL past the end. */
static const char *at_column(const char *s, int col)
{
    for (; *s; s++) {
        if (((unsigned char)*s & 0xC0) == 0x80) continue;
        if (col-- == 0) return s;
    }
    return NULL;
}

static int column_of(const char *s, const char *p)
{
    int col = 0;
    for (; s < p; s++) col += ((unsigned char)*s & 0xC0) != 0x80;
    return col;
}

/* The text right-aligned to end at display column end, with a blank before it. */
static int cell_ends(const char *line, int end, const char *text)
{
    int w = (int)strlen(text);
    const char *p = at_column(line, end - w);
    return p && p[-1] == ' ' && !strncmp(p, text, (size_t)w) && p[w] == ' ';
}

static void test_console_aligned(void)
{
    fixture_t x;
    fixture(&x);
    char *out = console(&x.rep, 0);
    CHECK(out && !strchr(out, '\033'));
    if (!out) return;
    char *lines[8] = {0};
    int n = 0;
    for (char *l = strtok(out, "\n"); l && n < 8; l = strtok(NULL, "\n")) lines[n++] = l;
    CHECK(n >= 2 + NCASES);
    int check = column_of(lines[0], strstr(lines[0], "check"));
    int plan = column_of(lines[0], strstr(lines[0], "plan"));
    int median_end = column_of(lines[0], strstr(lines[0], "median µs")) + 9;
    for (int i = 1; i < 2 + NCASES && i < n; i++) {
        const char *p = at_column(lines[i], check), *q = at_column(lines[i], plan);
        const char *m = at_column(lines[i], median_end);
        CHECKF(p && (i == 1 ? *p == '-' : !strncmp(p, "PASS", 4) || !strncmp(p, "FAIL", 4) ||
                     !strncmp(p, "ERROR", 5)), "line %d: %s", i, lines[i]);
        CHECKF(p && p[-1] == ' ' && p[-2] == ' ', "line %d", i);
        CHECKF(q && strchr("-bc", *q) && q[-1] == ' ', "line %d", i);
        /* Right-aligned numbers end where their title ends. */
        CHECKF(m && *m == ' ' && m[-1] != ' ', "line %d: %s", i, lines[i]);
    }
    int splits_end = column_of(lines[0], strstr(lines[0], "splits")) + 6;
    CHECK(n > 4 && cell_ends(lines[2], splits_end, "8a") && cell_ends(lines[3], splits_end, "4"));
    CHECK(n > 4 && cell_ends(lines[4], splits_end, "auto"));
    free(out);
    /* strtok cut the first copy into lines; the summary checks want it whole. */
    char *full = console(&x.rep, 0);
    CHECK(full && strstr(full, "cases: 1 pass, 1 fail, 1 error"));
    CHECK(full && strstr(full, "ERROR broken: plan: out of device memory"));
    CHECK(full && strstr(full, "NVIDIA H200") && strstr(full, "4.01 TB/s") && strstr(full, "2.06 µs"));
    CHECK(full && !strstr(full, "interrupted") && !strstr(full, " passed, "));
    CHECK(full && strstr(full, "0.3%") && strstr(full, "2.2e-03") && strstr(full, "built"));
    free(full);
}

static void test_console_color_and_interrupt(void)
{
    fixture_t x;
    fixture(&x);
    x.rep.interrupted = 1;
    x.rep.n_results = 2;
    char *out = console(&x.rep, 1);
    CHECK(out && strstr(out, "\033[32mPASS\033[0m") && strstr(out, "\033[31mFAIL\033[0m"));
    CHECK(out && strstr(out, "interrupted") && strstr(out, "cases: 1 pass, 1 fail, 0 error"));
    free(out);
}

static void test_atomic_write(void)
{
    char path[128], err[512] = "";
    tpath(path, sizeof path, "atomic.txt");
    CHECKF(mb_write_file_atomic(path, "first", 5, err, sizeof err) == 0, "%s", err);
    CHECKF(mb_write_file_atomic(path, "second", 6, err, sizeof err) == 0, "%s", err);
    size_t len = 0;
    char *text = slurp(path, &len);
    CHECK(text && len == 6 && !memcmp(text, "second", 6));
    free(text);
    CHECK(hidden_files(tdir) == 0);

    /* A directory that cannot exist: its parent is a regular file. */
    char bad[160];
    snprintf(bad, sizeof bad, "%s/sub/x.txt", path);
    err[0] = '\0';
    CHECK(mb_write_file_atomic(bad, "x", 1, err, sizeof err) == -1);
    CHECKF(strstr(err, bad) && strstr(err, "Not a directory"), "%s", err);
    CHECK(hidden_files(tdir) == 0);

    tpath(bad, sizeof bad, "dir/");
    CHECK(mb_write_file_atomic(bad, "x", 1, err, sizeof err) == -1 && strstr(err, bad));
    unlink(path);
}

/* The one writer of the tool's JSON files: the tree as text ending in one newline, readable back; an
 * allocation failure remembered while building the tree is an error naming the file, and nothing is
 * written. */
static void test_jb_write(void)
{
    char path[128], err[512] = "";
    tpath(path, sizeof path, "tree.json");
    jb_t b = {0};
    cJSON *root = cJSON_CreateObject();
    jb_put_num(&b, root, "x", 1.5);
    jb_put_str(&b, root, "name", "a");
    CHECKF(jb_write(&b, root, path, err, sizeof err) == 0, "%s", err);
    size_t len = 0;
    char *text = slurp(path, &len);
    CHECK(text && len > 2 && text[len - 1] == '\n' && text[len - 2] != '\n');
    cJSON *back = text ? cJSON_Parse(text) : NULL;
    CHECK(back && cJSON_GetObjectItem(back, "x") && cJSON_GetObjectItem(back, "x")->valuedouble == 1.5);
    cJSON_Delete(back);
    free(text);
    unlink(path);

    b.oom = 1;
    err[0] = '\0';
    CHECK(jb_write(&b, root, path, err, sizeof err) == -1);
    CHECKF(strstr(err, path) != NULL, "%s", err);
    CHECK(access(path, F_OK) != 0);
    CHECK(hidden_files(tdir) == 0);
    cJSON_Delete(root);
}

/* Renaming onto a directory fails after the temp file was written: it must be removed. */
static void test_atomic_write_rename_fails(void)
{
    char path[128], err[512] = "";
    tpath(path, sizeof path, "adir");
    CHECK(mkdir(path, 0700) == 0);
    CHECK(mb_write_file_atomic(path, "x", 1, err, sizeof err) == -1);
    CHECKF(strstr(err, path) != NULL, "%s", err);
    CHECK(hidden_files(tdir) == 0);
    rmdir(path);
}

static void test_write_all(void)
{
    fixture_t x;
    fixture(&x);
    char dir[128], path[160], sub[192], err[512] = "";
    tpath(dir, sizeof dir, "out/nested");
    CHECKF(mb_report_write_all(&x.rep, dir, "run1", err, sizeof err) == 0, "%s", err);
    static const char *const ext[3] = {"json", "md", "csv"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/run1.%s", dir, ext[i]);
        struct stat st;
        CHECKF(stat(path, &st) == 0 && st.st_size > 0, "%s", path);
        unlink(path);
    }
    CHECK(hidden_files(dir) == 0);
    rmdir(dir);
    tpath(dir, sizeof dir, "out");
    rmdir(dir);

    tpath(path, sizeof path, "plainfile");
    spit(path, "x");
    snprintf(sub, sizeof sub, "%s/sub", path);
    CHECK(mb_report_write_all(&x.rep, sub, "run1", err, sizeof err) == -1);
    CHECKF(strstr(err, sub) != NULL, "%s", err);
    CHECK(mb_report_write_all(&x.rep, path, "run1", err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strstr(err, "Not a directory"), "%s", err);
    unlink(path);
}

static int have_numpy(void)
{
    static int have = -1;
    if (have < 0) have = system("python3 -c 'import numpy' >/dev/null 2>&1") == 0;
    return have;
}

/* Loads path with numpy and runs the assertion expr on the array a. */
static int numpy_agrees(const char *path, const char *expr)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 -c 'import numpy as np, sys; a = np.load(sys.argv[1]); "
             "sys.exit(0 if (%s) else 1)' '%s'", expr, path);
    return system(cmd) == 0;
}

/* Checks the layout numpy relies on and returns the data that follows the header. */
static const unsigned char *npy_data(const unsigned char *b, size_t len, const char *dict)
{
    size_t hlen = b[8] | (size_t)b[9] << 8;
    CHECK(len >= 10 && !memcmp(b, "\x93NUMPY\x01\x00", 8));
    CHECKF((10 + hlen) % 64 == 0, "header %zu", 10 + hlen);
    CHECK(10 + hlen <= len && b[10 + hlen - 1] == '\n');
    CHECKF(!strncmp((const char *)b + 10, dict, strlen(dict)), "%.*s", (int)hlen, b + 10);
    for (size_t i = 10 + strlen(dict); i + 1 < 10 + hlen; i++) CHECK(b[i] == ' ');
    return b + 10 + hlen;
}

static void test_npy(void)
{
    char path[128], err[512] = "";
    size_t len = 0;
    const float f[6] = {0.5f, -1.25f, 3.0f, 1e-3f, 65504.0f, -0.0f};
    const int32_t k[5] = {1, -2, 300000, INT32_MIN, 7};
    const uint8_t u = 0xab;

    tpath(path, sizeof path, "a.npy");
    CHECKF(mb_npy_write(path, "<f4", (const int64_t[]){2, 3}, 2, f, err, sizeof err) == 0, "%s", err);
    unsigned char *b = (unsigned char *)slurp(path, &len);
    const unsigned char *d = npy_data(b, len, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
    CHECK(d + sizeof f == b + len && !memcmp(d, f, sizeof f));
    free(b);
    if (have_numpy())
        CHECK(numpy_agrees(path, "a.dtype == np.float32 and a.shape == (2, 3) and "
                                 "a.ravel().tolist() == [0.5, -1.25, 3.0, float(np.float32(1e-3)), 65504.0, 0.0]"));

    tpath(path, sizeof path, "b.npy");
    CHECKF(mb_npy_write(path, "<i4", (const int64_t[]){5}, 1, k, err, sizeof err) == 0, "%s", err);
    b = (unsigned char *)slurp(path, &len);
    d = npy_data(b, len, "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }");
    CHECK(d + sizeof k == b + len && !memcmp(d, k, sizeof k));
    free(b);
    if (have_numpy())
        CHECK(numpy_agrees(path, "a.dtype == np.int32 and a.tolist() == [1, -2, 300000, -2**31, 7]"));

    tpath(path, sizeof path, "c.npy");
    CHECKF(mb_npy_write(path, "|u1", NULL, 0, &u, err, sizeof err) == 0, "%s", err);
    b = (unsigned char *)slurp(path, &len);
    d = npy_data(b, len, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }");
    CHECK(d + 1 == b + len && *d == 0xab);
    free(b);
    if (have_numpy()) CHECK(numpy_agrees(path, "a.dtype == np.uint8 and a.shape == () and a == 0xab"));

    tpath(path, sizeof path, "e.npy");
    CHECKF(mb_npy_write(path, "<u2", (const int64_t[]){0, 4}, 2, NULL, err, sizeof err) == 0, "%s", err);
    b = (unsigned char *)slurp(path, &len);
    d = npy_data(b, len, "{'descr': '<u2', 'fortran_order': False, 'shape': (0, 4), }");
    CHECK(d == b + len);
    free(b);
    if (have_numpy()) CHECK(numpy_agrees(path, "a.dtype == np.uint16 and a.shape == (0, 4)"));
    CHECK(hidden_files(tdir) == 0);
}

static void test_npy_rejects(void)
{
    char path[128], err[512];
    const float f = 1.0f;
    static const char *const bad[] = {"f4", "<f", "<fx", "<f 4", "<4f", "<f123456"};
    tpath(path, sizeof path, "bad.npy");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECKF(mb_npy_write(path, bad[i], NULL, 0, &f, err, sizeof err) == -1, "%s", bad[i]);
        CHECKF(strstr(err, path) && strstr(err, "dtype"), "%s", err);
    }
    CHECK(mb_npy_write(path, "<f4", (const int64_t[]){1, 1, 1, 1, 1}, 5, &f, err, sizeof err) == -1);
    CHECK(mb_npy_write(path, "<f4", (const int64_t[]){2, -1}, 2, &f, err, sizeof err) == -1);
    CHECK(mb_npy_write(path, "<f4", (const int64_t[]){INT64_MAX, 4}, 2, &f, err, sizeof err) == -1);
    CHECK(mb_npy_write(path, "<f4", (const int64_t[]){2}, 1, NULL, err, sizeof err) == -1);
    CHECK(access(path, F_OK) != 0 && hidden_files(tdir) == 0);
}

/* The splits column: the plan's count with how it was chosen, else the request as configured (a
 * tuned case that ended before its plan once printed -1 here). */
static void test_splits_text(void)
{
    mb_case_t c = { 0 };
    mb_case_result_t cr = { 0 };
    char buf[16];
    cr.c = &c;
    cr.splits_max = 8;
    mb_splits_text(buf, sizeof buf, &cr);
    CHECKF(!strcmp(buf, "8a"), "%s", buf);
    cr.splits_how = 't';
    mb_splits_text(buf, sizeof buf, &cr);
    CHECKF(!strcmp(buf, "8t"), "%s", buf);
    cr.splits_max = 0;
    c.splits = MB_SPLITS_TUNED;
    mb_splits_text(buf, sizeof buf, &cr);
    CHECKF(!strcmp(buf, "tuned"), "%s", buf);
    cr.splits_how = 0;
    mb_splits_text(buf, sizeof buf, &cr);
    CHECKF(!strcmp(buf, "tuned"), "%s", buf);
    c.splits = 0;
    mb_splits_text(buf, sizeof buf, &cr);
    CHECKF(!strcmp(buf, "auto"), "%s", buf);
    c.splits = 4;
    mb_splits_text(buf, sizeof buf, &cr);
    CHECKF(!strcmp(buf, "4"), "%s", buf);
}

void suite_report(void)
{
    snprintf(tdir, sizeof tdir, "/tmp/mb-report-XXXXXX");
    if (!mkdtemp(tdir)) {
        perror("suite_report: mkdtemp");
        unit_failed++;
        return;
    }
    RUN(test_json_roundtrip);
    RUN(test_json_fields);
    RUN(test_json_gpu_id_optional);
    RUN(test_module_loading);
    RUN(test_json_icache);
    RUN(test_json_staged_optional);
    RUN(test_json_clock_optional);
    RUN(test_sm_mhz);
    RUN(test_throttle_note);
    RUN(test_noise_note);
    RUN(test_config_sets);
    RUN(test_json_config_not_json);
    RUN(test_jb_write);
    RUN(test_json_reader_rejects);
    RUN(test_csv);
    RUN(test_splits_text);
    RUN(test_markdown);
    RUN(test_console_aligned);
    RUN(test_console_color_and_interrupt);
    RUN(test_atomic_write);
    RUN(test_atomic_write_rename_fails);
    RUN(test_write_all);
    RUN(test_npy);
    RUN(test_npy_rejects);
    unit_remove_tree(tdir);
}
