/* SVG charts: the three kinds the reports draw (bandwidth per case, split sweep panels, regression
 * change with noise), checked for structure, escaping, ticks, counts and skipped non-finite values;
 * xmllint checks well-formedness where it is installed. Files go to a fresh directory under /tmp, or
 * to $MB_SVG_OUT (an existing directory, kept) for a look at the charts themselves. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "svg.h"

static char tdir[256];
static char *paths[16];
static int npaths;

static const char *out_path(const char *name)
{
    static char buf[16][320];
    char *p = buf[npaths % 16];
    snprintf(p, sizeof buf[0], "%s/%s", tdir, name);
    if (npaths < 16) paths[npaths++] = p;
    return p;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *b = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            char *nb = realloc(b, cap = 2 * cap + 8192);
            if (!nb) { free(b); fclose(f); return NULL; }
            b = nb;
        }
        size_t k = fread(b + len, 1, cap - len - 1, f);
        len += k;
        if (!k) break;
    }
    fclose(f);
    b[len] = '\0';
    return b;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (!strncasecmp(p, needle, n)) return 1;
    return 0;
}

/* Checks every file needs: one <svg> root, balanced groups, no non-finite number, well-formed XML. */
static char *check_doc(const char *path)
{
    char *s = slurp(path);
    CHECKF(s != NULL, "%s unreadable", path);
    if (!s) return NULL;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1])) len--;
    CHECKF(!strncmp(s, "<svg", 4), "%s starts %.20s", path, s);
    CHECKF(len >= 6 && !strncmp(s + len - 6, "</svg>", 6), "%s does not end with </svg>", path);
    CHECK(count(s, "<svg") == 1);
    CHECKF(count(s, "<g ") + count(s, "<g>") == count(s, "</g>"), "%s: %d <g> vs %d </g>", path,
           count(s, "<g ") + count(s, "<g>"), count(s, "</g>"));
    CHECKF(!contains_ci(s, "nan") && !contains_ci(s, "inf"), "%s has a non-finite number", path);
    CHECK(!strstr(s, "--"));   /* no "--1.0": a sign printed twice */
    if (system("command -v xmllint >/dev/null") == 0) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", path);
        CHECKF(system(cmd) == 0, "xmllint rejects %s", path);
    }
    return s;
}

/* Every bar of the first panel lies within its plot (the clip rectangle). */
static int bars_inside(const char *d)
{
    double px, py, pw, ph, x, y, w, h;
    const char *p = strstr(d, "<clipPath id=\"plot0\"><rect ");
    if (!p || sscanf(p, "<clipPath id=\"plot0\"><rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
                     &px, &py, &pw, &ph) != 4) return 0;
    for (p = d; (p = strstr(p, "<rect class=\"bar\" ")); p++) {
        if (sscanf(p, "<rect class=\"bar\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &x, &y, &w, &h) != 4)
            return 0;
        if (x < px - 0.05 || y < py - 0.05 || x + w > px + pw + 0.05 || y + h > py + ph + 0.05) return 0;
    }
    return 1;
}

/* (a) Effective bandwidth per case against the measured copy bandwidth. */
static void test_bandwidth_bars(void)
{
    static const char *const cases[] = {
        "b128-q4-kv8192-h16/mode=graph", "b128-q4-kv8192-h16/mode=eager", "b64-q1-kv32768-h16/mode=graph",
        "b64-q1-kv32768-h16/mode=eager", "b1-q1-kv<&>\"odd\"", "b32-q2-kv4096-h128/mode=graph",
        "b8-q1-kv131072-h16/mode=graph", "b256-q1-kv1024-h16/mode=graph"};
    enum { N = sizeof cases / sizeof *cases };
    const double tbs[N] = {3.71, 3.52, 3.94, 3.80, 0.42, 2.95, 3.99, 1.87};
    const double spread[N] = {0.04, 0.09, 0.02, 0.05, 0.03, 0.06, 0.01, 0.11};
    mb_svg_series_t s = {"effective bandwidth", NULL, tbs, N, spread, "#1f77b4", NULL, MB_SVG_BARS};
    mb_svg_hline_t copy = {4.24, "measured copy bandwidth 4.24 TB/s", 0, "#d62728"};
    mb_svg_chart_t c = {.title = "Effective bandwidth per case (H200)", .x_label = "case",
                        .y_label = "effective bandwidth (TB/s)", .categories = cases, .n_categories = N,
                        .y_from_zero = 1, .series = &s, .n_series = 1, .hlines = &copy, .n_hlines = 1};
    char err[512] = "";
    const char *path = out_path("bandwidth.svg");
    CHECKF(mb_svg_write_chart(path, &c, err, sizeof err) == 0, "%s", err);
    char *d = check_doc(path);
    if (!d) return;
    CHECK(strstr(d, "Effective bandwidth per case (H200)") != NULL);
    CHECK(strstr(d, "effective bandwidth (TB/s)") != NULL);
    CHECK(strstr(d, ">case</text>") != NULL);
    CHECK(strstr(d, "measured copy bandwidth 4.24 TB/s") != NULL);
    CHECK(strstr(d, "b128-q4-kv8192-h16/mode=graph") != NULL);
    CHECKF(strstr(d, "b1-q1-kv&lt;&amp;&gt;&quot;odd&quot;") != NULL, "escaped category missing");
    CHECK(!strstr(d, "<&>"));
    CHECKF(count(d, "class=\"bar\"") == N, "%d bars", count(d, "class=\"bar\""));
    CHECKF(count(d, "class=\"err\"") == N, "%d error bars", count(d, "class=\"err\""));
    CHECK(count(d, "class=\"hline\"") == 1);
    CHECK(bars_inside(d));
    CHECK(strstr(d, "rotate(-35)") != NULL);
    CHECK(strstr(d, ">0</text>") && strstr(d, ">5</text>"));   /* 1-2-5 ticks from zero, past 4.24 */

    /* Same input, same bytes. */
    const char *again = out_path("bandwidth-again.svg");
    CHECK(mb_svg_write_chart(again, &c, err, sizeof err) == 0);
    char *d2 = slurp(again);
    CHECK(d2 && !strcmp(d, d2));
    free(d2);
    free(d);
}

/* (b) Split sweep: one panel per shape on a log2 axis, best point marked, the auto choice as a point. */
static void test_sweep_grid(void)
{
    enum { P = 4, K = 7 };
    static const double splits[K] = {1, 2, 4, 8, 16, 32, 64};
    static const char *const shapes[P] = {"b128-q4-kv8192-h16", "b64-q1-kv32768-h16", "b8-q1-kv131072-h16",
                                          "b1-q1-kv<&>"};
    static double t[P][K], auto_x[P], auto_y[P];
    static char best_label[P][64], auto_label[P][32];
    mb_svg_series_t ser[P][2];
    mb_svg_mark_t best[P];
    mb_svg_chart_t panels[P];
    for (int p = 0; p < P; p++) {
        int bi = 0;
        for (int k = 0; k < K; k++) {
            /* Too few splits starve the GPU, too many pay for the combine. */
            t[p][k] = (180.0 + 60 * p) / splits[k] + 9.0 * (1 + p) * splits[k] / 8 + 6;
            if (t[p][k] < t[p][bi]) bi = k;
        }
        if (p == 1) t[p][K - 1] = NAN;   /* a split count that failed: skipped, never printed */
        if (p == 2) t[p][0] = INFINITY;
        int ai = bi > 0 ? bi - 1 : 1;
        auto_x[p] = splits[ai];
        auto_y[p] = t[p][ai];
        snprintf(best_label[p], sizeof best_label[p], "best: %g splits, %.1f µs", splits[bi], t[p][bi]);
        snprintf(auto_label[p], sizeof auto_label[p], "auto (%g splits)", splits[ai]);
        ser[p][0] = (mb_svg_series_t){"time per call", splits, t[p], K, NULL, NULL, NULL,
                                      MB_SVG_LINE | MB_SVG_POINTS};
        ser[p][1] = (mb_svg_series_t){auto_label[p], &auto_x[p], &auto_y[p], 1, NULL, "#ff7f0e", NULL, MB_SVG_POINTS};
        best[p] = (mb_svg_mark_t){splits[bi], t[p][bi], best_label[p]};
        panels[p] = (mb_svg_chart_t){.title = shapes[p], .x_label = "num_kv_splits",
                                     .y_label = "time per call (µs)", .x_log2 = 1, .y_from_zero = 1,
                                     .series = ser[p], .n_series = 2, .marks = &best[p], .n_marks = 1};
    }
    char err[512] = "";
    const char *path = out_path("sweep.svg");
    CHECKF(mb_svg_write_grid(path, "num_kv_splits sweep (H200)", panels, P, 2, err, sizeof err) == 0, "%s", err);
    char *d = check_doc(path);
    if (!d) return;
    CHECK(strstr(d, "num_kv_splits sweep (H200)") != NULL);
    CHECK(count(d, ">num_kv_splits</text>") == P);
    CHECK(count(d, "time per call (µs)") >= P);
    CHECK(strstr(d, "b1-q1-kv&lt;&amp;&gt;") && !strstr(d, "<&>"));
    static const char *const ticks[] = {">1</text>", ">2</text>", ">4</text>", ">8</text>", ">16</text>",
                                        ">32</text>", ">64</text>"};
    for (int k = 0; k < K; k++) CHECKF(count(d, ticks[k]) == P, "tick %s: %d", ticks[k], count(d, ticks[k]));
    CHECK(count(d, "class=\"mark\"") == P);
    CHECK(strstr(d, "best: ") != NULL);
    CHECK(count(d, "class=\"line\"") == P);
    /* 7 points a panel, less the NaN and the infinity, plus one auto point each. */
    CHECKF(count(d, "class=\"pt\"") == P * K - 2 + P, "%d points", count(d, "class=\"pt\""));
    CHECK(count(d, "clip-path=\"url(#plot") == P);
    free(d);
}

/* (c) Regression comparison: change per case with its noise, thresholds at +-5 %, verdict colours. */
static void test_regression_bars(void)
{
    static const char *const cases[] = {
        "b128-q4-kv8192-h16/mode=graph", "b128-q4-kv8192-h16/mode=eager", "b64-q1-kv32768-h16/mode=graph",
        "b64-q1-kv32768-h16/mode=eager", "b32-q2-kv4096-h128/mode=graph", "b8-q1-kv131072-h16/mode=graph",
        "b256-q1-kv1024-h16/mode=graph", "b1-q1-kv512-h16/mode=eager"};
    enum { N = sizeof cases / sizeof *cases };
    const double change[N] = {-1.2, 7.9, 0.4, -11.6, 2.1, -6.3, 4.4, 0.0};
    const double noise[N] = {0.8, 1.5, 0.6, 2.2, 3.1, 0.9, 2.7, 4.0};
    const char *const worse = "#d62728", *const better = "#2ca02c", *const same = "#9a9a9a";
    /* Higher change = slower: a regression. */
    const char *colors[N];
    for (int i = 0; i < N; i++)
        colors[i] = change[i] - noise[i] > 5 ? worse : change[i] + noise[i] < -5 ? better : same;
    mb_svg_series_t s[4] = {
        {NULL, NULL, change, N, noise, same, colors, MB_SVG_BARS},
        /* Empty series: legend entries for the verdict colours. */
        {"slower (regression)", NULL, NULL, 0, NULL, worse, NULL, MB_SVG_BARS},
        {"faster", NULL, NULL, 0, NULL, better, NULL, MB_SVG_BARS},
        {"within noise", NULL, NULL, 0, NULL, same, NULL, MB_SVG_BARS}};
    mb_svg_hline_t th[2] = {{5, "+5 % threshold", 1, "#555"}, {-5, "-5 % threshold", 1, "#555"}};
    mb_svg_chart_t c = {.title = "Change vs baseline: median time per call", .x_label = "case",
                        .y_label = "change in time (%)", .categories = cases, .n_categories = N,
                        .series = s, .n_series = 4, .hlines = th, .n_hlines = 2};
    char err[512] = "";
    const char *path = out_path("regression.svg");
    CHECKF(mb_svg_write_chart(path, &c, err, sizeof err) == 0, "%s", err);
    char *d = check_doc(path);
    if (!d) return;
    CHECK(strstr(d, "Change vs baseline: median time per call") != NULL);
    CHECK(strstr(d, "change in time (%)") != NULL);
    CHECKF(count(d, "class=\"bar\"") == N, "%d bars", count(d, "class=\"bar\""));
    CHECKF(count(d, "class=\"err\"") == N, "%d error bars", count(d, "class=\"err\""));
    CHECK(count(d, "class=\"zero\"") == 1);
    CHECK(bars_inside(d));
    CHECK(count(d, "stroke-dasharray") == 2);
    CHECK(strstr(d, "+5 % threshold") && strstr(d, "-5 % threshold"));
    CHECK(strstr(d, "slower (regression)") && strstr(d, "within noise"));
    CHECK(strstr(d, "fill=\"#d62728\"") && strstr(d, "fill=\"#2ca02c\""));
    CHECK(strstr(d, ">-10</text>") && strstr(d, ">10</text>") && strstr(d, ">0</text>"));
    free(d);
}

/* Nothing to draw, NaN-only data, a NaN reference line: still a valid document, and "no data" said. */
static void test_empty_and_nan(void)
{
    const double x[3] = {1, 2, 4}, y[3] = {NAN, NAN, NAN};
    mb_svg_series_t s[2] = {{"all missing", x, y, 3, y, NULL, NULL, MB_SVG_LINE | MB_SVG_POINTS},
                            {"empty", NULL, NULL, 0, NULL, NULL, NULL, MB_SVG_LINE}};
    mb_svg_hline_t h = {NAN, "never drawn", 0, NULL};
    mb_svg_mark_t m = {INFINITY, 3, "never drawn"};
    mb_svg_chart_t c = {.title = "empty", .x_label = "x (1)", .y_label = "y (1)", .x_log2 = 1, .series = s,
                        .n_series = 2, .hlines = &h, .n_hlines = 1, .marks = &m, .n_marks = 1};
    char err[512] = "";
    const char *path = out_path("empty.svg");
    CHECKF(mb_svg_write_chart(path, &c, err, sizeof err) == 0, "%s", err);
    char *d = check_doc(path);
    if (d) {
        CHECK(strstr(d, ">no data</text>") != NULL);
        CHECK(!strstr(d, "never drawn"));
        CHECK(!strstr(d, "class=\"pt\"") && !strstr(d, "class=\"err\""));
    }
    free(d);
    mb_svg_chart_t bare = {0};
    path = out_path("bare.svg");
    CHECKF(mb_svg_write_grid(path, NULL, &bare, 1, 0, err, sizeof err) == 0, "%s", err);
    free(check_doc(path));
    path = out_path("no-panels.svg");
    CHECKF(mb_svg_write_grid(path, "no panels", NULL, 0, 0, err, sizeof err) == 0, "%s", err);
    d = check_doc(path);
    CHECK(d && strstr(d, ">no panels</text>"));
    free(d);
}

static void test_unwritable(void)
{
    const double y[2] = {1, 2};
    mb_svg_series_t s = {NULL, NULL, y, 2, NULL, NULL, NULL, MB_SVG_BARS};
    mb_svg_chart_t c = {.title = "t", .series = &s, .n_series = 1};
    char err[512] = "";
    const char *bad = "/nonexistent-mb-svg-dir/chart.svg";
    CHECK(mb_svg_write_chart(bad, &c, err, sizeof err) == -1);
    CHECKF(strstr(err, bad) != NULL, "%s", err);
    err[0] = '\0';
    CHECK(mb_svg_write_grid(bad, "t", &c, 1, 1, err, sizeof err) == -1);
    CHECKF(strstr(err, bad) != NULL, "%s", err);
    err[0] = '\0';
    CHECK(mb_svg_write_chart(bad, NULL, err, sizeof err) == -1);
    CHECKF(strstr(err, bad) != NULL, "%s", err);
}

void suite_svg(void)
{
    const char *keep = getenv("MB_SVG_OUT");
    if (keep && *keep) snprintf(tdir, sizeof tdir, "%s", keep);
    else {
        snprintf(tdir, sizeof tdir, "/tmp/mb-svg-XXXXXX");
        if (!mkdtemp(tdir)) {
            perror("suite_svg: mkdtemp");
            unit_failed++;
            return;
        }
    }
    npaths = 0;
    RUN(test_bandwidth_bars);
    RUN(test_sweep_grid);
    RUN(test_regression_bars);
    RUN(test_empty_and_nan);
    RUN(test_unwritable);
    if (keep && *keep) return;
    for (int i = 0; i < npaths; i++) unlink(paths[i]);
    rmdir(tdir);
}
