/* mla-bench floor CONFIG...: the read-once floor of every case (floor.h), where the bar is on this GPU. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "floor.h"
#include "runner.h"
#include "stop.h"

static const char help[] =
    "usage: mla-bench floor [OPTIONS] CONFIG...\n"
    "Measures each case's read-once floor: the best time, over 27 launch shapes, of a plain kernel that\n"
    "reads the case's KV cache (its tokens x 576 bytes) once from a cold L2, timed as cases are (L2\n"
    "flushed, a spin before the start event, events around the launch). What no decode of that cache\n"
    "beats on this GPU; `run`'s TB/s column counts the same bytes plus Q and the output. Cases of as many\n"
    "bytes are measured once. Writes DIR/STEM-floor.{json,md,csv}.\n\n"
    "options:\n"
    "  --out DIR             where the tables go (default: results)\n"
    "  --filter REGEX        only the cases whose names match (as run --filter)\n"
    "  --set KEY=VALUE       a config key for every case (as run --set; repeatable)\n"
    "  --quiet               no progress lines on stderr\n";

typedef struct floor_opts {
    const char *out_dir;
    int first;
} floor_opts_t;

static int floor_config(mb_runner_t *r, const mb_config_t *cfg, const void *opts)
{
    const floor_opts_t *o = opts;
    char err[512] = "", stem[256], name[300];
    int rc = MB_EXIT_OK, n = 0;
    mb_floor_t *fl = calloc((size_t)cfg->n_cases, sizeof *fl);
    if (!fl) return mb_die(MB_EXIT_GPU, "out of host memory");
    for (int i = 0; i < cfg->n_cases && !mb_interrupted; i++, n++) {
        mb_floor_t *f = &fl[i];
        f->c = &cfg->cases[i];
        f->bytes = mb_floor_bytes(f->c);
        f->same_as = -1;
        for (int j = 0; j < i && f->same_as < 0; j++)
            if (fl[j].bytes == f->bytes && fl[j].same_as < 0) f->same_as = j;
        if (f->same_as >= 0) {
            memcpy(f->shapes, fl[f->same_as].shapes, sizeof f->shapes);
            f->best = fl[f->same_as].best;
            continue;
        }
        mb_floor_shapes(r->g.sm_count, f->shapes);
        mb_progress(r, i, cfg->n_cases, f->c->name, "floor", i ? fl[i - 1].shapes[fl[i - 1].best].median_us : 0.0, 0.0);
        if (mb_floor_measure(&r->g, f, err, sizeof err)) { rc = mb_die(MB_EXIT_GPU, "%s: %s", f->c->name, err); break; }
    }
    if (!rc && n) {
        mb_floor_print(stdout, fl, n, &r->env);
        snprintf(name, sizeof name, "%s-floor", mb_stem_of(cfg->path, stem, sizeof stem));
        if (mb_floor_write_all(fl, n, &r->env, cfg->path, o->out_dir, name, err, sizeof err))
            rc = mb_die(MB_EXIT_GPU, "%s", err);
    }
    free(fl);
    return rc ? rc : mb_interrupted ? MB_EXIT_INTERRUPTED : MB_EXIT_OK;
}

int cmd_floor(int argc, char **argv)
{
    mb_runner_t r;
    floor_opts_t o = { "results", 0 };
    memset(&r, 0, sizeof r);
    r.kernel = "auto";
    const mb_optdef_t defs[] = {
        { "--quiet", &r.quiet, NULL, NULL },
        { "--out", NULL, &o.out_dir, NULL },
        { "--filter", NULL, &r.filter, NULL },
        { "--set", NULL, NULL, &r.sets },
        { NULL, NULL, NULL, NULL },
    };
    int rc = mb_parse_opts("floor", argc, argv, defs, help, 1, &o.first);
    if (rc) return rc < 0 ? MB_EXIT_OK : rc;
    if (o.first >= argc) { fputs(help, stderr); return MB_EXIT_USAGE; }
    return mb_runner_main(&r, argv + o.first, argc - o.first, floor_config, &o);
}
