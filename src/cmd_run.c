/* mla-bench run CONFIG...: for each case generate inputs, run the path once poisoned and check it
 * against the reference, time it, then write the tables. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "compare.h"
#include "plot.h"
#include "report.h"
#include "runner.h"
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
    "  --tuning FILE         tuning file for \"num_kv_splits\": \"tuned\" (default results/tuning/DEVICE.json)\n"
    "  --filter REGEX        only the cases whose names match (POSIX extended, anywhere in the name,\n"
    "                        e.g. 'b128|mode=graph'); a config left no case is skipped\n"
    "  --set KEY=VALUE       a config key for every case, over the file's own (repeatable; VALUE is\n"
    "                        JSON or else text), e.g. --set placements=8 --set l2=hot\n"
    "  --quiet               no progress lines on stderr\n"
    "  --plot                also draw DIR/STEM.svg: effective TB/s per case against the copy bandwidth\n"
    "  --baseline FILE       then compare with a baseline result file, as `mla-bench compare` does (one\n"
    "                        config only); exit 3 on a regression\n"
    "  --max-regression PCT  with --baseline: the threshold, 5 and 5% both mean 5 % (default 5%)\n"
    "  --inject-fault NAME   plant a bug to prove the check catches it (tests only):\n"
    "                        drop-token | wrong-scale | split-shift; or a slowdown the regression gate\n"
    "                        must catch: extra-kv-pass\n";

static int parse_fault(const char *s)
{
    static const char *const names[] = { "drop-token", "wrong-scale", "split-shift", "extra-kv-pass" };
    static const int faults[] = { MB_FAULT_DROP_TOKEN, MB_FAULT_WRONG_SCALE, MB_FAULT_SPLIT_SHIFT, MB_FAULT_EXTRA_PASS };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) if (!strcmp(s, names[i])) return faults[i];
    return -1;
}

/* Runs one config and writes its tables. Returns the config's exit code. */
typedef struct run_opts {
    const char *out_dir, *baseline;
    int first;                 /* argv index of the first config */
    int plot;
    mb_compare_opts_t cmp;
} run_opts_t;

/* The regression gate in one step: the finished report against a baseline file. */
static int gate(const mb_report_t *rep, const run_opts_t *o)
{
    mb_report_t base;
    mb_compare_t c;
    char err[1024];
    mb_compare_opts_t co = o->cmp;
    co.base_label = o->baseline;
    co.new_label = "this run";
    if (mb_report_read_json(o->baseline, &base, err, sizeof err)) return mb_die(MB_EXIT_USAGE, "%s", err);
    int rc = mb_compare_reports(&base, rep, &co, &c, err, sizeof err);
    mb_report_free_read(&base);
    if (rc) return mb_die(MB_EXIT_USAGE, "%s", err);
    printf("\n");
    mb_compare_print(stdout, &c, isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
    rc = mb_compare_exit_code(&c);
    mb_compare_free(&c);
    return rc;
}

static int run_config(mb_runner_t *r, const mb_config_t *cfg, const run_opts_t *o)
{
    const char *out_dir = o->out_dir;
    int builds0 = r->plans.builds, uploads0 = r->plans.uploads, worst = MB_EXIT_OK, reused = 0, rc;
    int *splits = calloc(cfg->n_cases, sizeof(int));
    char *how = calloc(cfg->n_cases, 1);
    mb_case_result_t *res = calloc(cfg->n_cases, sizeof *res);
    if (!splits || !how || !res) { free(splits); free(how); free(res); return mb_die(MB_EXIT_GPU, "out of host memory"); }
    /* Every case's plan is built and its memory counted before anything is allocated. */
    for (int i = 0; i < cfg->n_cases; i++) {
        if ((splits[i] = mb_runner_splits(r, &cfg->cases[i], &how[i])) < 0) { worst = MB_EXIT_USAGE; goto out; }
        if ((rc = mb_runner_fit(r, &cfg->cases[i], splits[i]))) { worst = rc; goto out; }
    }
    mb_report_t rep = { r->env, cfg, res, 0, 0 };
    double t0 = mb_now_s();
    for (int i = 0; i < cfg->n_cases && !mb_interrupted; i++) {
        const mb_case_t *c = &cfg->cases[i];
        char err[512] = "";
        mb_case_state_t st;
        mb_progress(r, i, cfg->n_cases, c->name, mb_mode_name(c->mode), i ? res[i - 1].time.median : 0.0,
                    i ? (mb_now_s() - t0) / i * (cfg->n_cases - i) : 0.0);
        res[i].c = c;
        rc = mb_case_open(r, c, &st, err, sizeof err);
        if (!rc) rc = mb_case_eval(r, &st, splits[i], how[i], &res[i], err, sizeof err);
        mb_case_close(&st);
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
    rep.interrupted = mb_interrupted != 0;
    mb_report_print(stdout, &rep, isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
    printf("plans: %d built, %d uploaded, %d case%s reused a cached plan; timed calls never touch the plan\n",
           r->plans.builds - builds0, r->plans.uploads - uploads0, reused, reused == 1 ? "" : "s");
    char stem[256], err[512];
    if (mb_report_write_all(&rep, out_dir, mb_stem_of(cfg->path, stem, sizeof stem), err, sizeof err)) {
        mb_die(MB_EXIT_GPU, "%s", err);
        if (worst == MB_EXIT_OK) worst = MB_EXIT_GPU;
    }
    if (!worst && o->plot) {
        char json[1024], svg[1024];
        snprintf(json, sizeof json, "%s/%s.json", out_dir, stem);
        snprintf(svg, sizeof svg, "%s/%s.svg", out_dir, stem);
        if (mb_plot_file(json, svg, err, sizeof err)) worst = mb_die(MB_EXIT_GPU, "%s", err);
        else fprintf(stderr, "wrote %s\n", svg);
    }
    /* A check failure outranks a regression, as in `compare`; an interrupted run gates nothing. */
    if (o->baseline && !mb_interrupted && (worst == MB_EXIT_OK || worst == MB_EXIT_CHECK_FAILED)) {
        int g = gate(&rep, o);
        if (worst == MB_EXIT_OK) worst = g;
    }
    if (mb_interrupted) worst = MB_EXIT_INTERRUPTED;
out:
    for (int i = 0; i < cfg->n_cases; i++) mb_result_free_samples(&res[i]);
    free(res);
    free(splits);
    free(how);
    return worst;
}

static int parse_args(int argc, char **argv, mb_runner_t *r, run_opts_t *o)
{
    const char *max_reg = NULL, *fault = NULL;
    r->kernel = "auto";
    const mb_optdef_t defs[] = {
        { "--quiet", &r->quiet, NULL, NULL },
        { "--plot", &o->plot, NULL, NULL },
        { "--out", NULL, &o->out_dir, NULL },
        { "--baseline", NULL, &o->baseline, NULL },
        { "--max-regression", NULL, &max_reg, NULL },
        { "--dump", NULL, &r->dump_dir, NULL },
        { "--kernel", NULL, &r->kernel, NULL },
        { "--tuning", NULL, &r->tuning_path, NULL },
        { "--inject-fault", NULL, &fault, NULL },
        { "--filter", NULL, &r->filter, NULL },
        { "--set", NULL, NULL, &r->sets },
        { NULL, NULL, NULL, NULL },
    };
    int rc = mb_parse_opts("run", argc, argv, defs, help, 1, &o->first);
    if (rc) return rc;
    if (max_reg && mb_compare_parse_pct(max_reg, &o->cmp.max_regression_pct))
        return mb_die(MB_EXIT_USAGE, "run: --max-regression: expected a percentage such as 5 or 5%%, got '%s'", max_reg);
    if (fault && (r->fault = parse_fault(fault)) < 0)
        return mb_die(MB_EXIT_USAGE, "run: --inject-fault: expected drop-token, wrong-scale, split-shift or extra-kv-pass, got '%s'",
                      fault);
    if ((rc = mb_runner_check_kernel(r, "run"))) return rc;
    if (o->first >= argc) { fputs(help, stderr); return MB_EXIT_USAGE; }
    if (o->baseline && argc - o->first != 1)
        return mb_die(MB_EXIT_USAGE, "run: --baseline compares one config's results; got %d configs", argc - o->first);
    return 0;
}

static int run_config_fn(mb_runner_t *r, const mb_config_t *cfg, const void *opts)
{
    return run_config(r, cfg, opts);
}

int cmd_run(int argc, char **argv)
{
    mb_runner_t r;
    run_opts_t o;
    int rc;
    memset(&o, 0, sizeof o);
    memset(&r, 0, sizeof r);
    o.out_dir = "results";
    mb_compare_opts_default(&o.cmp);
    if ((rc = parse_args(argc, argv, &r, &o))) return rc < 0 ? MB_EXIT_OK : rc;
    return mb_runner_main(&r, argv + o.first, argc - o.first, run_config_fn, &o);
}
