/* mla-bench plot FILE.json...: SVG charts of run, sweep and compare results. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "plot.h"

static const char help[] =
    "usage: mla-bench plot [-o OUT.svg] FILE.json...\n"
    "Draws each result file as an SVG next to it (FILE.svg), or to OUT.svg for a single file:\n"
    "  run results:     effective TB/s per case against the measured copy bandwidth\n"
    "  sweep results:   time per call against num_kv_splits, one panel a shape, best and auto marked\n"
    "  compare results: change % per case with its noise band, coloured by verdict\n";

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL;
    int first, rc;
    const mb_optdef_t defs[] = { { "-o", NULL, &out, NULL }, { NULL, NULL, NULL, NULL } };
    if ((rc = mb_parse_opts("plot", argc, argv, defs, help, 1, &first))) return rc < 0 ? MB_EXIT_OK : rc;
    if (first >= argc) { fputs(help, stderr); return MB_EXIT_USAGE; }
    if (out && argc - first > 1) return mb_die(MB_EXIT_USAGE, "plot: -o takes one input file, got %d", argc - first);
    for (int i = first; i < argc; i++) {
        char path[1024], err[1200];
        if (out) snprintf(path, sizeof path, "%s", out);
        else mb_plot_default_path(argv[i], path, sizeof path);
        int r = mb_plot_file(argv[i], path, err, sizeof err);
        if (r) { mb_die(r, "%s", err); if (rc == MB_EXIT_OK) rc = r; }
        else fprintf(stderr, "wrote %s\n", path);
    }
    return rc;
}
