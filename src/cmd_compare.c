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
    "Compares two result files case by case, matched by name, mode and cache settings (l2, icache):\n"
    "the metric's change, a noise figure (2 x the combined relative standard error), and a two-sided\n"
    "Mann-Whitney U test on the stored samples. Verdicts:\n"
    "  regressed   significantly slower (p < alpha) by more than --max-regression and by more than\n"
    "              the placements' spread (the medians of a run's placements apart, the larger of the\n"
    "              two runs'; a run without placements has none)\n"
    "  slower      significantly slower, within the threshold\n"
    "  faster      significantly faster\n"
    "  same        no significant difference, change within the threshold\n"
    "  ambiguous   fewer than 5 samples on a side, or a change beyond the threshold that the noise\n"
    "              or the placements' spread does not let us confirm\n"
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
static int parse_args(int argc, char **argv, cmp_args_t *a)
{
    const char *pct = NULL, *alpha = NULL, *metric = NULL;
    const mb_optdef_t defs[] = {
        { "--quiet", &a->quiet, NULL, NULL },
        { "--plot", &a->plot, NULL, NULL },
        { "--allow-device-mismatch", &a->o.allow_device_mismatch, NULL, NULL },
        { "--max-regression", NULL, &pct, NULL },
        { "--alpha", NULL, &alpha, NULL },
        { "--metric", NULL, &metric, NULL },
        { "--json", NULL, &a->json, NULL },
        { NULL, NULL, NULL, NULL },
    };
    int first, rc = mb_parse_opts("compare", argc, argv, defs, help, 0, &first);
    if (rc) return rc;
    if (pct && mb_compare_parse_pct(pct, &a->o.max_regression_pct))
        return mb_die(MB_EXIT_USAGE, "compare: --max-regression: expected a percentage such as 5 or 5%%, got '%s'", pct);
    if (alpha && mb_compare_parse_alpha(alpha, &a->o.alpha))
        return mb_die(MB_EXIT_USAGE, "compare: --alpha: expected a number in (0, 0.5], got '%s'", alpha);
    if (metric && strcmp(metric, "median") && strcmp(metric, "mean") && strcmp(metric, "min"))
        return mb_die(MB_EXIT_USAGE, "compare: --metric: expected median, mean or min, got '%s'", metric);
    if (metric) a->o.metric = metric;
    if (argc - first > 2) return mb_die(MB_EXIT_USAGE, "compare: expected two result files, got a third: '%s'", argv[first + 2]);
    if (argc - first < 2) { fputs(help, stderr); return MB_EXIT_USAGE; }
    a->files[0] = argv[first];
    a->files[1] = argv[first + 1];
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
