/* mla-bench compare BASELINE.json NEW.json: the regression gate between two result files. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "compare.h"
#include "plot.h"
#include "report.h"

static const char help[] =
    "usage: mla-bench compare [OPTIONS] BASELINE.json NEW.json\n"
    "Compares two result files case by case, matched by name and mode: the metric's change, a noise\n"
    "figure (2 x the combined relative standard error), and a two-sided Mann-Whitney U test on the\n"
    "stored samples. Verdicts:\n"
    "  regressed   significantly slower (p < alpha) by more than --max-regression\n"
    "  slower      significantly slower, within the threshold\n"
    "  faster      significantly faster\n"
    "  same        no significant difference, change within the threshold\n"
    "  ambiguous   fewer than 5 samples on a side, or a change beyond the threshold that the noise\n"
    "              does not let us confirm\n"
    "A case whose check did not pass in NEW is flagged check-failed. Cases only in NEW are listed as\n"
    "added, cases only in BASELINE as missing; a geometric mean row sums up the common cases.\n\n"
    "options:\n"
    "  --max-regression PCT     threshold in percent: 5 and 5% both mean 5 % (default 5%)\n"
    "  --metric NAME            median | mean | min of the stored times (default median)\n"
    "  --alpha A                significance level, in (0, 0.5] (default 0.01)\n"
    "  --allow-device-mismatch  compare results from different devices (prints a warning)\n"
    "  --json FILE              also write the comparison as JSON (schema " MB_COMPARE_SCHEMA ")\n"
    "  --plot                   with --json: also draw it, FILE.svg beside FILE.json\n"
    "  --quiet                  print only the summary line\n\n"
    "exit codes:\n"
    "  0    no case regressed, every check in NEW passed\n"
    "  1    a case's check failed in NEW (takes precedence over 3: correctness first)\n"
    "  2    usage or file error (unreadable file, wrong schema, devices differ, no common case)\n"
    "  3    at least one case regressed\n";

typedef struct cmp_args {
    mb_compare_opts_t o;
    const char *files[2], *json;
    int quiet, plot;
} cmp_args_t;

/* Returns 0, -1 after --help, or the usage exit code with the message printed. */
static int parse_value(cmp_args_t *a, const char *opt, const char *v)
{
    if (!v || !*v) return mb_die(MB_EXIT_USAGE, "compare: %s needs a value", opt);
    if (!strcmp(opt, "--max-regression") && mb_compare_parse_pct(v, &a->o.max_regression_pct))
        return mb_die(MB_EXIT_USAGE, "compare: --max-regression: expected a percentage such as 5 or 5%%, got '%s'", v);
    if (!strcmp(opt, "--alpha") && mb_compare_parse_alpha(v, &a->o.alpha))
        return mb_die(MB_EXIT_USAGE, "compare: --alpha: expected a number in (0, 0.5], got '%s'", v);
    if (!strcmp(opt, "--metric")) {
        if (strcmp(v, "median") && strcmp(v, "mean") && strcmp(v, "min"))
            return mb_die(MB_EXIT_USAGE, "compare: --metric: expected median, mean or min, got '%s'", v);
        a->o.metric = v;
    }
    if (!strcmp(opt, "--json")) a->json = v;
    return 0;
}

static int parse_args(int argc, char **argv, cmp_args_t *a)
{
    static const char *const valued[] = {"--max-regression", "--alpha", "--metric", "--json"};
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) { fputs(help, stdout); return -1; }
        if (!strcmp(argv[i], "--quiet")) { a->quiet = 1; continue; }
        if (!strcmp(argv[i], "--plot")) { a->plot = 1; continue; }
        if (!strcmp(argv[i], "--allow-device-mismatch")) { a->o.allow_device_mismatch = 1; continue; }
        if (argv[i][0] != '-') {
            if (nfiles == 2) return mb_die(MB_EXIT_USAGE, "compare: expected two result files, got a third: '%s'", argv[i]);
            a->files[nfiles++] = argv[i];
            continue;
        }
        size_t k = 0;
        const char *v = NULL;
        while (k < sizeof valued / sizeof valued[0] && !mb_opt(argc, argv, &i, valued[k], &v)) k++;
        if (k == sizeof valued / sizeof valued[0])
            return mb_die(MB_EXIT_USAGE, "compare: unknown option '%s' (see mla-bench compare --help)", argv[i]);
        int rc = parse_value(a, valued[k], v);
        if (rc) return rc;
    }
    if (nfiles < 2) { fputs(help, stderr); return MB_EXIT_USAGE; }
    if (a->plot && !a->json) return mb_die(MB_EXIT_USAGE, "compare: --plot draws the --json file: give --json FILE too");
    a->o.base_label = a->files[0];
    a->o.new_label = a->files[1];
    return 0;
}

static int compare_files(const cmp_args_t *a, mb_report_t *base, mb_report_t *neu)
{
    char err[1024];
    mb_compare_t c;
    if (mb_compare_reports(base, neu, &a->o, &c, err, sizeof err)) return mb_die(MB_EXIT_USAGE, "%s", err);
    if (c.device_mismatch)
        fprintf(stderr, "mla-bench: warning: devices differ: %s ran on \"%s\", %s on \"%s\"; compared anyway\n",
                c.base_path, c.base_device, c.new_path, c.device);
    for (int i = 0; i < 2; i++)
        if ((i ? neu : base)->interrupted)
            fprintf(stderr, "mla-bench: note: %s is from an interrupted run; its unfinished cases are not in it\n",
                    a->files[i]);
    if (a->quiet) mb_compare_summary(stdout, &c);
    else mb_compare_print(stdout, &c, isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
    fflush(stdout);
    int rc = mb_compare_exit_code(&c);
    if (a->json && mb_compare_write_json(&c, a->json, err, sizeof err)) rc = mb_die(MB_EXIT_USAGE, "%s", err);
    else if (a->plot) {
        char svg[1024];
        mb_plot_default_path(a->json, svg, sizeof svg);
        if (mb_plot_file(a->json, svg, err, sizeof err)) rc = mb_die(MB_EXIT_USAGE, "%s", err);
        else fprintf(stderr, "wrote %s\n", svg);
    }
    mb_compare_free(&c);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    cmp_args_t a;
    memset(&a, 0, sizeof a);
    mb_compare_opts_default(&a.o);
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? MB_EXIT_OK : rc;
    mb_report_t base, neu;
    char err[1024];
    if (mb_report_read_json(a.files[0], &base, err, sizeof err)) return mb_die(MB_EXIT_USAGE, "%s", err);
    if (mb_report_read_json(a.files[1], &neu, err, sizeof err)) {
        mb_report_free_read(&base);
        return mb_die(MB_EXIT_USAGE, "%s", err);
    }
    rc = compare_files(&a, &base, &neu);
    mb_report_free_read(&base);
    mb_report_free_read(&neu);
    return rc;
}
