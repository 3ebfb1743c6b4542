#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cli.h"
#include "dump.h"
#include "numeric.h"
#include "runner.h"
#include "timing.h"

/* auto: the tensor-core kernel where this GPU runs it, else the portable one. The grid is sized from
 * the chosen kernel's occupancy on this GPU. */
static int select_kernel(mb_runner_t *r)
{
    int occ = 0;
    hipError_t e;
    r->portable = mb_portable_info();
    if ((e = mb_portable_occupancy(&occ)) != hipSuccess || occ < 1)
        return mb_die(MB_EXIT_GPU, "cannot size the grid: occupancy query: %s", hipGetErrorString(e));
    r->max_ctas_portable = r->g.sm_count * occ;
#if MB_HAVE_SM90
    if (strcmp(r->kernel, "portable")) {
        int workers = 0;
        if ((e = mb_sm90_prepare(&workers)) != hipSuccess)
            return mb_die(MB_EXIT_GPU, "sm90 kernel: cannot prepare it: %s", hipGetErrorString(e));
        if (workers > 0) {
            /* ptxas picks the launch count; the budgets in kernels/sm90_unit_pc.h assume it */
            int have = 0, need = 0;
            if ((e = mb_sm90_launch_regs(&have, &need)) != hipSuccess)
                return mb_die(MB_EXIT_GPU, "sm90 kernel: cannot read its attributes: %s", hipGetErrorString(e));
            if (have < need)
                return mb_die(MB_EXIT_GPU, "sm90 kernel: this build's 64-row walker has %d registers a thread at launch, "
                              "and its setmaxnreg budgets (kernels/sm90_unit_pc.h) need %d: it would hang, so it is not run",
                              have, need);
            r->kinfo = mb_sm90_info();
            r->max_ctas = r->g.sm_count * workers;
            return 0;
        }
    }
#endif
    if (!strcmp(r->kernel, "sm90"))
        return mb_die(MB_EXIT_USAGE, "--kernel sm90 needs an NVIDIA Hopper GPU (compute capability 9.x); this is %s (%s)",
                      r->env.device, r->env.arch);
    r->kinfo = r->portable;
    r->max_ctas = r->max_ctas_portable;
    return 0;
}

int mb_runner_check_kernel(const mb_runner_t *r, const char *cmd)
{
    if (strcmp(r->kernel, "auto") && strcmp(r->kernel, "portable") && strcmp(r->kernel, "sm90"))
        return mb_die(MB_EXIT_USAGE, "%s: --kernel: expected auto, portable or sm90, got '%s'", cmd, r->kernel);
    return 0;
}

int mb_runner_open(mb_runner_t *r)
{
    char err[512];
    int rc;
    memset(&r->env, 0, sizeof r->env);
    mb_env_tool(&r->env);
    if (mb_gpu_open(&r->g, &r->env, err, sizeof err)) return mb_die(MB_EXIT_GPU, "%s", err);
    if ((rc = select_kernel(r))) return rc;
    if (mb_gpu_measure(&r->g, &r->env, err, sizeof err)) return mb_die(MB_EXIT_GPU, "%s", err);
    return 0;
}

void mb_runner_close(mb_runner_t *r)
{
    mb_plan_cache_free(&r->plans);
    if (r->tuning_loaded) mb_tuning_free(&r->tuning);
    if (r->g.stream) mb_gpu_close(&r->g);
}

int mb_runner_splits(mb_runner_t *r, const mb_case_t *c, char *how)
{
    char key[160], err[600];
    *how = c->splits == 0 ? 'a' : 0;
    if (c->splits != MB_SPLITS_TUNED) return c->splits;
    if (!r->tuning_loaded) {
        char path[512];
        if (r->tuning_path) snprintf(path, sizeof path, "%s", r->tuning_path);
        else mb_tuning_default_path(r->env.device, path, sizeof path);
        if (mb_tuning_load(path, &r->tuning, err, sizeof err)) { mb_die(MB_EXIT_USAGE, "%s", err); return -1; }
        r->tuning_loaded = 1;
    }
    mb_tuning_key(c, r->kinfo.tuning_id, key, sizeof key);
    int best = mb_tuning_best(&r->tuning, key, err, sizeof err);
    if (best < 0) { mb_die(MB_EXIT_USAGE, "%s", err); return -1; }
    if (best > 0) { *how = 't'; return best; }
    *how = 'a';
    r->tuned_misses++;
    if (!r->quiet)
        fprintf(stderr, "mla-bench: %s: \"tuned\": %s is not in %s; using \"auto\"\n", c->name, key, r->tuning.path);
    return 0;
}

/* The kernel a case runs on: the chosen one, or the portable one for bf16 Q (q_quant "none"): the sm90
 * kernel scores with fp8 wgmma only (an f16 Q would not fit beside its tiles). The table's kernel column
 * says which ran. */
static const mb_kernel_info_t *case_kernel(const mb_runner_t *r, const mb_case_t *c, int *max_ctas)
{
    int bf16_q = c->q_quant == MB_Q_NONE && !r->kinfo.reads_bf16_q;
    *max_ctas = bf16_q ? r->max_ctas_portable : r->max_ctas;
    return bf16_q ? &r->portable : &r->kinfo;
}

int mb_runner_fit(mb_runner_t *r, const mb_case_t *c, int splits)
{
    size_t free_b = 0, total_b = 0;
    char err[512];
    int max_ctas;
    const mb_kernel_info_t *k = case_kernel(r, c, &max_ctas);
    mb_plan_params_t pp = mb_case_plan_params(c, splits, k, max_ctas, r->fault);
    mb_plan_entry_t *e;
    int built;
    if (hipMemGetInfo(&free_b, &total_b) != hipSuccess) return mb_die(MB_EXIT_GPU, "cannot read free device memory");
    if (mb_plan_cache_get(&r->plans, &pp, &e, &built, err, sizeof err))
        return mb_die(MB_EXIT_USAGE, "%s: cases[%d] (%s): %s", c->file, c->index, c->name, err);
    double need = mb_ws_bytes(c, &e->plan, k) + (double)r->g.flush_bytes;
    if (need > 0.95 * (double)free_b)
        return mb_die(MB_EXIT_USAGE, "%s: cases[%d] (%s): needs %.2f GB of device memory, %.2f GB free", c->file,
                      c->index, c->name, need / 1e9, free_b / 1e9);
    return 0;
}

int mb_case_open(mb_runner_t *r, const mb_case_t *c, mb_case_state_t *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    const mb_kernel_info_t *k = case_kernel(r, c, &st->max_ctas);
    return mb_ws_create(&st->ws, c, k, &r->g, r->fault, err, errlen);
}

void mb_case_close(mb_case_state_t *st)
{
    free(st->ref);
    free(st->src);
    mb_ws_destroy(&st->ws);
}

static double case_bytes(const mb_case_t *c, const mb_plan_t *p)
{
    double rows = (double)p->total_q * c->heads;
    return (double)p->total_kv * MB_DK + rows * MB_DK * 2.0 + rows * MB_DV * 2.0;
}

static void fill_plan_fields(const mb_kernel_info_t *k, const mb_plan_t *p, mb_case_result_t *res)
{
    res->splits_max = p->splits_max;
    res->units = p->num_units;
    res->ctas = p->num_ctas;
    res->slots = p->num_slots;
    res->reduces = p->num_reduce;
    res->plan_id = p->id;
    snprintf(res->kernel, sizeof res->kernel, "%s", k->name);
}

/* The cast-free path assumes Q sits inside fp8's normal range; say so (even with --quiet, which only
 * silences progress) when this case's Q does not. */
static void warn_q_range(const mb_case_t *c, const mb_check_t *k, int64_t n_q)
{
    char msg[256];
    if (mb_q_range_advice(k->q_saturated, k->q_below_normal, n_q, c->q_quant == MB_Q_CAST, msg, sizeof msg))
        fprintf(stderr, "mla-bench: warning: %s: %s\n", c->name, msg);
}

/* Whether device memory holds one more workspace of the case beside those already held (placements). */
static int room_for_another(const mb_case_t *c, const mb_plan_t *p, const mb_kernel_info_t *k)
{
    size_t free_b = 0, total_b = 0;
    return hipMemGetInfo(&free_b, &total_b) == hipSuccess && 1.1 * mb_ws_bytes(c, p, k) + 256e6 < (double)free_b;
}

/* One call of the path on w under plan e, its output checked against the case's reference (computed
 * from the first workspace the case checks). */
static int call_and_check(mb_runner_t *r, mb_case_state_t *st, mb_ws_t *w, mb_plan_entry_t *e, mb_check_t *chk,
                          uint16_t **hout, char *err, size_t errlen)
{
    int rc;
    if ((rc = mb_ws_bind_plan(w, e, err, errlen)) || (rc = mb_path_poison(w, r->g.stream, err, errlen)) ||
        (rc = mb_path_call(w, r->g.stream, w->c->mode, NULL, err, errlen)))
        return rc;
    hipError_t ge = hipStreamSynchronize(r->g.stream);
    if (ge == hipSuccess) ge = hipGetLastError();
    if (ge != hipSuccess) {
        snprintf(err, errlen, "GPU error in the decode call: %s", hipGetErrorString(ge));
        return 4;
    }
    if (!st->ref && (rc = mb_reference(w, &r->g, &st->ref, &st->src, err, errlen))) return rc;
    return mb_check_output(w, &r->g, st->ref, st->src, chk, hout, err, errlen);
}

/* The case again on a fresh workspace, allocated while the earlier ones are held (its buffers on other
 * physical pages, its own graph executable): checked, then timed, its samples pooled with the earlier
 * placements'. A placement moved b32-q4-kv1024's graph time on the H200 between 21.4 and 24.4 us, by
 * where the driver put the executable, not the buffers (README, "How it times"); one placement a case
 * made that a coin toss per run. */
static int another_placement(mb_runner_t *r, mb_case_state_t *st, mb_plan_entry_t *e, mb_ws_t *w, mb_case_result_t *res,
                             mb_time_acc_t *acc, char *err, size_t errlen)
{
    mb_check_t chk;
    uint16_t *hout = NULL;
    int rc = mb_ws_create(w, st->ws.c, &st->ws.kinfo, &r->g, r->fault, err, errlen);
    if (!rc) rc = call_and_check(r, st, w, e, &chk, &hout, err, errlen);
    free(hout);
    if (rc) return rc;
    if (!chk.pass && res->check.pass) res->check = chk;   /* a placement that fails decides the case */
    return mb_time_placement(w, &r->g, res, acc, &mb_interrupted, err, errlen);
}

int mb_case_eval(mb_runner_t *r, mb_case_state_t *st, int splits, char how, mb_case_result_t *res,
                 char *err, size_t errlen)
{
    mb_ws_t *ws = &st->ws;
    const mb_case_t *c = ws->c;
    mb_plan_params_t pp = mb_case_plan_params(c, splits, &ws->kinfo, st->max_ctas, r->fault);
    mb_plan_entry_t *e;
    uint16_t *hout = NULL;
    int built, rc;
    res->c = c;
    res->splits_how = how;
    for (int s = 0; s < MB_NSTAGES; s++) res->stage_median_us[s] = -1.0;
    res->staged_calls = 0;
    if ((rc = mb_plan_cache_get(&r->plans, &pp, &e, &built, err, errlen))) return rc;
    if ((rc = mb_plan_upload(&r->plans, e, r->g.stream, &res->plan_built, err, errlen))) return rc;
    fill_plan_fields(&ws->kinfo, &e->plan, res);
    res->bytes = case_bytes(c, &e->plan);
    if ((rc = call_and_check(r, st, ws, e, &res->check, &hout, err, errlen))) {
        free(hout);
        return rc;
    }
    warn_q_range(c, &res->check, ws->n_q);
    if (r->dump_dir) rc = mb_dump_case(r->dump_dir, ws, hout, st->ref, st->src, err, errlen);
    free(hout);
    if (rc) return rc;
    mb_time_acc_t acc;
    mb_ws_t extra[MB_MAX_PLACEMENTS - 1];
    int held = 0;
    memset(&acc, 0, sizeof acc);
    res->samples_us = res->sm_cycles = res->sm_ns = NULL;
    res->n_samples = res->placements = 0;
    rc = mb_time_placement(ws, &r->g, res, &acc, &mb_interrupted, err, errlen);
    while (!rc && res->placements < c->placements && !mb_interrupted) {
        if (!room_for_another(c, &e->plan, &ws->kinfo)) {
            fprintf(stderr, "mla-bench: note: %s: timed on %d of %d placements (device memory)\n", c->name,
                    res->placements, c->placements);
            break;
        }
        rc = another_placement(r, st, e, &extra[held++], res, &acc, err, errlen);
    }
    while (held > 0) mb_ws_destroy(&extra[--held]);
    mb_time_finish(res, &acc);
    if (rc) return rc;
    res->tbps = res->time.median > 0 ? res->bytes / (res->time.median * 1e-6) / 1e12 : 0.0;
    res->pct_copy = r->env.copy_tbps > 0 ? 100.0 * res->tbps / r->env.copy_tbps : 0.0;
    res->status = res->check.pass ? MB_CASE_PASS : MB_CASE_FAIL;
    return 0;
}

void mb_progress(const mb_runner_t *r, int i, int n, const char *name, const char *mode, double last_us,
                 double eta_s)
{
    if (r->quiet || !isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\r\033[K[%d/%d] %s (%s)", i + 1, n, name, mode);
    if (last_us > 0) fprintf(stderr, "; last case %.2f us", last_us);
    if (eta_s > 0) fprintf(stderr, "; about %.0f s left", eta_s);
    if (i + 1 == n) fputc('\n', stderr);
}

/* --filter over every config, before the GPU is opened: a config it leaves no case is skipped (said on
 * stderr, so that a filter over a folder of configs runs what matches in each); none left at all is a
 * usage error. */
static int filter_configs(const char *pattern, mb_config_t *cfgs, int n)
{
    int total = 0;
    for (int i = 0; pattern && i < n; i++) {
        char err[512];
        int kept = mb_config_filter(&cfgs[i], pattern, err, sizeof err);
        if (kept < 0) return mb_die(MB_EXIT_USAGE, "%s", err);
        if (!kept) fprintf(stderr, "mla-bench: %s: no case matches --filter '%s'; skipped\n", cfgs[i].path, pattern);
        total += kept;
    }
    if (pattern && !total)
        return mb_die(MB_EXIT_USAGE, "--filter '%s' matches no case of the %d config%s given (names as `mla-bench check` lists them)",
                      pattern, n, n == 1 ? "" : "s");
    return 0;
}

int mb_runner_main(mb_runner_t *r, char **paths, int n, mb_per_config_fn per_config, const void *opts)
{
    int rc = 0, worst = MB_EXIT_OK;
    mb_config_t *cfgs = calloc(n > 0 ? (size_t)n : 1, sizeof *cfgs);
    if (!cfgs) return mb_die(MB_EXIT_GPU, "out of host memory");
    for (int i = 0; i < n && !rc; i++) {
        char err[512];
        if (mb_config_load_set(paths[i], r->sets.v, r->sets.n, &cfgs[i], err, sizeof err))
            rc = mb_die(MB_EXIT_USAGE, "%s", err);
    }
    if (!rc) rc = filter_configs(r->filter, cfgs, n);
    if (!rc && !(rc = mb_runner_open(r))) {
        mb_stop_catch();
        for (int i = 0; i < n && !mb_interrupted; i++) {
            if (!cfgs[i].n_cases) continue;   /* --filter left it nothing */
            int c = per_config(r, &cfgs[i], opts);
            if (c == MB_EXIT_INTERRUPTED || c > worst) worst = c;
        }
        rc = worst;
    }
    mb_runner_close(r);
    for (int i = 0; i < n; i++) mb_config_free(&cfgs[i]);
    free(cfgs);
    return rc;
}

const char *mb_stem_of(const char *path, char *buf, size_t n)
{
    const char *base = strrchr(path, '/');
    snprintf(buf, n, "%s", base ? base + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = '\0';
    return buf;
}
