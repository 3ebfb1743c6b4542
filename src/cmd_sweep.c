/* mla-bench sweep CONFIG...: each shape at several num_kv_splits, every point checked and timed like
 * `run` (one set of inputs and one reference per shape), then the best split per shape, the speedup of
 * the best over "auto", how often "auto" lands within 3 % of the best, and the tuning file. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "report.h"
#include "runner.h"
#include "timing.h"
#include "sweep.h"

static const char help[] =
    "usage: mla-bench sweep [OPTIONS] CONFIG...\n"
    "Runs every shape of each config at several num_kv_splits (plus \"auto\"); every point is checked\n"
    "against the reference (a wrong split fails, it is not just slow) and timed as `run` times. Cases\n"
    "that differ only in num_kv_splits form one shape. Writes DIR/STEM-sweep.{json,md,csv} (per shape:\n"
    "time per split, best, speedup over auto), DIR/STEM-sweep-points.{json,md,csv} (every point, in the\n"
    "`run` schema, so `compare` reads it) and updates the tuning file that \"tuned\" reads.\n\n"
    "options:\n"
    "  --splits LIST         split counts, e.g. 1,2,4,8,16,32,64, or auto-range (powers of two up to\n"
    "                        what the longest batch can use, at most 64). Default: the config's\n"
    "                        num_kv_splits lists, else auto-range\n"
    "  --out DIR             where the tables go (default: results)\n"
    "  --tuning FILE         tuning file to update (default results/tuning/DEVICE.json)\n"
    "  --no-tuning           do not write a tuning file\n"
    "  --plot                also write DIR/STEM-sweep.svg\n"
    "  --kernel NAME         auto | portable | sm90\n"
    "  --filter REGEX        only the cases whose names match (as run --filter)\n"
    "  --set KEY=VALUE       a config key for every case (as run --set; repeatable)\n"
    "  --quiet               no progress lines on stderr\n";

typedef struct sweep_opts {
    const char *out_dir, *splits_arg;
    int no_tuning, plot, first;
} sweep_opts_t;

static int parse_splits(const char *s, int *out, int max, int *n)
{
    *n = 0;
    if (!strcmp(s, "auto-range")) return 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > MB_MAX_SPLITS || *n >= max || (*end && *end != ',')) return -1;
        out[(*n)++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return *n ? 0 : -1;
}

static int parse_args(int argc, char **argv, mb_runner_t *r, sweep_opts_t *o)
{
    r->kernel = "auto";
    const mb_optdef_t defs[] = {
        { "--quiet", &r->quiet, NULL, NULL },
        { "--no-tuning", &o->no_tuning, NULL, NULL },
        { "--plot", &o->plot, NULL, NULL },
        { "--out", NULL, &o->out_dir, NULL },
        { "--splits", NULL, &o->splits_arg, NULL },
        { "--kernel", NULL, &r->kernel, NULL },
        { "--tuning", NULL, &r->tuning_path, NULL },
        { "--filter", NULL, &r->filter, NULL },
        { "--set", NULL, NULL, &r->sets },
        { NULL, NULL, NULL, NULL },
    };
    int rc = mb_parse_opts("sweep", argc, argv, defs, help, 1, &o->first);
    if (rc) return rc;
    int tmp[MB_SWEEP_MAX_POINTS], n;
    if (o->splits_arg && parse_splits(o->splits_arg, tmp, MB_SWEEP_MAX_POINTS, &n))
        return mb_die(MB_EXIT_USAGE, "sweep: --splits: expected auto-range or a comma-separated list of integers in "
                      "[1, %d] (at most %d), got '%s'", MB_MAX_SPLITS, MB_SWEEP_MAX_POINTS, o->splits_arg);
    if ((rc = mb_runner_check_kernel(r, "sweep"))) return rc;
    if (o->first >= argc) { fputs(help, stderr); return MB_EXIT_USAGE; }
    return 0;
}

/* Runs every point of every shape; fills sw->res. Returns the worst exit code. */
static int run_points(mb_runner_t *r, mb_sweep_t *sw)
{
    int worst = MB_EXIT_OK, done = 0, rc;
    double t0 = mb_now_s();
    for (int g = 0; g < sw->n_groups && !mb_interrupted; g++) {
        mb_sweep_group_t *grp = &sw->groups[g];
        mb_case_state_t st;
        char err[512] = "";
        if ((rc = mb_case_open(r, grp->first, &st, err, sizeof err))) {
            for (int p = 0; p < grp->n_points; p++) {
                grp->res[p].status = MB_CASE_ERROR;
                snprintf(grp->res[p].error, sizeof grp->res[p].error, "%s", err);
            }
            sw->n_done = grp->point0 + grp->n_points;
            worst = rc;
            break;
        }
        for (int p = 0; p < grp->n_points && !mb_interrupted; p++, done++) {
            mb_case_result_t *res = &grp->res[p];
            mb_progress(r, done, sw->n_points, grp->points[p].name, mb_mode_name(grp->first->mode),
                        p ? grp->res[p - 1].time.median : 0.0, done ? (mb_now_s() - t0) / done * (sw->n_points - done) : 0.0);
            /* The point's case carries its own name and split request; the inputs are the shape's. */
            st.ws.c = &grp->points[p];
            rc = mb_case_eval(r, &st, grp->points[p].splits, grp->points[p].splits ? 0 : 'a', res, err, sizeof err);
            st.ws.c = grp->first;
            sw->n_done = grp->point0 + p + 1;
            if (rc) {
                res->status = MB_CASE_ERROR;
                snprintf(res->error, sizeof res->error, "%s", err);
                worst = rc;
                if (rc == MB_EXIT_GPU) { mb_case_close(&st); return worst; }
            } else if (res->status == MB_CASE_FAIL && worst == MB_EXIT_OK) {
                worst = MB_EXIT_CHECK_FAILED;
            }
        }
        mb_case_close(&st);
    }
    return mb_interrupted ? MB_EXIT_INTERRUPTED : worst;
}

static int sweep_config(mb_runner_t *r, const mb_config_t *cfg, const sweep_opts_t *o)
{
    mb_sweep_t sw;
    char err[600], stem[256], name[300];
    int list[MB_SWEEP_MAX_POINTS], n_list = 0, rc;
    if (o->splits_arg) parse_splits(o->splits_arg, list, MB_SWEEP_MAX_POINTS, &n_list);
    if (mb_sweep_build(&sw, cfg, list, n_list, r->kinfo.kv_granularity, err, sizeof err)) return mb_die(MB_EXIT_USAGE, "%s", err);
    for (int i = 0; i < sw.n_points; i++)
        if ((rc = mb_runner_fit(r, &sw.cases[i], sw.cases[i].splits))) { mb_sweep_free(&sw); return rc; }
    rc = run_points(r, &sw);
    mb_sweep_summarise(&sw);
    mb_report_t rep = { r->env, &sw.points_cfg, sw.res, sw.n_done, mb_interrupted != 0 };
    mb_sweep_print(stdout, &sw, isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
    mb_stem_of(cfg->path, stem, sizeof stem);
    snprintf(name, sizeof name, "%s-sweep-points", stem);
    int wr = mb_report_write_all(&rep, o->out_dir, name, err, sizeof err);
    snprintf(name, sizeof name, "%s-sweep", stem);
    if (!wr) wr = mb_sweep_write_all(&sw, &r->env, o->out_dir, name, o->plot, err, sizeof err);
    if (!wr && !o->no_tuning && !mb_interrupted) {
        char path[512];
        if (r->tuning_path) snprintf(path, sizeof path, "%s", r->tuning_path);
        else mb_tuning_default_path(r->env.device, path, sizeof path);
        wr = mb_sweep_update_tuning(&sw, r->kinfo.tuning_id, r->env.device, path, err, sizeof err);
    }
    if (wr) {
        mb_die(MB_EXIT_GPU, "%s", err);
        if (rc == MB_EXIT_OK) rc = MB_EXIT_GPU;
    }
    mb_sweep_free(&sw);
    return rc;
}

static int sweep_config_fn(mb_runner_t *r, const mb_config_t *cfg, const void *opts)
{
    return sweep_config(r, cfg, opts);
}

int cmd_sweep(int argc, char **argv)
{
    mb_runner_t r;
    sweep_opts_t o = { "results", NULL, 0, 0, 0 };
    int rc;
    memset(&r, 0, sizeof r);
    if ((rc = parse_args(argc, argv, &r, &o))) return rc < 0 ? MB_EXIT_OK : rc;
    return mb_runner_main(&r, argv + o.first, argc - o.first, sweep_config_fn, &o);
}
