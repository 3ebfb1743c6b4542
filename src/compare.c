/* The regression gate: matching, verdicts, the console table and the compare JSON. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>
#include "compare.h"
#include "jsonio.h"
#include "mwu.h"
#include "report.h"

static const char *const verdict_names[] = {"faster", "same", "slower", "regressed", "ambiguous"};
enum { NVERDICT = sizeof verdict_names / sizeof verdict_names[0] };
static const char *const metric_names[] = {"median", "mean", "min"};
enum { NMETRIC = sizeof metric_names / sizeof metric_names[0] };

const char *mb_verdict_name(mb_verdict_t v)
{
    return (unsigned)v < NVERDICT ? verdict_names[v] : "?";
}

void mb_compare_opts_default(mb_compare_opts_t *o)
{
    *o = (mb_compare_opts_t){5.0, 0.01, "median", 0, "baseline", "new"};
}

/* Digits with at most one '.', nothing else: strtod alone would also take " 5", "5e1", "0x5", "inf". */
static int plain_decimal(const char *s, size_t n)
{
    int digits = 0, dots = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') digits++;
        else if (s[i] == '.' && !dots++) continue;
        else return 0;
    }
    return digits > 0;
}

int mb_compare_parse_pct(const char *s, double *pct)
{
    if (!s) return -1;
    size_t n = strlen(s);
    if (n && s[n - 1] == '%') n--;
    if (!plain_decimal(s, n)) return -1;
    *pct = strtod(s, NULL);
    return isfinite(*pct) ? 0 : -1;
}

int mb_compare_parse_alpha(const char *s, double *alpha)
{
    if (!s || !plain_decimal(s, strlen(s))) return -1;
    double a = strtod(s, NULL);
    if (!(a > 0.0 && a <= 0.5)) return -1;
    *alpha = a;
    return 0;
}

/* A slowdown past the threshold but within the placement spread is ambiguous, not a regression: a run's
 * samples are many draws of a few placements, so the test sees them as independent when the placements
 * are what moved (b32-q4-kv1024 on the H200: 8.8 % between three placements of one run). */
mb_verdict_t mb_compare_verdict(double change_pct, double p, int n_old, int n_new, double max_regression_pct,
                                double alpha, double spread_pct)
{
    if (n_old < MB_COMPARE_MIN_SAMPLES || n_new < MB_COMPARE_MIN_SAMPLES) return MB_V_AMBIGUOUS;
    if (!isfinite(change_pct) || isnan(p)) return MB_V_AMBIGUOUS;
    if (p >= alpha) return fabs(change_pct) <= max_regression_pct ? MB_V_SAME : MB_V_AMBIGUOUS;
    if (change_pct > max_regression_pct) return change_pct > spread_pct || isnan(spread_pct) ? MB_V_REGRESSED : MB_V_AMBIGUOUS;
    return change_pct > 0.0 ? MB_V_SLOWER : MB_V_FASTER;
}

/* The larger spread of the runs timed on two or more placements; NaN when neither was. */
static double spread_of(const mb_case_result_t *o, const mb_case_result_t *n)
{
    double a = o->placements >= 2 ? mb_placement_spread_pct(o) : NAN;
    double b = n->placements >= 2 ? mb_placement_spread_pct(n) : NAN;
    return fmax(a, b);   /* the other where one is NaN */
}

int mb_compare_exit_code(const mb_compare_t *c)
{
    if (c->n_check_failed) return 1;
    return c->n_regressed ? 3 : 0;
}

/* ---- comparing ---- */

static int metric_index(const char *m)
{
    for (int i = 0; m && i < NMETRIC; i++)
        if (!strcmp(m, metric_names[i])) return i;
    return -1;
}

static double metric_of(const mb_stats_t *t, int m)
{
    return m == 0 ? t->median : m == 1 ? t->mean : t->min;
}

static int same_case(const mb_case_result_t *a, const mb_case_result_t *b)
{
    /* The cache settings too: a case timed hot and one timed cold are two measurements, not a change. */
    return a->c->mode == b->c->mode && a->c->l2 == b->c->l2 && a->c->icache == b->c->icache &&
           !strcmp(a->c->name, b->c->name);
}

static void case_id(mb_cmp_case_t *k, const mb_case_result_t *r)
{
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", r->c->name);
    snprintf(k->mode, sizeof k->mode, "%s", mb_mode_name(r->c->mode));
    k->check_failed = r->status != MB_CASE_PASS;
}

static void fill_row(mb_cmp_row_t *row, const mb_case_result_t *o, const mb_case_result_t *n,
                     const mb_compare_opts_t *opt, int metric)
{
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", n->c->name);
    snprintf(row->mode, sizeof row->mode, "%s", mb_mode_name(n->c->mode));
    row->old_v = metric_of(&o->time, metric);
    row->new_v = metric_of(&n->time, metric);
    /* A case that measured nothing has zeros or nulls here: no change can be computed from them. */
    int have = isfinite(row->old_v) && isfinite(row->new_v) && row->old_v > 0.0 && row->new_v > 0.0;
    row->change_pct = have ? (row->new_v / row->old_v - 1.0) * 100.0 : NAN;
    row->noise_pct = 200.0 * sqrt(o->time.rse * o->time.rse + n->time.rse * n->time.rse);
    row->n_old = o->n_samples;
    row->n_new = n->n_samples;
    row->p = mb_mwu_p(o->samples_us, o->n_samples, n->samples_us, n->n_samples);
    row->spread_pct = spread_of(o, n);
    row->verdict = mb_compare_verdict(row->change_pct, row->p, row->n_old, row->n_new, opt->max_regression_pct,
                                      opt->alpha, row->spread_pct);
    row->check_failed = n->status != MB_CASE_PASS;
    row->plan_changed = o->plan_id && n->plan_id && o->plan_id != n->plan_id;
    row->old_mhz = o->sm_mhz > 0 ? o->sm_mhz : NAN;
    row->new_mhz = n->sm_mhz > 0 ? n->sm_mhz : NAN;
}

int mb_cmp_clock_differs(const mb_cmp_row_t *r)
{
    return r->old_mhz > 0 && r->new_mhz > 0 && fabs(r->new_mhz / r->old_mhz - 1.0) * 100.0 > MB_CLOCK_DIFFERS_PCT;
}

static void count_verdicts(mb_compare_t *c)
{
    int *slot[NVERDICT] = {&c->n_faster, &c->n_same, &c->n_slower, &c->n_regressed, &c->n_ambiguous};
    for (int i = 0; i < c->n_rows; i++) {
        ++*slot[c->rows[i].verdict];
        c->n_check_failed += c->rows[i].check_failed;
        c->n_plan_changed += c->rows[i].plan_changed;
        c->n_clock_differs += mb_cmp_clock_differs(&c->rows[i]);
    }
    for (int i = 0; i < c->n_added; i++) c->n_check_failed += c->added[i].check_failed;
}

/* Over the rows where both values are measured; NaN when there is none. */
static double geomean_change(const mb_compare_t *c)
{
    double sum = 0.0;
    int k = 0;
    for (int i = 0; i < c->n_rows; i++) {
        const mb_cmp_row_t *r = &c->rows[i];
        if (!isfinite(r->change_pct)) continue;
        sum += log(r->new_v / r->old_v);
        k++;
    }
    return k ? (exp(sum / k) - 1.0) * 100.0 : NAN;
}

static int check_opts(const mb_compare_opts_t *o, char *err, size_t errlen)
{
    if (metric_index(o->metric) < 0)
        snprintf(err, errlen, "metric: expected median, mean or min, got '%s'", o->metric ? o->metric : "");
    else if (!(o->max_regression_pct >= 0.0 && isfinite(o->max_regression_pct)))
        snprintf(err, errlen, "max regression: expected a percentage >= 0, got %g", o->max_regression_pct);
    else if (!(o->alpha > 0.0 && o->alpha <= 0.5))
        snprintf(err, errlen, "alpha: expected a value in (0, 0.5], got %g", o->alpha);
    else
        return 0;
    return -1;
}

/* 1 if the file's eager cases were timed with the stage events inside the timed calls (stage times but
 * no staged calls: written before 2026-12-01), 2 if without, 0 if it has no timed eager case. */
static int eager_timing(const mb_report_t *r)
{
    for (int i = 0; i < r->n_results; i++) {
        const mb_case_result_t *cr = &r->results[i];
        if (cr->c->mode != MB_MODE_EAGER || cr->time.n == 0) continue;
        if (cr->staged_calls > 0) return 2;
        if (cr->stage_median_us[MB_STAGE_DECODE] >= 0) return 1;
    }
    return 0;
}

static void set_header(mb_compare_t *c, const mb_report_t *base, const mb_report_t *neu, const mb_compare_opts_t *o)
{
    const int eb = eager_timing(base), en = eager_timing(neu);
    c->eager_events_differ = eb && en && eb != en;
    snprintf(c->base_path, sizeof c->base_path, "%s", o->base_label ? o->base_label : "baseline");
    snprintf(c->new_path, sizeof c->new_path, "%s", o->new_label ? o->new_label : "new");
    snprintf(c->device, sizeof c->device, "%s", neu->env.device);
    snprintf(c->base_device, sizeof c->base_device, "%s", base->env.device);
    c->device_mismatch = strcmp(c->device, c->base_device) != 0;
    snprintf(c->gpu_id, sizeof c->gpu_id, "%s", neu->env.gpu_id);
    snprintf(c->base_gpu_id, sizeof c->base_gpu_id, "%s", base->env.gpu_id);
    c->gpu_differs = c->gpu_id[0] && c->base_gpu_id[0] && strcmp(c->gpu_id, c->base_gpu_id) != 0;
    snprintf(c->module_loading, sizeof c->module_loading, "%s", neu->env.module_loading);
    snprintf(c->base_module_loading, sizeof c->base_module_loading, "%s", base->env.module_loading);
    c->module_loading_differs = c->module_loading[0] && c->base_module_loading[0] &&
                                strcmp(c->module_loading, c->base_module_loading) != 0;
    snprintf(c->metric, sizeof c->metric, "%s", o->metric);
    c->max_regression_pct = o->max_regression_pct;
    c->alpha = o->alpha;
}

/* NEW's cases in its order, each paired with the first unpaired baseline case of the same key, so
 * duplicated keys pair up in order instead of all landing on one baseline case. */
static void match_cases(mb_compare_t *c, const mb_report_t *base, const mb_report_t *neu,
                        const mb_compare_opts_t *o, int *used)
{
    int metric = metric_index(o->metric);
    for (int j = 0; j < neu->n_results; j++) {
        const mb_case_result_t *n = &neu->results[j];
        int i = 0;
        while (i < base->n_results && (used[i] || !same_case(&base->results[i], n))) i++;
        if (i == base->n_results) { case_id(&c->added[c->n_added++], n); continue; }
        used[i] = 1;
        fill_row(&c->rows[c->n_rows++], &base->results[i], n, o, metric);
    }
    for (int i = 0; i < base->n_results; i++)
        if (!used[i]) {
            case_id(&c->missing[c->n_missing], &base->results[i]);
            c->missing[c->n_missing++].check_failed = 0;
        }
}

int mb_compare_reports(const mb_report_t *base, const mb_report_t *neu, const mb_compare_opts_t *o,
                       mb_compare_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_opts(o, err, errlen)) return -1;
    set_header(out, base, neu, o);
    if (out->device_mismatch && !o->allow_device_mismatch) {
        snprintf(err, errlen, "%s: device \"%s\" differs from the baseline's \"%s\" (%s); "
                 "--allow-device-mismatch compares them anyway", out->new_path, out->device, out->base_device,
                 out->base_path);
        return -1;
    }
    size_t nb = (size_t)base->n_results, nn = (size_t)neu->n_results;
    int *used = calloc(nb + 1, sizeof *used);
    out->rows = calloc(nn + 1, sizeof *out->rows);
    out->added = calloc(nn + 1, sizeof *out->added);
    out->missing = calloc(nb + 1, sizeof *out->missing);
    if (!used || !out->rows || !out->added || !out->missing) {
        snprintf(err, errlen, "%s: %s", out->new_path, strerror(ENOMEM));
        free(used);
        mb_compare_free(out);
        return -1;
    }
    match_cases(out, base, neu, o, used);
    free(used);
    if (!out->n_rows) {
        snprintf(err, errlen, "%s and %s have no case in common (cases are matched by name, mode and cache settings)",
                 out->base_path, out->new_path);
        mb_compare_free(out);
        return -1;
    }
    count_verdicts(out);
    out->geomean_change_pct = geomean_change(out);
    return 0;
}

void mb_compare_free(mb_compare_t *c)
{
    free(c->rows);
    free(c->added);
    free(c->missing);
    memset(c, 0, sizeof *c);
}

/* ---- console ---- */

enum { COL_CASE, COL_MODE, COL_OLD, COL_NEW, COL_CHANGE, COL_NOISE, COL_SPREAD, COL_P, COL_VERDICT, NCOL };
enum { CELL = 160 };
typedef char crow_t[NCOL][CELL];

static const struct { const char *title; int right; } cols[NCOL] = {
    {"case", 0}, {"mode", 0}, {"old µs", 1}, {"new µs", 1}, {"change %", 1}, {"±noise %", 1}, {"spread %", 1},
    {"p", 1}, {"verdict", 0},
};

/* Terminal columns of UTF-8 text ("µ", "±" take two bytes and one column). */
static size_t disp_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* A control character in a case name would break the row. */
static void cell_text(char *cell, const char *s)
{
    size_t o = 0;
    for (; *s && o + 1 < CELL; s++) cell[o++] = (unsigned char)*s < 0x20 ? ' ' : *s;
    cell[o] = '\0';
}

static void cell_num(char *cell, const char *fmt, double v)
{
    if (isfinite(v)) snprintf(cell, CELL, fmt, v);
    else snprintf(cell, CELL, "-");
}

static void cell_p(char *cell, double p)
{
    cell_num(cell, p >= 0.001 || !isfinite(p) ? "%.3f" : "%.1e", p);
}

static void fill_crow(crow_t row, const mb_cmp_row_t *r)
{
    cell_text(row[COL_CASE], r->name);
    cell_text(row[COL_MODE], r->mode);
    cell_num(row[COL_OLD], "%.2f", r->old_v);
    cell_num(row[COL_NEW], "%.2f", r->new_v);
    cell_num(row[COL_CHANGE], "%+.2f", r->change_pct);
    cell_num(row[COL_NOISE], "%.2f", r->noise_pct);
    cell_num(row[COL_SPREAD], "%.2f", r->spread_pct);
    cell_p(row[COL_P], r->p);
    if (!r->check_failed) snprintf(row[COL_VERDICT], CELL, "%s", mb_verdict_name(r->verdict));
    else if (r->n_old > 0 && r->n_new > 0) snprintf(row[COL_VERDICT], CELL, "%s, check-failed", mb_verdict_name(r->verdict));
    else snprintf(row[COL_VERDICT], CELL, "check-failed");
    if (r->plan_changed) snprintf(row[COL_VERDICT] + strlen(row[COL_VERDICT]), CELL - strlen(row[COL_VERDICT]), ", plan changed");
}

static void fill_geomean(crow_t row, const mb_compare_t *c)
{
    for (int j = 0; j < NCOL; j++) row[j][0] = '\0';
    snprintf(row[COL_CASE], CELL, "geomean");
    cell_num(row[COL_CHANGE], "%+.2f", c->geomean_change_pct);
}

static const char *verdict_color(const mb_cmp_row_t *r)
{
    if (r->check_failed || r->verdict == MB_V_REGRESSED) return "\033[31m";
    if (r->verdict == MB_V_FASTER) return "\033[32m";
    return r->verdict == MB_V_AMBIGUOUS ? "\033[33m" : NULL;
}

static void pad(FILE *f, size_t n)
{
    while (n--) fputc(' ', f);
}

/* The line stops after its last non-empty cell, unpadded, so it carries no trailing blanks. */
static void put_crow(FILE *f, crow_t row, const size_t *w, const char *color)
{
    int last = NCOL - 1;
    while (last > 0 && !row[last][0]) last--;
    for (int j = 0; j <= last; j++) {
        size_t fill = w[j] - disp_width(row[j]);
        if (j) fputs("  ", f);
        if (cols[j].right) pad(f, fill);
        if (j == COL_VERDICT && color) fprintf(f, "%s%s\033[0m", color, row[j]);
        else fputs(row[j], f);
        if (!cols[j].right && j < last) pad(f, fill);
    }
    fputc('\n', f);
}

static void put_rule(FILE *f, const size_t *w)
{
    for (int j = 0; j < NCOL; j++) {
        if (j) fputs("  ", f);
        for (size_t k = 0; k < w[j]; k++) fputc('-', f);
    }
    fputc('\n', f);
}

/* rows[0] the titles, rows[1..n] the cases, rows[n+1] the geomean. */
static void put_table(FILE *f, const mb_compare_t *c, int color)
{
    int n = c->n_rows;
    crow_t *rows = malloc(sizeof(crow_t) * (size_t)(n + 2));
    if (!rows) { fputs("(out of memory for the comparison table)\n", f); return; }
    size_t w[NCOL] = {0};
    for (int j = 0; j < NCOL; j++) snprintf(rows[0][j], CELL, "%s", cols[j].title);
    for (int i = 0; i < n; i++) fill_crow(rows[i + 1], &c->rows[i]);
    fill_geomean(rows[n + 1], c);
    for (int i = 0; i < n + 2; i++)
        for (int j = 0; j < NCOL; j++) {
            size_t d = disp_width(rows[i][j]);
            if (d > w[j]) w[j] = d;
        }
    put_crow(f, rows[0], w, NULL);
    put_rule(f, w);
    for (int i = 0; i < n; i++) put_crow(f, rows[i + 1], w, color ? verdict_color(&c->rows[i]) : NULL);
    put_rule(f, w);
    put_crow(f, rows[n + 1], w, NULL);
    free(rows);
}

void mb_compare_summary(FILE *f, const mb_compare_t *c)
{
    fprintf(f, "compare: %d common case%s: %d regressed, %d slower, %d faster, %d same, %d ambiguous; "
            "%d check failure%s", c->n_rows, c->n_rows == 1 ? "" : "s", c->n_regressed, c->n_slower,
            c->n_faster, c->n_same, c->n_ambiguous, c->n_check_failed, c->n_check_failed == 1 ? "" : "s");
    if (c->n_added || c->n_missing) fprintf(f, "; %d added, %d missing", c->n_added, c->n_missing);
    if (c->n_plan_changed) fprintf(f, "; %d run with another plan (split or packing: see plan.id)", c->n_plan_changed);
    fputc('\n', f);
}

/* Under the table: the cases whose runs ran at SM clocks apart, with both clocks, so that a time change
 * that is the clock's (a throttled GPU, another GPU's clock) is not read as the code's. */
static void put_clock_note(FILE *f, const mb_compare_t *c)
{
    fprintf(f, "\nnote: SM clock differs by more than %g%% between the runs in %d case%s (a time change there may be "
            "the clock's, not the code's):\n", MB_CLOCK_DIFFERS_PCT, c->n_clock_differs, c->n_clock_differs == 1 ? "" : "s");
    for (int i = 0; i < c->n_rows; i++) {
        const mb_cmp_row_t *r = &c->rows[i];
        if (mb_cmp_clock_differs(r))
            fprintf(f, "  %s (%s): %.0f -> %.0f MHz (%+.1f%%)\n", r->name, r->mode, r->old_mhz, r->new_mhz,
                    (r->new_mhz / r->old_mhz - 1.0) * 100.0);
    }
}

void mb_compare_print(FILE *f, const mb_compare_t *c, int color)
{
    fprintf(f, "baseline: %s (%s)\nnew:      %s (%s)\n", c->base_path, c->base_device, c->new_path, c->device);
    /* Not a refusal: two GPUs of one model are the usual case in a fleet, but they are a source of
     * difference the verdicts cannot see (README, "Gating regressions"). */
    if (c->gpu_differs)
        fprintf(f, "note: two GPUs: the baseline ran on %s, new on %s; two GPUs of one model can time the "
                "same binary apart (on H200s ~5 %% has been seen): a regression here may be the GPU's\n",
                c->base_gpu_id, c->gpu_id);
    /* Not a refusal either: the load order places the kernels' code, and code that never ran moved the
     * short 64-row shapes by up to 9 % on the H200 (README, "How it times"). */
    if (c->module_loading_differs)
        fprintf(f, "note: module loading differs: the baseline ran with %s, new with %s; where the kernels' code "
                "lands moves some shapes' times (on the H200 up to ~9 %%): a regression here may be the loading's\n",
                c->base_module_loading, c->module_loading);
    if (c->eager_events_differ)
        fprintf(f, "note: only one side timed its eager calls with events between the stages (files written before "
                "2026-12-01 did): that adds ~4-5 µs a call on the H200, so eager cases differ by it for one binary\n");
    fprintf(f, "metric: %s; regressed = slower by more than %g%% at p < %g (Mann-Whitney U) and by more than the "
            "placements' spread\n\n", c->metric, c->max_regression_pct, c->alpha);
    put_table(f, c, color);
    if (c->n_clock_differs) put_clock_note(f, c);
    if (c->n_added || c->n_missing) fputc('\n', f);
    for (int i = 0; i < c->n_added; i++)
        fprintf(f, "added (only in %s): %s (%s)%s\n", c->new_path, c->added[i].name, c->added[i].mode,
                c->added[i].check_failed ? ", check-failed" : "");
    for (int i = 0; i < c->n_missing; i++)
        fprintf(f, "missing (only in %s): %s (%s)\n", c->base_path, c->missing[i].name, c->missing[i].mode);
    fputc('\n', f);
    mb_compare_summary(f, c);
}

/* ---- JSON writer ---- */

static void json_row(jb_t *b, cJSON *arr, const mb_cmp_row_t *r)
{
    cJSON *o = jb_put(b, arr, NULL, cJSON_CreateObject());
    jb_put_str(b, o, "name", r->name);
    jb_put_str(b, o, "mode", r->mode);
    jb_put_num(b, o, "old_us", r->old_v);
    jb_put_num(b, o, "new_us", r->new_v);
    jb_put_num(b, o, "change_pct", r->change_pct);
    jb_put_num(b, o, "noise_pct", r->noise_pct);
    jb_put(b, o, "placement_spread_pct", isnan(r->spread_pct) ? cJSON_CreateNull() : jb_num(r->spread_pct));
    jb_put_num(b, o, "p", r->p);
    jb_put_num(b, o, "n_old", r->n_old);
    jb_put_num(b, o, "n_new", r->n_new);
    jb_put_str(b, o, "verdict", mb_verdict_name(r->verdict));
    jb_put_bool(b, o, "check_failed", r->check_failed);
    jb_put_bool(b, o, "plan_changed", r->plan_changed);
    jb_put(b, o, "old_sm_mhz", isnan(r->old_mhz) ? cJSON_CreateNull() : jb_num(r->old_mhz));
    jb_put(b, o, "new_sm_mhz", isnan(r->new_mhz) ? cJSON_CreateNull() : jb_num(r->new_mhz));
}

static void json_cases(jb_t *b, cJSON *root, const char *key, const mb_cmp_case_t *k, int n, int with_check)
{
    cJSON *arr = jb_put(b, root, key, cJSON_CreateArray());
    for (int i = 0; i < n && arr; i++) {
        cJSON *o = jb_put(b, arr, NULL, cJSON_CreateObject());
        jb_put_str(b, o, "name", k[i].name);
        jb_put_str(b, o, "mode", k[i].mode);
        if (with_check) jb_put_bool(b, o, "check_failed", k[i].check_failed);
    }
}

static void json_counts(jb_t *b, cJSON *root, const mb_compare_t *c)
{
    cJSON *o = jb_put(b, root, "counts", cJSON_CreateObject());
    jb_put_num(b, o, "common", c->n_rows);
    jb_put_num(b, o, "regressed", c->n_regressed);
    jb_put_num(b, o, "slower", c->n_slower);
    jb_put_num(b, o, "faster", c->n_faster);
    jb_put_num(b, o, "same", c->n_same);
    jb_put_num(b, o, "ambiguous", c->n_ambiguous);
    jb_put_num(b, o, "check_failed", c->n_check_failed);
    jb_put_num(b, o, "added", c->n_added);
    jb_put_num(b, o, "missing", c->n_missing);
}

int mb_compare_write_json(const mb_compare_t *c, const char *path, char *err, size_t errlen)
{
    jb_t b = {0};
    cJSON *root = cJSON_CreateObject();
    if (!root) b.oom = 1;
    jb_put_str(&b, root, "schema", MB_COMPARE_SCHEMA);
    jb_put_str(&b, root, "baseline", c->base_path);
    jb_put_str(&b, root, "new", c->new_path);
    jb_put_str(&b, root, "device", c->device);
    jb_put_str(&b, root, "baseline_device", c->base_device);
    jb_put_bool(&b, root, "device_mismatch", c->device_mismatch);
    jb_put_str(&b, root, "gpu_id", c->gpu_id);
    jb_put_str(&b, root, "baseline_gpu_id", c->base_gpu_id);
    jb_put_bool(&b, root, "gpu_differs", c->gpu_differs);
    jb_put_str(&b, root, "module_loading", c->module_loading);
    jb_put_str(&b, root, "baseline_module_loading", c->base_module_loading);
    jb_put_bool(&b, root, "module_loading_differs", c->module_loading_differs);
    jb_put_str(&b, root, "metric", c->metric);
    jb_put_num(&b, root, "max_regression_pct", c->max_regression_pct);
    jb_put_num(&b, root, "alpha", c->alpha);
    jb_put_num(&b, root, "min_samples", MB_COMPARE_MIN_SAMPLES);
    jb_put_num(&b, root, "geomean_change_pct", c->geomean_change_pct);
    jb_put_num(&b, root, "exit_code", mb_compare_exit_code(c));
    cJSON *rows = jb_put(&b, root, "rows", cJSON_CreateArray());
    for (int i = 0; i < c->n_rows && rows; i++) json_row(&b, rows, &c->rows[i]);
    json_cases(&b, root, "added", c->added, c->n_added, 1);
    json_cases(&b, root, "missing", c->missing, c->n_missing, 0);
    json_counts(&b, root, c);
    int rc = jb_write(&b, root, path, err, errlen);
    cJSON_Delete(root);
    return rc;
}

/* ---- JSON reader ---- */

/* An array and its length (0 when missing or wrong, after the error). */
static const cJSON *rd_arr_n(rd_t *r, const cJSON *o, const char *key, int *n)
{
    const cJSON *it = rd_arr(r, o, "", key);
    *n = it ? cJSON_GetArraySize(it) : 0;
    return it;
}

static void read_row(rd_t *r, const cJSON *o, const char *w, mb_cmp_row_t *row)
{
    char verdict[16] = "";
    rd_str(r, o, w, "name", row->name, sizeof row->name);
    rd_str(r, o, w, "mode", row->mode, sizeof row->mode);
    row->old_v = rd_num(r, o, w, "old_us");
    row->new_v = rd_num(r, o, w, "new_us");
    row->change_pct = rd_num(r, o, w, "change_pct");
    row->noise_pct = rd_num(r, o, w, "noise_pct");
    /* Optional (files written before placements) and null when neither run had two or more. */
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "placement_spread_pct");
    row->spread_pct = sp && !cJSON_IsNull(sp) ? rd_num(r, o, w, "placement_spread_pct") : NAN;
    row->p = rd_num(r, o, w, "p");
    row->n_old = rd_count(r, o, w, "n_old");
    row->n_new = rd_count(r, o, w, "n_new");
    rd_str(r, o, w, "verdict", verdict, sizeof verdict);
    int v = 0;
    while (v < NVERDICT && strcmp(verdict, verdict_names[v])) v++;
    if (v == NVERDICT && !r->bad) rd_fail(r, w, "verdict", "expected faster, same, slower, regressed or ambiguous");
    row->verdict = v < NVERDICT ? (mb_verdict_t)v : MB_V_AMBIGUOUS;
    row->check_failed = rd_bool(r, o, w, "check_failed");
    /* Optional (files written before plans had ids), but a boolean when present. */
    if (cJSON_GetObjectItemCaseSensitive(o, "plan_changed")) row->plan_changed = rd_bool(r, o, w, "plan_changed");
    /* Optional (files written before the SM clock) and null when a run's clock is unknown. */
    static const char *const mhz[2] = {"old_sm_mhz", "new_sm_mhz"};
    double *dst[2] = {&row->old_mhz, &row->new_mhz};
    for (int k = 0; k < 2; k++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, mhz[k]);
        *dst[k] = m && !cJSON_IsNull(m) ? rd_num(r, o, w, mhz[k]) : NAN;
        if (m && !cJSON_IsNull(m) && !(*dst[k] > 0)) rd_fail(r, w, mhz[k], "expected a clock in MHz (> 0) or null");
    }
}

static void read_cases(rd_t *r, const cJSON *root, const char *key, mb_cmp_case_t **out, int *n, int with_check)
{
    const cJSON *arr = rd_arr_n(r, root, key, n);
    *out = calloc((size_t)*n + 1, sizeof **out);
    if (!*out) { rd_fail(r, "", key, strerror(ENOMEM)); *n = 0; return; }
    int i = 0;
    for (const cJSON *it = arr ? arr->child : NULL; it && !r->bad; it = it->next, i++) {
        char w[48];
        snprintf(w, sizeof w, "%s[%d].", key, i);
        if (!cJSON_IsObject(it)) { rd_fail(r, w, "", "expected an object"); break; }
        rd_str(r, it, w, "name", (*out)[i].name, sizeof (*out)[i].name);
        rd_str(r, it, w, "mode", (*out)[i].mode, sizeof (*out)[i].mode);
        if (with_check) (*out)[i].check_failed = rd_bool(r, it, w, "check_failed");
    }
}

static void read_rows(rd_t *r, const cJSON *root, mb_compare_t *c)
{
    const cJSON *arr = rd_arr_n(r, root, "rows", &c->n_rows);
    c->rows = calloc((size_t)c->n_rows + 1, sizeof *c->rows);
    if (!c->rows) { rd_fail(r, "", "rows", strerror(ENOMEM)); c->n_rows = 0; return; }
    int i = 0;
    for (const cJSON *it = arr ? arr->child : NULL; it && !r->bad; it = it->next, i++) {
        char w[32];
        snprintf(w, sizeof w, "rows[%d].", i);
        if (!cJSON_IsObject(it)) { rd_fail(r, w, "", "expected an object"); break; }
        read_row(r, it, w, &c->rows[i]);
    }
}

/* The counts are stored for readers that want only them; they must agree with the lists. */
static void read_counts(rd_t *r, const cJSON *root, mb_compare_t *c)
{
    const cJSON *o = rd_item(r, root, "", "counts");
    if (o && !cJSON_IsObject(o)) { rd_fail(r, "", "counts", "expected an object"); return; }
    c->n_regressed = rd_count(r, o, "counts.", "regressed");
    c->n_slower = rd_count(r, o, "counts.", "slower");
    c->n_faster = rd_count(r, o, "counts.", "faster");
    c->n_same = rd_count(r, o, "counts.", "same");
    c->n_ambiguous = rd_count(r, o, "counts.", "ambiguous");
    c->n_check_failed = rd_count(r, o, "counts.", "check_failed");
    for (int i = 0; i < c->n_rows; i++) {
        c->n_plan_changed += c->rows[i].plan_changed;
        c->n_clock_differs += mb_cmp_clock_differs(&c->rows[i]);
    }
    int common = rd_count(r, o, "counts.", "common"), added = rd_count(r, o, "counts.", "added");
    int missing = rd_count(r, o, "counts.", "missing");
    if (!r->bad && (common != c->n_rows || added != c->n_added || missing != c->n_missing))
        rd_fail(r, "", "counts", "do not match the rows, added and missing lists");
}

static cJSON *parse_compare(const char *path, char *err, size_t errlen)
{
    char *buf = mb_read_text(path, err, errlen);
    if (!buf) return NULL;
    cJSON *root = cJSON_Parse(buf);
    free(buf);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!root) snprintf(err, errlen, "%s: not valid JSON", path);
    else if (!cJSON_IsObject(root) || !cJSON_IsString(s))
        snprintf(err, errlen, "%s: no \"schema\" string: not an mla-bench compare file", path);
    else if (strcmp(s->valuestring, MB_COMPARE_SCHEMA))
        snprintf(err, errlen, "%s: schema is \"%.64s\", this tool reads \"%s\"", path, s->valuestring,
                 MB_COMPARE_SCHEMA);
    else
        return root;
    cJSON_Delete(root);
    return NULL;
}

int mb_compare_read_json(const char *path, mb_compare_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    cJSON *root = parse_compare(path, err, errlen);
    if (!root) return -1;
    rd_t r = {path, err, errlen, 0};
    rd_str(&r, root, "", "baseline", out->base_path, sizeof out->base_path);
    rd_str(&r, root, "", "new", out->new_path, sizeof out->new_path);
    rd_str(&r, root, "", "device", out->device, sizeof out->device);
    rd_str(&r, root, "", "baseline_device", out->base_device, sizeof out->base_device);
    out->device_mismatch = rd_bool(&r, root, "", "device_mismatch");
    if (cJSON_GetObjectItemCaseSensitive(root, "gpu_id")) {   /* files before it have none */
        rd_str(&r, root, "", "gpu_id", out->gpu_id, sizeof out->gpu_id);
        rd_str(&r, root, "", "baseline_gpu_id", out->base_gpu_id, sizeof out->base_gpu_id);
        out->gpu_differs = rd_bool(&r, root, "", "gpu_differs");
    }
    if (cJSON_GetObjectItemCaseSensitive(root, "module_loading")) {   /* files before it have none */
        rd_str(&r, root, "", "module_loading", out->module_loading, sizeof out->module_loading);
        rd_str(&r, root, "", "baseline_module_loading", out->base_module_loading, sizeof out->base_module_loading);
        out->module_loading_differs = rd_bool(&r, root, "", "module_loading_differs");
    }
    rd_str(&r, root, "", "metric", out->metric, sizeof out->metric);
    out->max_regression_pct = rd_num(&r, root, "", "max_regression_pct");
    out->alpha = rd_num(&r, root, "", "alpha");
    out->geomean_change_pct = rd_num(&r, root, "", "geomean_change_pct");
    read_rows(&r, root, out);
    read_cases(&r, root, "added", &out->added, &out->n_added, 1);
    read_cases(&r, root, "missing", &out->missing, &out->n_missing, 0);
    read_counts(&r, root, out);
    cJSON_Delete(root);
    if (r.bad) { mb_compare_free(out); return -1; }
    return 0;
}
