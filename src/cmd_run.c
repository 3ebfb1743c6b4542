/* mla-bench run CONFIG...: for each case generate inputs, run the path once poisoned and check it
 * against the reference, time it, then write the tables. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cli.h"
#include "dump.h"
#include "numeric.h"
#include "report.h"
#include "timing.h"

static const char help[] =
    "usage: mla-bench run [OPTIONS] CONFIG...\n"
    "Runs every case of each config on the GPU: generates seeded inputs, runs the cast-free path\n"
    "(Q cast -> split-KV decode -> combine) on a poisoned output, checks it against a naive fp32\n"
    "reference, times it (cold L2 by default), and writes DIR/STEM.{json,md,csv} per config.\n\n"
    "options:\n"
    "  --out DIR             where the tables go (default: results)\n"
    "  --dump DIR            also write each case's tensors as .npy under DIR/CASE-MODE/\n"
    "  --kernel NAME         auto | portable | sm90 (default auto: sm90 on Hopper, else portable)\n"
    "  --quiet               no progress lines on stderr\n"
    "  --inject-fault NAME   plant a bug to prove the check catches it (tests only):\n"
    "                        drop-token | wrong-scale | split-shift\n";

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) { (void)sig; interrupted = 1; }

typedef struct run_opts {
    const char *out_dir, *dump_dir, *kernel;
    int quiet, fault;
} run_opts_t;

typedef struct run_ctx {
    run_opts_t o;
    mb_gpu_t g;
    mb_env_t env;
    mb_kernel_info_t kinfo;
    int max_ctas;
    mb_plan_cache_t plans;
} run_ctx_t;

static int parse_fault(const char *s)
{
    if (!strcmp(s, "drop-token")) return MB_FAULT_DROP_TOKEN;
    if (!strcmp(s, "wrong-scale")) return MB_FAULT_WRONG_SCALE;
    if (!strcmp(s, "split-shift")) return MB_FAULT_SPLIT_SHIFT;
    return -1;
}

static double case_bytes(const mb_case_t *c, const mb_plan_t *p)
{
    double rows = (double)p->total_q * c->heads;
    return (double)p->total_kv * MB_DK + rows * MB_DK * 2.0 + rows * MB_DV * 2.0;
}

/* Every case's plan is built (and cached) and its memory counted before anything is allocated. */
static int check_fit(run_ctx_t *x, const mb_config_t *cfg)
{
    size_t free_b = 0, total_b = 0;
    char err[512];
    if (hipMemGetInfo(&free_b, &total_b) != hipSuccess) return mb_die(MB_EXIT_GPU, "cannot read free device memory");
    for (int i = 0; i < cfg->n_cases; i++) {
        const mb_case_t *c = &cfg->cases[i];
        mb_plan_params_t pp = mb_case_plan_params(c, &x->kinfo, x->max_ctas, x->o.fault);
        mb_plan_entry_t *e;
        int built;
        if (mb_plan_cache_get(&x->plans, &pp, &e, &built, err, sizeof err))
            return mb_die(MB_EXIT_USAGE, "%s: cases[%d] (%s): %s", c->file, c->index, c->name, err);
        double need = mb_ws_bytes(c, &e->plan, &x->kinfo) + (double)x->g.flush_bytes;
        if (need > 0.95 * (double)free_b)
            return mb_die(MB_EXIT_USAGE, "%s: cases[%d] (%s): needs %.2f GB of device memory, %.2f GB free",
                          c->file, c->index, c->name, need / 1e9, free_b / 1e9);
    }
    return 0;
}

static int run_one(run_ctx_t *x, const mb_case_t *c, mb_case_result_t *r, char *err, size_t errlen)
{
    mb_plan_params_t pp = mb_case_plan_params(c, &x->kinfo, x->max_ctas, x->o.fault);
    mb_plan_entry_t *e;
    mb_ws_t ws;
    int built, rc;
    uint16_t *hout = NULL;
    float *href = NULL, *hsrc = NULL;
    if ((rc = mb_plan_cache_get(&x->plans, &pp, &e, &built, err, errlen))) return rc;
    if ((rc = mb_plan_upload(&x->plans, e, &r->plan_built, err, errlen))) return rc;
    r->splits_max = e->plan.splits_max;
    r->units = e->plan.num_units;
    r->ctas = e->plan.num_ctas;
    r->slots = e->plan.num_slots;
    r->reduces = e->plan.num_reduce;
    snprintf(r->kernel, sizeof r->kernel, "%s", x->kinfo.name);
    r->bytes = case_bytes(c, &e->plan);
    if ((rc = mb_ws_create(&ws, c, &x->kinfo, e, &x->g, x->o.fault, err, errlen))) goto out;
    if ((rc = mb_path_poison(&ws, x->g.stream, err, errlen)) ||
        (rc = mb_path_call(&ws, x->g.stream, c->mode, NULL, err, errlen)))
        goto out;
    if (hipStreamSynchronize(x->g.stream) != hipSuccess || hipGetLastError() != hipSuccess) {
        snprintf(err, errlen, "GPU error in the decode call: %s", hipGetErrorString(hipGetLastError()));
        rc = 4;
        goto out;
    }
    if ((rc = mb_check_case(&ws, &x->g, &r->check, &hout, &href, &hsrc, err, errlen))) goto out;
    if (x->o.dump_dir && (rc = mb_dump_case(x->o.dump_dir, &ws, hout, href, hsrc, err, errlen))) goto out;
    if ((rc = mb_time_case(&ws, &x->g, r, &interrupted, err, errlen))) goto out;
    r->tbps = r->time.median > 0 ? r->bytes / (r->time.median * 1e-6) / 1e12 : 0.0;
    r->pct_copy = x->env.copy_tbps > 0 ? 100.0 * r->tbps / x->env.copy_tbps : 0.0;
    r->status = r->check.pass ? MB_CASE_PASS : MB_CASE_FAIL;
out:
    free(hout);
    free(href);
    free(hsrc);
    mb_ws_destroy(&ws);
    return rc;
}

static void progress(const run_ctx_t *x, int i, int n, const mb_case_t *c)
{
    if (x->o.quiet || !isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\r\033[K[%d/%d] %s (%s)", i + 1, n, c->name, mb_mode_name(c->mode));
    if (i + 1 == n) fputc('\n', stderr);
}

static const char *stem_of(const char *path, char *buf, size_t n)
{
    const char *base = strrchr(path, '/');
    snprintf(buf, n, "%s", base ? base + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = '\0';
    return buf;
}

/* Runs one config and writes its tables. Returns the config's exit code. */
static int run_config(run_ctx_t *x, const mb_config_t *cfg)
{
    int builds0 = x->plans.builds, uploads0 = x->plans.uploads;
    int rc = check_fit(x, cfg), worst = MB_EXIT_OK, reused = 0;
    if (rc) return rc;
    mb_case_result_t *res = calloc(cfg->n_cases > 0 ? (size_t)cfg->n_cases : 1, sizeof *res);
    if (!res) return mb_die(MB_EXIT_GPU, "out of host memory");
    mb_report_t rep = { x->env, cfg, res, 0, 0 };
    for (int i = 0; i < cfg->n_cases && !interrupted; i++) {
        char err[512] = "";
        progress(x, i, cfg->n_cases, &cfg->cases[i]);
        res[i].c = &cfg->cases[i];
        for (int s = 0; s < MB_NSTAGES; s++) res[i].stage_median_us[s] = -1.0;
        rc = run_one(x, &cfg->cases[i], &res[i], err, sizeof err);
        rep.n_results = i + 1;
        reused += !res[i].plan_built;
        if (rc) {
            res[i].status = MB_CASE_ERROR;
            snprintf(res[i].error, sizeof res[i].error, "%s", err);
            worst = rc;
            if (rc == MB_EXIT_GPU) break;   /* the GPU context may be unusable after a fault */
        } else if (res[i].status == MB_CASE_FAIL && worst == MB_EXIT_OK) {
            worst = MB_EXIT_CHECK_FAILED;
        }
    }
    rep.interrupted = interrupted != 0;
    mb_report_print(stdout, &rep, isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
    printf("plans: %d built, %d uploaded, %d case%s reused a cached plan; timed calls never touch the plan\n",
           x->plans.builds - builds0, x->plans.uploads - uploads0, reused, reused == 1 ? "" : "s");
    char stem[256], err[512];
    if (mb_report_write_all(&rep, x->o.out_dir, stem_of(cfg->path, stem, sizeof stem), err, sizeof err)) {
        mb_die(MB_EXIT_GPU, "%s", err);
        if (worst == MB_EXIT_OK) worst = MB_EXIT_GPU;
    }
    for (int i = 0; i < cfg->n_cases; i++) free(res[i].samples_us);
    free(res);
    return interrupted ? MB_EXIT_INTERRUPTED : worst;
}

static int parse_args(int argc, char **argv, run_opts_t *o, int *first_cfg)
{
    *o = (run_opts_t){ "results", NULL, "auto", 0, MB_FAULT_NONE };
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--help")) { fputs(help, stdout); fputs(mb_exit_codes_help, stdout); return -1; }
        if (!strcmp(argv[i], "--quiet")) { o->quiet = 1; continue; }
        if (mb_opt(argc, argv, &i, "--out", &v)) o->out_dir = v;
        else if (mb_opt(argc, argv, &i, "--dump", &v)) o->dump_dir = v;
        else if (mb_opt(argc, argv, &i, "--kernel", &v)) o->kernel = v;
        else if (mb_opt(argc, argv, &i, "--inject-fault", &v)) {
            if (v && (o->fault = parse_fault(v)) < 0)
                return mb_die(MB_EXIT_USAGE, "run: --inject-fault: expected drop-token, wrong-scale or split-shift, got '%s'", v);
        } else return mb_die(MB_EXIT_USAGE, "run: unknown option '%s' (see mla-bench run --help)", argv[i]);
        if (!v || !*v) return mb_die(MB_EXIT_USAGE, "run: %s needs a value", argv[i - (v != NULL)]);
    }
    if (strcmp(o->kernel, "auto") && strcmp(o->kernel, "portable") && strcmp(o->kernel, "sm90"))
        return mb_die(MB_EXIT_USAGE, "run: --kernel: expected auto, portable or sm90, got '%s'", o->kernel);
    if (i >= argc) { fputs(help, stderr); return MB_EXIT_USAGE; }
    *first_cfg = i;
    return 0;
}

/* auto: the tensor-core kernel where this GPU runs it, else the portable one. The grid is sized from
 * the chosen kernel's occupancy on this GPU. */
static int select_kernel(run_ctx_t *x)
{
    int occ = 0;
    hipError_t e;
#if MB_HAVE_SM90
    if (strcmp(x->o.kernel, "portable")) {
        int workers = 0;
        if ((e = mb_sm90_prepare(&workers)) != hipSuccess)
            return mb_die(MB_EXIT_GPU, "sm90 kernel: cannot prepare it: %s", hipGetErrorString(e));
        if (workers > 0) {
            x->kinfo = mb_sm90_info();
            x->max_ctas = x->g.sm_count * workers;
            return 0;
        }
    }
#endif
    if (!strcmp(x->o.kernel, "sm90"))
        return mb_die(MB_EXIT_USAGE, "run: --kernel sm90 needs an NVIDIA Hopper GPU (compute capability 9.x); this is %s (%s)",
                      x->env.device, x->env.arch);
    x->kinfo = mb_portable_info();
    if ((e = mb_portable_occupancy(&occ)) != hipSuccess || occ < 1)
        return mb_die(MB_EXIT_GPU, "cannot size the grid: occupancy query: %s", hipGetErrorString(e));
    x->max_ctas = x->g.sm_count * occ;
    return 0;
}

static int open_gpu(run_ctx_t *x)
{
    char err[512];
    int rc;
    memset(&x->env, 0, sizeof x->env);
    mb_env_tool(&x->env);
    if (mb_gpu_open(&x->g, &x->env, err, sizeof err)) return mb_die(MB_EXIT_GPU, "%s", err);
    if ((rc = select_kernel(x))) return rc;
    if (mb_gpu_measure(&x->g, &x->env, err, sizeof err)) return mb_die(MB_EXIT_GPU, "%s", err);
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_ctx_t x;
    int first = 0, rc = 0, worst = MB_EXIT_OK;
    memset(&x, 0, sizeof x);
    if ((rc = parse_args(argc, argv, &x.o, &first))) return rc < 0 ? MB_EXIT_OK : rc;
    int n = argc - first;
    mb_config_t *cfgs = n > 0 ? calloc(n, sizeof *cfgs) : NULL;
    if (!cfgs) return mb_die(MB_EXIT_GPU, "out of host memory");
    /* Every config is validated before the GPU is touched: a typo in the last file fails in seconds. */
    for (int i = 0; i < n && !rc; i++) {
        char err[512];
        if (mb_config_load(argv[first + i], &cfgs[i], err, sizeof err)) rc = mb_die(MB_EXIT_USAGE, "%s", err);
    }
    if (!rc && !(rc = open_gpu(&x))) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sa.sa_flags = SA_RESETHAND;   /* a second Ctrl-C kills at once */
        sigaction(SIGINT, &sa, NULL);
        for (int i = 0; i < n && !interrupted; i++) {
            int r = run_config(&x, &cfgs[i]);
            if (r == MB_EXIT_INTERRUPTED || r > worst) worst = r;
        }
        rc = worst;
    }
    mb_plan_cache_free(&x.plans);
    if (x.g.stream) mb_gpu_close(&x.g);
    for (int i = 0; i < n; i++) mb_config_free(&cfgs[i]);
    free(cfgs);
    return rc;
}
