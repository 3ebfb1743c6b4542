/* The regression gate: the Mann-Whitney U test, verdicts on synthetic runs, the table, the compare
 * JSON round trip, and `mla-bench compare` run as a user would. Result files are written with
 * mb_report_write_json into a fresh directory under /tmp. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cJSON.h>
#include "unit.h"
#include "compare.h"
#include "jsonio.h"
#include "mwu.h"
#include "report.h"
#include "stats.h"

enum { MAXC = 8, MAXS = 64 };

static char tdir[64];

/* ---- synthetic runs ---- */

/* One case of a synthetic run: n samples of center * (1 + noise * N(0, 1)). */
typedef struct {
    const char *name;
    mb_mode_t mode;
    double center, noise;
    int n;
    uint64_t seed;
    mb_case_status_t status;
} spec_t;

typedef struct {
    mb_case_t cases[MAXC];
    mb_case_result_t res[MAXC];
    double samples[MAXC][MAXS];
    int32_t kv[MAXC];
    mb_config_t cfg;
    mb_report_t rep;
} run_t;

/* splitmix64: the test's own generator, so the samples do not depend on the C library. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *s)
{
    return ((next_u64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Box-Muller; one of the pair is enough here. */
static double normal(uint64_t *s)
{
    double u = uniform01(s), v = uniform01(s);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void fill_case(run_t *r, int i, const spec_t *sp)
{
    mb_case_t *c = &r->cases[i];
    mb_case_result_t *cr = &r->res[i];
    snprintf(c->name, sizeof c->name, "%s", sp->name);
    c->file = "configs/synthetic.json";
    c->index = i;
    c->batch = 1;
    c->q_len = 1;
    c->heads = 16;
    r->kv[i] = 1024;
    c->kv_lens = &r->kv[i];
    snprintf(c->kv_desc, sizeof c->kv_desc, "1024");
    c->mode = sp->mode;
    c->seed = sp->seed;
    c->q_std = c->kv_std = 1.0;
    cr->c = c;
    cr->status = sp->status;
    if (sp->status == MB_CASE_ERROR) snprintf(cr->error, sizeof cr->error, "synthetic error");
    snprintf(cr->kernel, sizeof cr->kernel, "sm90");
    cr->check.pass = sp->status == MB_CASE_PASS;
    uint64_t s = sp->seed;
    for (int k = 0; k < sp->n; k++) r->samples[i][k] = sp->center * (1.0 + sp->noise * normal(&s));
    cr->samples_us = sp->n ? r->samples[i] : NULL;
    cr->n_samples = sp->n;
    mb_stats_compute(r->samples[i], sp->n, &cr->time);
    cr->stop_reason = sp->n ? "max_runs" : NULL;
    for (int k = 0; k < MB_NSTAGES; k++) cr->stage_median_us[k] = -1.0;
}

static void build(run_t *r, const spec_t *specs, int n, const char *device)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < n && i < MAXC; i++) fill_case(r, i, &specs[i]);
    r->cfg = (mb_config_t){NULL, NULL, r->cases, n, NULL};
    snprintf(r->rep.env.tool_version, sizeof r->rep.env.tool_version, "0.1.0");
    snprintf(r->rep.env.device, sizeof r->rep.env.device, "%s", device);
    snprintf(r->rep.env.arch, sizeof r->rep.env.arch, "sm_90");
    r->rep.config = &r->cfg;
    r->rep.results = r->res;
    r->rep.n_results = n;
}

/* Baseline and new run of one case each; the comparison goes to out. */
static int compare_one(const spec_t *old, const spec_t *neu, double thr, mb_compare_t *out)
{
    static run_t a, b;
    build(&a, old, 1, "NVIDIA H200");
    build(&b, neu, 1, "NVIDIA H200");
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    o.max_regression_pct = thr;
    char err[512] = "";
    int rc = mb_compare_reports(&a.rep, &b.rep, &o, out, err, sizeof err);
    CHECKF(rc == 0, "%s", err);
    return rc;
}

static int same_double(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static char *capture(const mb_compare_t *c, int color)
{
    FILE *f = tmpfile();
    if (f) mb_compare_print(f, c, color);
    return unit_read_back(f);
}

/* ---- Mann-Whitney U ---- */

static void test_mwu_known_values(void)
{
    /* Textbook example with ties, by hand: A = {3,4,2,6,2,5}, B = {9,7,5,10,6,8}. Pooled ranks:
     * 2,2 -> 1.5 each; 3 -> 3; 4 -> 4; 5,5 -> 5.5; 6,6 -> 7.5; 7..10 -> 9..12. R_A = 1.5+1.5+3+4+5.5
     * +7.5 = 23, U_A = 23 - 6*7/2 = 2, mu = 6*6/2 = 18. Three tie pairs: sum(t^3 - t) = 18, so
     * var = 36/12 * (13 - 18/(12*11)) = 38.590909..., z = (|2 - 18| - 0.5) / sqrt(var) = 2.4951071,
     * p = erfc(z / sqrt 2) = 0.0125919115 (scipy's mannwhitneyu, asymptotic, gives the same). */
    const double a[] = {3, 4, 2, 6, 2, 5}, b[] = {9, 7, 5, 10, 6, 8};
    double p = mb_mwu_p(a, 6, b, 6);
    CHECKF(fabs(p - 0.012591911490379715) < 1e-9, "p = %.17g", p);
    /* No ties: {1..5} vs {6..10}: U = 0, var = 25 * 11 / 12, z = 12 / sqrt(var) = 2.5067182,
     * p = 0.0121857804. */
    const double c[] = {1, 2, 3, 4, 5}, d[] = {6, 7, 8, 9, 10};
    p = mb_mwu_p(c, 5, d, 5);
    CHECKF(fabs(p - 0.012185780355344818) < 1e-9, "p = %.17g", p);
}

static void test_mwu_extremes(void)
{
    double a[20], b[20], eq[20];
    uint64_t s = 7;
    for (int i = 0; i < 20; i++) {
        a[i] = 10.0 + uniform01(&s);
        b[i] = 12.0 + uniform01(&s);
        eq[i] = 3.25;
    }
    CHECKF(fabs(mb_mwu_p(a, 20, a, 20) - 1.0) < 1e-12, "identical: %g", mb_mwu_p(a, 20, a, 20));
    double sep = mb_mwu_p(a, 20, b, 20);
    CHECKF(sep < 1e-6 && sep > 0.0, "separated: %g", sep);
    CHECK(mb_mwu_p(eq, 20, eq, 10) == 1.0);
    CHECK(mb_mwu_p(a, 1, b, 20) == 1.0 && mb_mwu_p(a, 20, b, 1) == 1.0 && mb_mwu_p(a, 0, b, 0) == 1.0);
    /* A null sample (NaN) is left out rather than ranked. */
    double an[21];
    memcpy(an, a, sizeof a);
    an[20] = NAN;
    CHECK(mb_mwu_p(an, 21, b, 20) == sep);
}

static void test_mwu_symmetric(void)
{
    uint64_t s = 99;
    for (int trial = 0; trial < 20; trial++) {
        double a[30], b[17];
        for (int i = 0; i < 30; i++) a[i] = floor(10.0 * uniform01(&s));      /* many ties */
        for (int i = 0; i < 17; i++) b[i] = floor(10.0 * uniform01(&s)) + 0.5 * (trial % 3);
        double p1 = mb_mwu_p(a, 30, b, 17), p2 = mb_mwu_p(b, 17, a, 30);
        CHECKF(p1 == p2 && p1 > 0.0 && p1 <= 1.0, "trial %d: %g vs %g", trial, p1, p2);
    }
}

/* ---- verdicts ---- */

static void test_verdict_rules(void)
{
    CHECK(mb_compare_verdict(50.0, 1e-9, 4, 30, 5.0, 0.01, NAN) == MB_V_AMBIGUOUS);
    CHECK(mb_compare_verdict(50.0, 1e-9, 30, 4, 5.0, 0.01, NAN) == MB_V_AMBIGUOUS);
    CHECK(mb_compare_verdict(4.9, 0.5, 5, 5, 5.0, 0.01, NAN) == MB_V_SAME);
    CHECK(mb_compare_verdict(-5.0, 0.01, 5, 5, 5.0, 0.01, NAN) == MB_V_SAME);
    CHECK(mb_compare_verdict(-6.0, 0.5, 5, 5, 5.0, 0.01, NAN) == MB_V_AMBIGUOUS);
    CHECK(mb_compare_verdict(5.1, 0.009, 5, 5, 5.0, 0.01, NAN) == MB_V_REGRESSED);
    CHECK(mb_compare_verdict(5.0, 0.009, 5, 5, 5.0, 0.01, NAN) == MB_V_SLOWER);
    CHECK(mb_compare_verdict(0.0, 0.009, 5, 5, 5.0, 0.01, NAN) == MB_V_FASTER);
    CHECK(mb_compare_verdict(-30.0, 0.009, 5, 5, 5.0, 0.01, NAN) == MB_V_FASTER);
    CHECK(mb_compare_verdict(NAN, 0.001, 5, 5, 5.0, 0.01, NAN) == MB_V_AMBIGUOUS);
    /* Past the threshold, a slowdown must also exceed the placements' spread to be a regression. */
    CHECK(mb_compare_verdict(6.0, 1e-6, 30, 30, 5.0, 0.01, 8.8) == MB_V_AMBIGUOUS);
    CHECK(mb_compare_verdict(8.8, 1e-6, 30, 30, 5.0, 0.01, 8.8) == MB_V_AMBIGUOUS);
    CHECK(mb_compare_verdict(9.0, 1e-6, 30, 30, 5.0, 0.01, 8.8) == MB_V_REGRESSED);
    CHECK(mb_compare_verdict(6.0, 1e-6, 30, 30, 5.0, 0.01, 0.5) == MB_V_REGRESSED);
    CHECK(mb_compare_verdict(3.0, 1e-6, 30, 30, 5.0, 0.01, 8.8) == MB_V_SLOWER);
    CHECK(mb_compare_verdict(-9.0, 1e-6, 30, 30, 5.0, 0.01, 8.8) == MB_V_FASTER);
    CHECK(!strcmp(mb_verdict_name(MB_V_REGRESSED), "regressed") && !strcmp(mb_verdict_name(MB_V_SAME), "same"));
    CHECK(!strcmp(mb_verdict_name(MB_V_AMBIGUOUS), "ambiguous") && !strcmp(mb_verdict_name(MB_V_FASTER), "faster"));
}

/* Two runs of one distribution. At alpha 0.01 about one pair in a hundred is called slower or faster
 * by chance; none may ever be called regressed, since 0.5 % noise never moves 30 samples by 5 %. */
static void test_aa_same(void)
{
    spec_t o = {"b4", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS};
    spec_t n = o;
    n.seed = 3;
    mb_compare_t c;
    if (compare_one(&o, &n, 5.0, &c)) return;
    CHECKF(c.n_rows == 1 && c.rows[0].verdict == MB_V_SAME, "%s p %g change %g",
           mb_verdict_name(c.rows[0].verdict), c.rows[0].p, c.rows[0].change_pct);
    CHECK(c.rows[0].p >= 0.01 && fabs(c.rows[0].change_pct) < 1.0);
    CHECK(c.n_same == 1 && mb_compare_exit_code(&c) == 0);
    mb_compare_free(&c);
    int called = 0, regressed = 0, nonzero_exit = 0;
    for (int k = 0; k < 300; k++) {
        o.seed = 1000 + 2 * (uint64_t)k;
        n.seed = o.seed + 1;
        if (compare_one(&o, &n, 5.0, &c)) return;
        called += c.rows[0].verdict != MB_V_SAME;
        regressed += c.rows[0].verdict == MB_V_REGRESSED;
        nonzero_exit += mb_compare_exit_code(&c) != 0;
        mb_compare_free(&c);
    }
    CHECKF(called <= 9 && regressed == 0 && nonzero_exit == 0, "called %d regressed %d", called, regressed);
}

static void test_regressed(void)
{
    spec_t o = {"b4", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS};
    spec_t n = {"b4", MB_MODE_GRAPH, 44.0, 0.005, 30, 2, MB_CASE_PASS};
    mb_compare_t c;
    if (compare_one(&o, &n, 5.0, &c)) return;
    const mb_cmp_row_t *r = &c.rows[0];
    CHECKF(r->verdict == MB_V_REGRESSED, "%s", mb_verdict_name(r->verdict));
    CHECKF(fabs(r->change_pct - 10.0) < 1.0 && r->p < 1e-6, "change %g p %g", r->change_pct, r->p);
    CHECK(r->n_old == 30 && r->n_new == 30 && !r->check_failed);
    CHECK(c.n_regressed == 1 && mb_compare_exit_code(&c) == 3);
    mb_compare_free(&c);
}

static void test_slower_within_threshold(void)
{
    spec_t o = {"b4", MB_MODE_EAGER, 40.0, 0.002, 30, 3, MB_CASE_PASS};
    spec_t n = {"b4", MB_MODE_EAGER, 40.8, 0.002, 30, 4, MB_CASE_PASS};
    mb_compare_t c;
    if (compare_one(&o, &n, 5.0, &c)) return;
    CHECKF(c.rows[0].verdict == MB_V_SLOWER, "%s", mb_verdict_name(c.rows[0].verdict));
    CHECK(c.n_slower == 1 && mb_compare_exit_code(&c) == 0);
    mb_compare_free(&c);
    /* The same runs under a 1 % threshold are a regression. */
    if (compare_one(&o, &n, 1.0, &c)) return;
    CHECK(c.rows[0].verdict == MB_V_REGRESSED && mb_compare_exit_code(&c) == 3);
    mb_compare_free(&c);
}

static void test_ambiguous(void)
{
    /* A 20 % change under 30 % noise: beyond the threshold, but not something 8 samples confirm. */
    spec_t o = {"noisy", MB_MODE_GRAPH, 40.0, 0.30, 8, 5, MB_CASE_PASS};
    spec_t n = {"noisy", MB_MODE_GRAPH, 48.0, 0.30, 8, 6, MB_CASE_PASS};
    mb_compare_t c;
    if (compare_one(&o, &n, 5.0, &c)) return;
    const mb_cmp_row_t *r = &c.rows[0];
    CHECKF(r->verdict == MB_V_AMBIGUOUS && r->p >= 0.01 && fabs(r->change_pct) > 5.0, "%s p %g change %g",
           mb_verdict_name(r->verdict), r->p, r->change_pct);
    CHECKF(r->noise_pct > 20.0, "noise %g", r->noise_pct);
    CHECK(c.n_ambiguous == 1 && mb_compare_exit_code(&c) == 0);
    mb_compare_free(&c);

    /* Three samples a side: too few to call even a 50 % jump with no noise at all. */
    spec_t o3 = {"few", MB_MODE_GRAPH, 40.0, 0.0, 3, 1, MB_CASE_PASS};
    spec_t n3 = {"few", MB_MODE_GRAPH, 60.0, 0.0, 3, 2, MB_CASE_PASS};
    if (compare_one(&o3, &n3, 5.0, &c)) return;
    CHECK(c.rows[0].verdict == MB_V_AMBIGUOUS && c.rows[0].n_old == 3 && mb_compare_exit_code(&c) == 0);
    CHECK(fabs(c.rows[0].change_pct - 50.0) < 1e-9);
    mb_compare_free(&c);
}

static void test_faster(void)
{
    spec_t o = {"b4", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS};
    spec_t n = {"b4", MB_MODE_GRAPH, 36.0, 0.005, 30, 2, MB_CASE_PASS};
    mb_compare_t c;
    if (compare_one(&o, &n, 5.0, &c)) return;
    CHECKF(c.rows[0].verdict == MB_V_FASTER && c.rows[0].change_pct < -8.0, "%s %g",
           mb_verdict_name(c.rows[0].verdict), c.rows[0].change_pct);
    CHECK(c.n_faster == 1 && mb_compare_exit_code(&c) == 0);
    mb_compare_free(&c);
}

static void test_noise_figure(void)
{
    spec_t o = {"b4", MB_MODE_GRAPH, 40.0, 0.01, 20, 1, MB_CASE_PASS};
    spec_t n = {"b4", MB_MODE_GRAPH, 40.0, 0.02, 20, 2, MB_CASE_PASS};
    mb_compare_t c;
    if (compare_one(&o, &n, 5.0, &c)) return;
    static run_t a, b;
    build(&a, &o, 1, "x");
    build(&b, &n, 1, "x");
    double ro = a.res[0].time.rse, rn = b.res[0].time.rse;
    CHECK(ro > 0 && rn > ro);
    CHECKF(fabs(c.rows[0].noise_pct - 200.0 * sqrt(ro * ro + rn * rn)) < 1e-12, "%g", c.rows[0].noise_pct);
    mb_compare_free(&c);
}

/* One case regressed, another's check failed in NEW: correctness first, so 1, not 3. */
static void test_check_failed_wins(void)
{
    static run_t a, b;
    spec_t base[2] = {{"slow", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS},
                      {"broken", MB_MODE_GRAPH, 40.0, 0.005, 30, 3, MB_CASE_PASS}};
    spec_t neu[3] = {{"slow", MB_MODE_GRAPH, 48.0, 0.005, 30, 2, MB_CASE_PASS},
                     {"broken", MB_MODE_GRAPH, 40.0, 0.005, 30, 4, MB_CASE_FAIL},
                     {"error", MB_MODE_GRAPH, 0.0, 0.0, 0, 5, MB_CASE_ERROR}};
    build(&a, base, 2, "d");
    build(&b, neu, 2, "d");
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    mb_compare_t c;
    char err[512] = "";
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(c.n_regressed == 1 && c.n_check_failed == 1 && mb_compare_exit_code(&c) == 1);
    CHECK(!c.rows[0].check_failed && c.rows[1].check_failed && c.rows[1].verdict == MB_V_SAME);
    char *text = capture(&c, 0);
    CHECKF(text && strstr(text, "same, check-failed") && strstr(text, "; 1 check failure\n"), "%s", text);
    free(text);
    mb_compare_free(&c);

    /* An added case that failed counts too, and a case with no samples shows just the flag. */
    build(&b, neu, 3, "d");
    spec_t base3[3] = {base[0], base[1], {"error", MB_MODE_GRAPH, 40.0, 0.005, 30, 6, MB_CASE_PASS}};
    build(&a, base3, 2, "d");
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(c.n_added == 1 && c.added[0].check_failed && c.n_check_failed == 2 && mb_compare_exit_code(&c) == 1);
    mb_compare_free(&c);
    build(&a, base3, 3, "d");
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(c.n_rows == 3 && c.rows[2].check_failed && c.rows[2].verdict == MB_V_AMBIGUOUS);
    CHECK(isnan(c.rows[2].change_pct) && c.rows[2].n_new == 0 && c.rows[2].p == 1.0);
    text = capture(&c, 0);
    CHECKF(text && strstr(text, "  check-failed\n") && !strstr(text, "ambiguous, check-failed"), "%s", text);
    free(text);
    mb_compare_free(&c);
}

static void test_added_missing(void)
{
    static run_t a, b;
    spec_t base[3] = {{"kept", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS},
                      {"kept", MB_MODE_EAGER, 50.0, 0.005, 30, 2, MB_CASE_PASS},
                      {"gone", MB_MODE_GRAPH, 40.0, 0.005, 30, 3, MB_CASE_PASS}};
    spec_t neu[3] = {{"new-one", MB_MODE_EAGER, 40.0, 0.005, 30, 4, MB_CASE_PASS},
                     {"kept", MB_MODE_EAGER, 50.0, 0.005, 30, 5, MB_CASE_PASS},
                     {"kept", MB_MODE_GRAPH, 40.0, 0.005, 30, 6, MB_CASE_PASS}};
    build(&a, base, 3, "d");
    build(&b, neu, 3, "d");
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    o.base_label = "old.json";
    o.new_label = "new.json";
    mb_compare_t c;
    char err[512] = "";
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(c.n_rows == 2 && c.n_added == 1 && c.n_missing == 1);
    /* Matched by name and mode, in NEW's order. */
    CHECK(!strcmp(c.rows[0].name, "kept") && !strcmp(c.rows[0].mode, "eager"));
    CHECK(fabs(c.rows[0].old_v - 50.0) < 1.0 && fabs(c.rows[1].old_v - 40.0) < 1.0);
    CHECK(!strcmp(c.rows[1].mode, "graph"));
    CHECK(!strcmp(c.added[0].name, "new-one") && !strcmp(c.added[0].mode, "eager"));
    CHECK(!strcmp(c.missing[0].name, "gone") && !strcmp(c.missing[0].mode, "graph"));
    CHECK(mb_compare_exit_code(&c) == 0);
    char *text = capture(&c, 0);
    CHECKF(text && strstr(text, "added (only in new.json): new-one (eager)\n"), "%s", text);
    CHECK(text && strstr(text, "missing (only in old.json): gone (graph)\n"));
    CHECK(text && strstr(text, "; 1 added, 1 missing\n"));
    free(text);
    mb_compare_free(&c);
}

static void test_geomean(void)
{
    static run_t a, b;
    spec_t base[3] = {{"x", MB_MODE_GRAPH, 10.0, 0.01, 30, 1, MB_CASE_PASS},
                      {"y", MB_MODE_GRAPH, 10.0, 0.01, 30, 2, MB_CASE_PASS},
                      {"z", MB_MODE_GRAPH, 10.0, 0.01, 30, 3, MB_CASE_PASS}};
    spec_t neu[3] = {base[0], base[1], base[2]};
    build(&a, base, 3, "d");
    build(&b, neu, 3, "d");
    /* Ratios 2, 4 and 1/1: the geomean is cbrt(8) = 2, a +100 % change; the mean of the changes
     * (+100 %, +300 %, 0 %) would say +133 %. */
    const double olds[3] = {10.0, 5.0, 7.0}, news[3] = {20.0, 20.0, 7.0};
    for (int i = 0; i < 3; i++) {
        a.res[i].time.median = olds[i];
        b.res[i].time.median = news[i];
    }
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    mb_compare_t c;
    char err[512] = "";
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECKF(fabs(c.geomean_change_pct - 100.0) < 1e-9, "%.17g", c.geomean_change_pct);
    CHECK(fabs(c.rows[1].change_pct - 300.0) < 1e-9 && c.rows[2].change_pct == 0.0);
    char *text = capture(&c, 0);
    CHECKF(text && strstr(text, "geomean") && strstr(text, "+100.00"), "%s", text);
    free(text);
    mb_compare_free(&c);
}

static void test_metric_choice(void)
{
    spec_t o = {"m", MB_MODE_GRAPH, 10.0, 0.01, 30, 1, MB_CASE_PASS};
    spec_t n = o;
    n.seed = 2;
    static run_t a, b;
    build(&a, &o, 1, "d");
    build(&b, &n, 1, "d");
    a.res[0].time = (mb_stats_t){30, 10.0, 10.0, 9.0, 12.0, 0.1, 0.001};
    b.res[0].time = (mb_stats_t){30, 10.0, 11.0, 9.9, 12.0, 0.1, 0.001};
    static const struct { const char *metric; double old_v, new_v, change; } want[] = {
        {"median", 10.0, 10.0, 0.0}, {"mean", 10.0, 11.0, 10.0}, {"min", 9.0, 9.9, 10.0}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        mb_compare_opts_t opt;
        mb_compare_opts_default(&opt);
        opt.metric = want[k].metric;
        mb_compare_t c;
        char err[512] = "";
        CHECKF(mb_compare_reports(&a.rep, &b.rep, &opt, &c, err, sizeof err) == 0, "%s", err);
        CHECK(c.rows[0].old_v == want[k].old_v && c.rows[0].new_v == want[k].new_v);
        CHECKF(fabs(c.rows[0].change_pct - want[k].change) < 1e-9, "%s: %g", want[k].metric, c.rows[0].change_pct);
        CHECK(!strcmp(c.metric, want[k].metric));
        mb_compare_free(&c);
    }
    mb_compare_opts_t bad;
    mb_compare_opts_default(&bad);
    bad.metric = "p99";
    mb_compare_t c;
    char err[512] = "";
    CHECK(mb_compare_reports(&a.rep, &b.rep, &bad, &c, err, sizeof err) == -1 && strstr(err, "p99"));
}

static void test_refusals(void)
{
    static run_t a, b;
    spec_t s = {"x", MB_MODE_GRAPH, 10.0, 0.01, 30, 1, MB_CASE_PASS};
    spec_t t = {"y", MB_MODE_GRAPH, 10.0, 0.01, 30, 1, MB_CASE_PASS};
    build(&a, &s, 1, "NVIDIA H200");
    build(&b, &s, 1, "AMD Instinct MI300X");
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    o.base_label = "a.json";
    o.new_label = "b.json";
    mb_compare_t c;
    char err[512] = "";
    CHECK(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == -1);
    CHECKF(strstr(err, "b.json") && strstr(err, "MI300X") && strstr(err, "H200"), "%s", err);
    o.allow_device_mismatch = 1;
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(c.device_mismatch && !strcmp(c.base_device, "NVIDIA H200"));
    mb_compare_free(&c);

    build(&b, &t, 1, "NVIDIA H200");
    CHECK(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == -1);
    CHECKF(strstr(err, "a.json and b.json have no case in common"), "%s", err);
    /* Same name, other mode: not the same case. */
    t.name = "x";
    t.mode = MB_MODE_EAGER;
    build(&b, &t, 1, "NVIDIA H200");
    CHECK(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == -1);
    /* Same name and mode, another L2 setting: two measurements, not a change. */
    t.mode = MB_MODE_GRAPH;
    build(&b, &t, 1, "NVIDIA H200");
    b.cases[0].l2 = MB_L2_COLD_CLEAN;
    CHECK(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == -1);
    CHECKF(strstr(err, "name, mode and cache settings"), "%s", err);
    b.cases[0].l2 = a.cases[0].l2;
    /* ... nor with the instruction caches emptied: the code's fetch is then inside the time */
    b.cases[0].icache = MB_ICACHE_COLD;
    CHECK(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == -1);
    b.cases[0].icache = a.cases[0].icache;
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    mb_compare_free(&c);

    mb_compare_opts_default(&o);
    o.alpha = 0.6;
    CHECK(mb_compare_reports(&a.rep, &a.rep, &o, &c, err, sizeof err) == -1 && strstr(err, "alpha"));
    mb_compare_opts_default(&o);
    o.max_regression_pct = -1;
    CHECK(mb_compare_reports(&a.rep, &a.rep, &o, &c, err, sizeof err) == -1);
}

static void test_parse_options(void)
{
    double v = -1;
    CHECK(mb_compare_parse_pct("5%", &v) == 0 && v == 5.0);
    CHECK(mb_compare_parse_pct("5", &v) == 0 && v == 5.0);
    CHECK(mb_compare_parse_pct("0.05", &v) == 0 && v == 0.05);
    CHECK(mb_compare_parse_pct("2.5%", &v) == 0 && v == 2.5);
    CHECK(mb_compare_parse_pct(".5", &v) == 0 && v == 0.5);
    static const char *const bad_pct[] = {"5x", "", "%", "-5", "5e1", " 5", "5%%", "0x5", "inf", "nan", "1.2.3", "5 %"};
    for (size_t i = 0; i < sizeof bad_pct / sizeof bad_pct[0]; i++)
        CHECKF(mb_compare_parse_pct(bad_pct[i], &v) == -1, "'%s'", bad_pct[i]);
    CHECK(mb_compare_parse_alpha("0.01", &v) == 0 && v == 0.01);
    CHECK(mb_compare_parse_alpha("0.5", &v) == 0 && v == 0.5);
    static const char *const bad_alpha[] = {"0", "0.0", "0.6", "1", "-0.01", "1e-3", "", "0.01%"};
    for (size_t i = 0; i < sizeof bad_alpha / sizeof bad_alpha[0]; i++)
        CHECKF(mb_compare_parse_alpha(bad_alpha[i], &v) == -1, "'%s'", bad_alpha[i]);
}

/* Display column of the first occurrence of needle in line, or -1. */
static int column_of(const char *line, const char *needle)
{
    const char *p = strstr(line, needle);
    if (!p) return -1;
    int col = 0;
    for (const char *s = line; s < p; s++) col += ((unsigned char)*s & 0xC0) != 0x80;
    return col;
}

/* Two runs whose env field (the one `field` returns) differs: compared, with the note `note`; none
 * (no `word` in the text) when either is unknown (files from before the field was recorded) or both
 * are the same. */
static void check_env_note(char *(*field)(mb_env_t *), int (*differs)(const mb_compare_t *), const char *base_v,
                           const char *new_v, const char *note, const char *word)
{
    static run_t a, b;
    spec_t s = {"x", MB_MODE_GRAPH, 10.0, 0.01, 30, 1, MB_CASE_PASS};
    build(&a, &s, 1, "NVIDIA H200");
    build(&b, &s, 1, "NVIDIA H200");
    snprintf(field(&a.rep.env), 96, "%s", base_v);
    snprintf(field(&b.rep.env), 96, "%s", new_v);
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    mb_compare_t c;
    char err[512] = "";
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(differs(&c) && !c.device_mismatch);
    char *text = capture(&c, 0);
    CHECKF(text && strstr(text, note), "%s", text ? text : "");
    free(text);
    mb_compare_free(&c);
    const char *other[] = {base_v, ""};
    for (int k = 0; k < 2; k++) {
        snprintf(field(&b.rep.env), 96, "%s", other[k]);
        CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
        text = capture(&c, 0);
        CHECK(!differs(&c) && text && !strstr(text, word));
        free(text);
        mb_compare_free(&c);
    }
}

_Static_assert(sizeof ((mb_env_t *)0)->gpu_id == 96 && sizeof ((mb_env_t *)0)->module_loading == 96,
               "check_env_note writes 96 bytes at most");
static char *gpu_id_of(mb_env_t *e) { return e->gpu_id; }
static int gpus_differ(const mb_compare_t *c) { return c->gpu_differs && !strcmp(c->base_gpu_id, "GPU-aaaa, pci 0000:1b:00"); }
static char *loading_of(mb_env_t *e) { return e->module_loading; }
static int loading_differs(const mb_compare_t *c)
{
    return c->module_loading_differs && !strcmp(c->base_module_loading, "CUDA_MODULE_LOADING unset");
}

/* Two GPUs of one model. */
static void test_two_gpus(void)
{
    check_env_note(gpu_id_of, gpus_differ, "GPU-aaaa, pci 0000:1b:00", "GPU-bbbb, pci 0000:1b:00",
                   "note: two GPUs: the baseline ran on GPU-aaaa, pci 0000:1b:00, new on GPU-bbbb", "two GPUs");
}

/* Runs loaded differently (CUDA_MODULE_LOADING). */
static void test_module_loading_differs(void)
{
    check_env_note(loading_of, loading_differs, "CUDA_MODULE_LOADING unset", "CUDA_MODULE_LOADING=EAGER",
                   "note: module loading differs: the baseline ran with CUDA_MODULE_LOADING unset, new with "
                   "CUDA_MODULE_LOADING=EAGER", "module loading");
}

/* A baseline whose eager calls were timed with the stage events inside (stage times, no staged calls:
 * written before 2026-12-01) against one timed without: a note; none when both were timed alike, or
 * when the eager side has no timed case. */
static void test_eager_events_note(void)
{
    static run_t a, b;
    spec_t s[2] = {{"x", MB_MODE_EAGER, 10.0, 0.01, 30, 1, MB_CASE_PASS}, {"y", MB_MODE_GRAPH, 9.0, 0.01, 30, 2, MB_CASE_PASS}};
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    mb_compare_t c;
    char err[512] = "";
    /* old, old; old, new; new, new; new, new but the eager case is an error */
    const int base_staged[4] = {0, 0, 10, 0}, new_staged[4] = {0, 10, 10, 10}, want[4] = {0, 1, 0, 0};
    for (int k = 0; k < 4; k++) {
        build(&a, s, 2, "NVIDIA H200");
        build(&b, s, 2, "NVIDIA H200");
        a.res[0].stage_median_us[MB_STAGE_DECODE] = b.res[0].stage_median_us[MB_STAGE_DECODE] = 8.0;
        a.res[0].staged_calls = base_staged[k];
        b.res[0].staged_calls = new_staged[k];
        if (k == 3) a.res[0].time.n = 0;   /* a baseline case that was never timed says nothing */
        CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
        char *text = capture(&c, 0);
        CHECKF(c.eager_events_differ == want[k] && text && !strstr(text, "events between the stages") == !want[k],
               "pair %d: %d", k, c.eager_events_differ);
        free(text);
        mb_compare_free(&c);
    }
}

static void test_print(void)
{
    static run_t a, b;
    spec_t base[3] = {{"b4-q1-kv1024-h32/mode=graph", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS},
                      {"short", MB_MODE_EAGER, 40.0, 0.005, 30, 2, MB_CASE_PASS},
                      {"b128", MB_MODE_GRAPH, 400.0, 0.005, 30, 3, MB_CASE_PASS}};
    spec_t neu[3] = {{"b4-q1-kv1024-h32/mode=graph", MB_MODE_GRAPH, 48.0, 0.005, 30, 4, MB_CASE_PASS},
                     {"short", MB_MODE_EAGER, 36.0, 0.005, 30, 5, MB_CASE_PASS},
                     {"b128", MB_MODE_GRAPH, 400.0, 0.005, 3, 6, MB_CASE_PASS}};
    build(&a, base, 3, "NVIDIA H200");
    build(&b, neu, 3, "NVIDIA H200");
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    mb_compare_t c;
    char err[512] = "";
    if (mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err)) { CHECKF(0, "%s", err); return; }
    char *plain = capture(&c, 0), *color = capture(&c, 1);
    CHECK(plain && color && !strchr(plain, '\033'));
    CHECKF(plain && strstr(plain, "compare: 3 common cases: 1 regressed, 0 slower, 1 faster, 0 same, "
                                  "1 ambiguous; 0 check failures\n"), "%s", plain);
    /* The unit driver's own last line is "N passed, N failed": the gate must never look like it. */
    CHECK(plain && !strstr(plain, "passed") && !strstr(plain, "failed,"));
    CHECK(color && strstr(color, "\033[31mregressed\033[0m") && strstr(color, "\033[32mfaster\033[0m"));
    CHECK(color && strstr(color, "\033[33mambiguous\033[0m"));
    /* Columns line up: every row's verdict starts where the header's does, and no line ends in a blank. */
    int rows = 0, vcol = -1;
    for (char *l = plain ? strtok(plain, "\n") : NULL; l; l = strtok(NULL, "\n")) {
        CHECKF(l[strlen(l) - 1] != ' ', "trailing blank: '%s'", l);
        if (!strncmp(l, "case ", 5)) {
            vcol = column_of(l, "verdict");
            CHECK(column_of(l, "±noise %") > column_of(l, "change %"));
        }
        const char *verdicts[] = {"regressed", "faster", "ambiguous"};
        int is_row = !strncmp(l, "b4-", 3) || !strncmp(l, "short ", 6) || !strncmp(l, "b128 ", 5);
        for (int k = 0; k < 3; k++)
            if (vcol > 0 && is_row && strstr(l, verdicts[k])) {
                rows++;
                CHECKF(column_of(l, verdicts[k]) == vcol, "'%s'", l);
            }
    }
    CHECK(rows == 3);
    free(plain);
    free(color);
    FILE *f = tmpfile();
    if (f) {
        char line[256] = "";
        mb_compare_summary(f, &c);
        rewind(f);
        CHECK(fgets(line, sizeof line, f) && !strncmp(line, "compare: 3 common cases", 23) && !fgets(line, sizeof line, f));
        fclose(f);
    }
    mb_compare_free(&c);
}

static void check_compare_equal(const mb_compare_t *a, const mb_compare_t *b)
{
    CHECK(!strcmp(a->base_path, b->base_path) && !strcmp(a->new_path, b->new_path));
    CHECK(!strcmp(a->device, b->device) && !strcmp(a->base_device, b->base_device));
    CHECK(a->device_mismatch == b->device_mismatch && !strcmp(a->metric, b->metric));
    CHECK(!strcmp(a->gpu_id, b->gpu_id) && !strcmp(a->base_gpu_id, b->base_gpu_id) && a->gpu_differs == b->gpu_differs);
    CHECK(!strcmp(a->module_loading, b->module_loading) && !strcmp(a->base_module_loading, b->base_module_loading) &&
          a->module_loading_differs == b->module_loading_differs);
    CHECK(a->max_regression_pct == b->max_regression_pct && a->alpha == b->alpha);
    CHECKF(same_double(a->geomean_change_pct, b->geomean_change_pct), "%.17g vs %.17g", a->geomean_change_pct,
           b->geomean_change_pct);
    CHECK(a->n_rows == b->n_rows && a->n_added == b->n_added && a->n_missing == b->n_missing);
    for (int i = 0; i < a->n_rows && i < b->n_rows; i++) {
        const mb_cmp_row_t *x = &a->rows[i], *y = &b->rows[i];
        CHECK(!strcmp(x->name, y->name) && !strcmp(x->mode, y->mode));
        CHECK(same_double(x->old_v, y->old_v) && same_double(x->new_v, y->new_v));
        CHECKF(same_double(x->change_pct, y->change_pct) && same_double(x->noise_pct, y->noise_pct), "row %d", i);
        CHECKF(same_double(x->p, y->p), "row %d: p %.17g vs %.17g", i, x->p, y->p);
        CHECK(x->n_old == y->n_old && x->n_new == y->n_new);
        CHECK(x->verdict == y->verdict && x->check_failed == y->check_failed && x->plan_changed == y->plan_changed);
    }
    for (int i = 0; i < a->n_added && i < b->n_added; i++)
        CHECK(!strcmp(a->added[i].name, b->added[i].name) && !strcmp(a->added[i].mode, b->added[i].mode) &&
              a->added[i].check_failed == b->added[i].check_failed);
    for (int i = 0; i < a->n_missing && i < b->n_missing; i++)
        CHECK(!strcmp(a->missing[i].name, b->missing[i].name) && !strcmp(a->missing[i].mode, b->missing[i].mode));
    CHECK(a->n_regressed == b->n_regressed && a->n_slower == b->n_slower && a->n_faster == b->n_faster);
    CHECK(a->n_same == b->n_same && a->n_ambiguous == b->n_ambiguous && a->n_check_failed == b->n_check_failed);
}

/* ---- files ---- */

static void tpath(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tdir, name);
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* A baseline and a new run with a bit of everything: same, regressed, faster, a check failure in
 * NEW with no samples, an added and a missing case. */
static void mixed_runs(run_t *a, run_t *b)
{
    spec_t base[5] = {{"same", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS},
                      {"slow", MB_MODE_GRAPH, 40.0, 0.005, 30, 2, MB_CASE_PASS},
                      {"fast", MB_MODE_EAGER, 40.0, 0.005, 30, 3, MB_CASE_PASS},
                      {"err", MB_MODE_EAGER, 40.0, 0.005, 30, 4, MB_CASE_PASS},
                      {"gone", MB_MODE_EAGER, 40.0, 0.005, 30, 5, MB_CASE_PASS}};
    spec_t neu[5] = {{"same", MB_MODE_GRAPH, 40.0, 0.005, 30, 11, MB_CASE_PASS},
                     {"slow", MB_MODE_GRAPH, 44.0, 0.005, 30, 12, MB_CASE_PASS},
                     {"fast", MB_MODE_EAGER, 36.0, 0.005, 30, 13, MB_CASE_PASS},
                     {"err", MB_MODE_EAGER, 0.0, 0.0, 0, 14, MB_CASE_ERROR},
                     {"new", MB_MODE_GRAPH, 40.0, 0.005, 30, 15, MB_CASE_PASS}};
    build(a, base, 5, "NVIDIA H200");
    build(b, neu, 5, "NVIDIA H200");
    snprintf(a->rep.env.gpu_id, sizeof a->rep.env.gpu_id, "GPU-aaaa, pci 0000:1b:00");
    snprintf(b->rep.env.gpu_id, sizeof b->rep.env.gpu_id, "GPU-bbbb, pci 0000:2a:00");
    snprintf(a->rep.env.module_loading, sizeof a->rep.env.module_loading, "CUDA_MODULE_LOADING unset");
    snprintf(b->rep.env.module_loading, sizeof b->rep.env.module_loading, "CUDA_MODULE_LOADING=EAGER");
}

static void test_json_roundtrip(void)
{
    static run_t a, b;
    mixed_runs(&a, &b);
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    mb_compare_t c, back;
    char err[512] = "", path[128];
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(c.n_rows == 4 && c.n_added == 1 && c.n_missing == 1 && c.n_check_failed == 1);
    tpath(path, sizeof path, "cmp.json");
    CHECKF(mb_compare_write_json(&c, path, err, sizeof err) == 0, "%s", err);
    CHECKF(mb_compare_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    check_compare_equal(&c, &back);
    mb_compare_free(&back);
    mb_compare_free(&c);

    spit(path, "{\"schema\": \"mla-bench/result/1\"}");
    CHECK(mb_compare_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strstr(err, "mla-bench/result/1"), "%s", err);
    CHECK(back.rows == NULL && back.n_rows == 0);
    spit(path, "{\"schema\": \"mla-bench/compare/1\", \"baseline\": \"a\"}");
    CHECK(mb_compare_read_json(path, &back, err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strstr(err, "new: missing"), "%s", err);
    tpath(path, sizeof path, "nope.json");
    CHECK(mb_compare_read_json(path, &back, err, sizeof err) == -1 && strstr(err, path));
}

/* ---- the command, run as a user would ---- */

/* A case whose plan id changed is flagged (the split or packing moved, not only the kernel); unknown
 * ids (files from before plans had them) never are. */
static void test_plan_changed(void)
{
    static run_t a, b;
    spec_t s[3] = {{"kept", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS},
                   {"moved", MB_MODE_GRAPH, 40.0, 0.005, 30, 2, MB_CASE_PASS},
                   {"unknown", MB_MODE_GRAPH, 40.0, 0.005, 30, 3, MB_CASE_PASS}};
    build(&a, s, 3, "d");
    build(&b, s, 3, "d");
    a.res[0].plan_id = b.res[0].plan_id = 7;
    a.res[1].plan_id = 7, b.res[1].plan_id = 8;
    a.res[2].plan_id = 0, b.res[2].plan_id = 9;
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    mb_compare_t c, back;
    char err[512] = "", path[128];
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(!c.rows[0].plan_changed && c.rows[1].plan_changed && !c.rows[2].plan_changed && c.n_plan_changed == 1);
    char *text = capture(&c, 0);
    CHECKF(text && strstr(text, "same, plan changed\n") && strstr(text, "; 1 run with another plan"), "%s", text);
    free(text);
    tpath(path, sizeof path, "plan-changed.json");
    CHECKF(mb_compare_write_json(&c, path, err, sizeof err) == 0, "%s", err);
    CHECKF(mb_compare_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.rows[1].plan_changed && !back.rows[0].plan_changed && back.n_plan_changed == 1);
    mb_compare_free(&back);
    /* Optional (older files), but a boolean when present. */
    FILE *f = fopen(path, "rb");
    if (f) fseek(f, 0, SEEK_END);   /* unit_read_back reads up to the position */
    text = unit_read_back(f);
    char *at = text ? strstr(text, "\"plan_changed\":\ttrue") : NULL;
    CHECK(at != NULL);
    if (at) {
        memcpy(at + strlen("\"plan_changed\":\t"), "1   ", 4);
        spit(path, text);
        CHECK(mb_compare_read_json(path, &back, err, sizeof err) == -1);
        CHECKF(strstr(err, "plan_changed: expected true or false"), "%s", err);
    }
    free(text);
    mb_compare_free(&c);
}

/* A case timed at SM clocks more than 2 % apart gets a note with both clocks; one within 2 %, or with
 * a clock unknown (an older file), does not; verdicts do not move for it; the clocks survive the file. */
static void test_clock_note(void)
{
    static run_t a, b;
    spec_t s[3] = {{"steady", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS},
                   {"throttled", MB_MODE_GRAPH, 40.0, 0.005, 30, 2, MB_CASE_PASS},
                   {"old file", MB_MODE_GRAPH, 40.0, 0.005, 30, 3, MB_CASE_PASS}};
    build(&a, s, 3, "d");
    build(&b, s, 3, "d");
    a.res[0].sm_mhz = 1700, b.res[0].sm_mhz = 1730;   /* +1.8 % */
    a.res[1].sm_mhz = 1700, b.res[1].sm_mhz = 1500;   /* -11.8 % */
    a.res[2].sm_mhz = 0, b.res[2].sm_mhz = 1200;      /* unknown on one side */
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    mb_compare_t c, back;
    char err[512] = "", path[128];
    CHECKF(mb_compare_reports(&a.rep, &b.rep, &o, &c, err, sizeof err) == 0, "%s", err);
    CHECK(!mb_cmp_clock_differs(&c.rows[0]) && mb_cmp_clock_differs(&c.rows[1]) && !mb_cmp_clock_differs(&c.rows[2]));
    CHECK(c.n_clock_differs == 1 && isnan(c.rows[2].old_mhz) && c.rows[2].new_mhz == 1200);
    CHECK(c.rows[1].verdict == c.rows[0].verdict);
    char *text = capture(&c, 0);
    CHECKF(text && strstr(text, "note: SM clock differs by more than 2% between the runs in 1 case ")
           && strstr(text, "  throttled (graph): 1700 -> 1500 MHz (-11.8%)\n") && !strstr(text, "steady (graph): 1700"), "%s", text);
    free(text);
    tpath(path, sizeof path, "clock.json");
    CHECKF(mb_compare_write_json(&c, path, err, sizeof err) == 0, "%s", err);
    CHECKF(mb_compare_read_json(path, &back, err, sizeof err) == 0, "%s", err);
    CHECK(back.n_clock_differs == 1 && back.rows[1].new_mhz == 1500 && isnan(back.rows[2].old_mhz));
    mb_compare_free(&back);
    /* Optional (older files), but a positive clock or null when present. */
    FILE *f = fopen(path, "rb");
    if (f) fseek(f, 0, SEEK_END);
    text = unit_read_back(f);
    char *at = text ? strstr(text, "\"new_sm_mhz\":\t1500") : NULL;
    CHECK(at != NULL);
    if (at) {
        memcpy(at + strlen("\"new_sm_mhz\":\t"), "-150", 4);
        spit(path, text);
        CHECK(mb_compare_read_json(path, &back, err, sizeof err) == -1);
        CHECKF(strstr(err, "rows[1].new_sm_mhz: expected a clock in MHz"), "%s", err);
    }
    free(text);
    mb_compare_free(&c);
}

static char out[1 << 16];

/* Runs `mla-bench compare` with args (shell words), both streams into out; returns the exit code. */
static int mbc(const char *args)
{
    char cmd[1900];
    snprintf(cmd, sizeof cmd, "compare %s", args);
    return unit_run_cli(cmd, out, sizeof out);
}

static char base_f[128], new_f[128], same_f[128], other_f[128], fail_f[128], bad_f[128];

static void write_cli_files(void)
{
    static run_t a, b;
    char err[512] = "";
    mixed_runs(&a, &b);
    tpath(base_f, sizeof base_f, "base.json");
    tpath(new_f, sizeof new_f, "new.json");
    tpath(same_f, sizeof same_f, "same.json");
    tpath(other_f, sizeof other_f, "other-device.json");
    tpath(fail_f, sizeof fail_f, "fail.json");
    tpath(bad_f, sizeof bad_f, "bad-schema.json");
    CHECKF(mb_report_write_json(&a.rep, base_f, err, sizeof err) == 0, "%s", err);
    CHECKF(mb_report_write_json(&b.rep, new_f, err, sizeof err) == 0, "%s", err);
    /* The baseline's first three cases again with other seeds: an A/A run. */
    spec_t aa[3] = {{"same", MB_MODE_GRAPH, 40.0, 0.005, 30, 21, MB_CASE_PASS},
                    {"slow", MB_MODE_GRAPH, 40.0, 0.005, 30, 22, MB_CASE_PASS},
                    {"fast", MB_MODE_EAGER, 40.0, 0.005, 30, 23, MB_CASE_PASS}};
    build(&b, aa, 3, "NVIDIA H200");
    CHECKF(mb_report_write_json(&b.rep, same_f, err, sizeof err) == 0, "%s", err);
    snprintf(b.rep.env.device, sizeof b.rep.env.device, "NVIDIA H100 80GB HBM3");
    CHECKF(mb_report_write_json(&b.rep, other_f, err, sizeof err) == 0, "%s", err);
    /* A/A again, but one check failed: exit 1 with no regression in sight. */
    snprintf(b.rep.env.device, sizeof b.rep.env.device, "NVIDIA H200");
    b.res[1].status = MB_CASE_FAIL;
    CHECKF(mb_report_write_json(&b.rep, fail_f, err, sizeof err) == 0, "%s", err);
    spit(bad_f, "{\"schema\": \"mla-bench/result/0\", \"cases\": []}\n");
}

static void test_cli_errors(void)
{
    char args[1024];
    CHECK(mbc("--help") == 0 && strstr(out, "--max-regression") && strstr(out, "precedence"));
    CHECK(mbc("") == 2);
    snprintf(args, sizeof args, "%s", base_f);
    CHECK(mbc(args) == 2);
    snprintf(args, sizeof args, "%s %s/no-such.json", base_f, tdir);
    CHECKF(mbc(args) == 2 && strstr(out, "no-such.json") && unit_lines(out) == 1, "%s", out);
    snprintf(args, sizeof args, "%s/no-such.json %s", tdir, base_f);
    CHECKF(mbc(args) == 2 && strstr(out, "no-such.json: No such file"), "%s", out);
    snprintf(args, sizeof args, "%s %s", bad_f, new_f);
    CHECKF(mbc(args) == 2 && strstr(out, bad_f) && strstr(out, "schema") && unit_lines(out) == 1, "%s", out);
    snprintf(args, sizeof args, "%s %s", base_f, other_f);
    CHECKF(mbc(args) == 2 && strstr(out, other_f) && strstr(out, "H100") && unit_lines(out) == 1, "%s", out);
    snprintf(args, sizeof args, "%s %s --allow-device-mismatch", base_f, other_f);
    CHECKF(mbc(args) == 0 && strstr(out, "warning") && strstr(out, "H100"), "%s", out);
    snprintf(args, sizeof args, "%s %s --max-regression 5x", base_f, new_f);
    CHECKF(mbc(args) == 2 && strstr(out, "--max-regression") && strstr(out, "'5x'") && unit_lines(out) == 1, "%s", out);
    snprintf(args, sizeof args, "%s %s --max-regression", base_f, new_f);
    CHECK(mbc(args) == 2 && strstr(out, "--max-regression needs a value"));
    snprintf(args, sizeof args, "%s %s --alpha 0.7", base_f, new_f);
    CHECK(mbc(args) == 2 && strstr(out, "--alpha") && strstr(out, "0.7"));
    snprintf(args, sizeof args, "%s %s --metric p99", base_f, new_f);
    CHECK(mbc(args) == 2 && strstr(out, "--metric") && strstr(out, "p99"));
    snprintf(args, sizeof args, "%s %s --frob", base_f, new_f);
    CHECK(mbc(args) == 2 && strstr(out, "unknown option '--frob'"));
    snprintf(args, sizeof args, "%s %s %s", base_f, new_f, same_f);
    CHECK(mbc(args) == 2);
    /* No case in common. */
    static run_t r;
    spec_t lone = {"lonely", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS};
    char lone_f[128], err[512];
    build(&r, &lone, 1, "NVIDIA H200");
    tpath(lone_f, sizeof lone_f, "lone.json");
    CHECKF(mb_report_write_json(&r.rep, lone_f, err, sizeof err) == 0, "%s", err);
    snprintf(args, sizeof args, "%s %s", base_f, lone_f);
    CHECKF(mbc(args) == 2 && strstr(out, "no case in common") && unit_lines(out) == 1, "%s", out);
}

static void test_cli_verdicts(void)
{
    char args[1024];
    snprintf(args, sizeof args, "%s %s", base_f, same_f);
    CHECKF(mbc(args) == 0 && strstr(out, "compare: 3 common cases: 0 regressed"), "%s", out);
    CHECKF(strstr(out, "; 0 added, 2 missing\n") && !strstr(out, "passed"), "%s", out);
    snprintf(args, sizeof args, "%s %s", same_f, base_f);
    CHECKF(mbc(args) == 0, "%s", out);
    /* base -> new: "slow" regressed and "err" errored in NEW: the check failure wins. */
    snprintf(args, sizeof args, "%s %s", base_f, new_f);
    CHECKF(mbc(args) == 1 && strstr(out, "1 regressed") && strstr(out, "; 1 check failure;"), "%s", out);
    CHECK(!strchr(out, '\033'));
    snprintf(args, sizeof args, "%s %s", base_f, fail_f);
    CHECKF(mbc(args) == 1 && strstr(out, "0 regressed"), "%s", out);
    /* --quiet: the summary line alone. */
    snprintf(args, sizeof args, "%s %s --quiet", same_f, base_f);
    CHECKF(mbc(args) == 0 && unit_lines(out) == 1 && !strncmp(out, "compare: ", 9), "%s", out);
    snprintf(args, sizeof args, "%s %s --max-regression=20%%", base_f, new_f);
    CHECKF(mbc(args) == 1 && strstr(out, "0 regressed, 1 slower"), "%s", out);
}

static void test_cli_regression_exit(void)
{
    static run_t a, b;
    spec_t base[2] = {{"a", MB_MODE_GRAPH, 40.0, 0.005, 30, 1, MB_CASE_PASS},
                      {"b", MB_MODE_GRAPH, 40.0, 0.005, 30, 2, MB_CASE_PASS}};
    spec_t neu[2] = {{"a", MB_MODE_GRAPH, 40.0, 0.005, 30, 3, MB_CASE_PASS},
                     {"b", MB_MODE_GRAPH, 44.0, 0.005, 30, 4, MB_CASE_PASS}};
    char fa[128], fb[128], args[1024], err[512] = "";
    build(&a, base, 2, "NVIDIA H200");
    build(&b, neu, 2, "NVIDIA H200");
    tpath(fa, sizeof fa, "reg-a.json");
    tpath(fb, sizeof fb, "reg-b.json");
    CHECKF(mb_report_write_json(&a.rep, fa, err, sizeof err) == 0, "%s", err);
    CHECKF(mb_report_write_json(&b.rep, fb, err, sizeof err) == 0, "%s", err);
    snprintf(args, sizeof args, "%s %s", fa, fb);
    CHECKF(mbc(args) == 3 && strstr(out, "1 regressed"), "%s", out);
    snprintf(args, sizeof args, "%s %s --max-regression 15", fa, fb);
    CHECKF(mbc(args) == 0 && strstr(out, "1 slower"), "%s", out);
    snprintf(args, sizeof args, "%s %s --max-regression 0.05", fa, fb);
    CHECKF(mbc(args) == 3, "%s", out);
}

static int str_is(const cJSON *it, const char *want)
{
    const char *s = cJSON_GetStringValue(it);
    return s && !strcmp(s, want);
}

static void test_cli_json(void)
{
    char args[1024], jpath[128], err[512] = "";
    tpath(jpath, sizeof jpath, "out.json");
    snprintf(args, sizeof args, "%s %s --json %s --metric min --alpha 0.05 --max-regression 3%%", base_f, new_f, jpath);
    CHECKF(mbc(args) == 1, "%s", out);
    char *text = mb_read_text(jpath, err, sizeof err);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    CHECK(str_is(cJSON_GetObjectItem(root, "schema"), MB_COMPARE_SCHEMA));
    CHECK(str_is(cJSON_GetObjectItem(root, "metric"), "min"));
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "exit_code")) == 1);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "rows")) == 4);
    cJSON_Delete(root);
    free(text);

    /* What the command wrote is what the library computes from the same two files. */
    mb_report_t a, b;
    mb_compare_t mem, back;
    CHECKF(mb_report_read_json(base_f, &a, err, sizeof err) == 0, "%s", err);
    CHECKF(mb_report_read_json(new_f, &b, err, sizeof err) == 0, "%s", err);
    mb_compare_opts_t o;
    mb_compare_opts_default(&o);
    o.metric = "min";
    o.alpha = 0.05;
    o.max_regression_pct = 3.0;
    o.base_label = base_f;
    o.new_label = new_f;
    CHECKF(mb_compare_reports(&a, &b, &o, &mem, err, sizeof err) == 0, "%s", err);
    CHECKF(mb_compare_read_json(jpath, &back, err, sizeof err) == 0, "%s", err);
    check_compare_equal(&mem, &back);
    CHECK(mb_compare_exit_code(&back) == 1);
    mb_compare_free(&back);
    mb_compare_free(&mem);
    mb_report_free_read(&a);
    mb_report_free_read(&b);

    snprintf(args, sizeof args, "%s %s --json %s/no/such/dir/x.json", base_f, same_f, tdir);
    CHECKF(mbc(args) == 2 && strstr(out, "no/such/dir/x.json"), "%s", out);
}

void suite_compare(void)
{
    snprintf(tdir, sizeof tdir, "/tmp/mb-compare-XXXXXX");
    if (!mkdtemp(tdir)) {
        perror("suite_compare: mkdtemp");
        unit_failed++;
        return;
    }
    RUN(test_mwu_known_values);
    RUN(test_mwu_extremes);
    RUN(test_mwu_symmetric);
    RUN(test_verdict_rules);
    RUN(test_aa_same);
    RUN(test_regressed);
    RUN(test_slower_within_threshold);
    RUN(test_ambiguous);
    RUN(test_faster);
    RUN(test_noise_figure);
    RUN(test_check_failed_wins);
    RUN(test_added_missing);
    RUN(test_geomean);
    RUN(test_metric_choice);
    RUN(test_refusals);
    RUN(test_parse_options);
    RUN(test_two_gpus);
    RUN(test_module_loading_differs);
    RUN(test_eager_events_note);
    RUN(test_print);
    RUN(test_json_roundtrip);
    RUN(test_plan_changed);
    RUN(test_clock_note);
    write_cli_files();
    RUN(test_cli_errors);
    RUN(test_cli_verdicts);
    RUN(test_cli_regression_exit);
    RUN(test_cli_json);
    unit_remove_tree(tdir);
}
