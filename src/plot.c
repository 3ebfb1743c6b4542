#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>
#include "compare.h"
#include "jsonio.h"
#include "plot.h"
#include "report.h"
#include "svg.h"
#include "sweep.h"

enum { MAX_CASES = 512 };

/* Effective TB/s per case, bars, against the copy bandwidth the tool measured on the same device. */
static int plot_run(const char *json_path, const char *svg_path, char *err, size_t errlen)
{
    mb_report_t r;
    if (mb_report_read_json(json_path, &r, err, errlen)) return 2;
    int n = r.n_results < MAX_CASES ? r.n_results : MAX_CASES;
    const char **names = calloc(n ? n : 1, sizeof *names);
    double *y = calloc(n ? n : 1, sizeof *y);
    char title[256], line[96];
    int rc = 4;
    if (!names || !y) { snprintf(err, errlen, "out of memory"); goto out; }
    for (int i = 0; i < n; i++) {
        names[i] = r.results[i].c->name;
        y[i] = r.results[i].time.n > 0 ? r.results[i].tbps : NAN;
    }
    snprintf(title, sizeof title, "%s: effective bandwidth per case (%s, %s kernel)", json_path, r.env.device,
             n ? r.results[0].kernel : "-");
    snprintf(line, sizeof line, "measured copy bandwidth %.2f TB/s", r.env.copy_tbps);
    mb_svg_series_t s = { "bytes moved / median GPU time", NULL, y, n, NULL, "#4e79a7", NULL, MB_SVG_BARS };
    mb_svg_hline_t h = { r.env.copy_tbps, line, 1, "#e15759" };
    mb_svg_chart_t c = { title, "case", "effective bandwidth (TB/s)", 0, names, n, 1, &s, 1, &h, 1, NULL, 0 };
    rc = mb_svg_write_chart(svg_path, &c, err, errlen) ? 4 : 0;
out:
    free(names);
    free(y);
    mb_report_free_read(&r);
    return rc;
}

/* A sweep point's split count: "auto", or an integer a config could ask for. 0 for "auto". */
static int point_splits(rd_t *r, const cJSON *pt, const char *where)
{
    const cJSON *sp = rd_item(r, pt, where, "splits");
    if (!sp) return -1;
    if (cJSON_IsString(sp) && !strcmp(sp->valuestring, "auto")) return 0;
    double v = cJSON_IsNumber(sp) ? sp->valuedouble : NAN;
    if (!mb_splits_valid(v)) {
        char what[64];
        snprintf(what, sizeof what, "expected \"auto\" or an integer in [1, %d]", MB_MAX_SPLITS);
        rd_fail(r, where, "splits", what);
        return -1;
    }
    return (int)v;
}

/* A time the chart draws: > 0, or null (nothing was timed). */
static double point_time(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    double t = rd_num(r, o, where, key);
    if (!r->bad && !isnan(t) && !(t > 0 && t < 1e12)) rd_fail(r, where, key, "expected a time in µs (> 0) or null");
    return t;
}

/* One panel a shape: median time against splits (log2 axis), the fastest point and "auto" marked.
 * Every field the chart uses is checked, so a hand-edited or cut file fails naming the field. */
static int plot_sweep(cJSON *root, const char *json_path, const char *svg_path, char *err, size_t errlen)
{
    static const char *const status[] = { "pass", "fail", "error" };
    rd_t r = { json_path, err, errlen, 0 };
    const cJSON *shapes = rd_arr(&r, root, "", "shapes");
    int n = cJSON_GetArraySize(shapes), rc = 4;
    if (n > MAX_CASES) n = MAX_CASES;
    mb_svg_chart_t *panels = calloc(n ? n : 1, sizeof *panels);
    mb_svg_series_t *series = calloc(2 * (n ? n : 1), sizeof *series);
    mb_svg_mark_t *marks = calloc(n ? n : 1, sizeof *marks);
    double (*xy)[4][MB_SWEEP_MAX_POINTS] = calloc(n ? n : 1, sizeof *xy);
    char (*labels)[2][96] = calloc(n ? n : 1, sizeof *labels);
    char title[256], w[64];
    if (!panels || !series || !marks || !xy || !labels) { snprintf(err, errlen, "out of memory"); goto out; }
    for (int g = 0; g < n && !r.bad; g++) {
        const cJSON *sh = cJSON_GetArrayItem(shapes, g);
        snprintf(w, sizeof w, "shapes[%d].", g);
        if (!cJSON_IsObject(sh)) { rd_fail(&r, w, "", "expected an object"); break; }
        const cJSON *pts = rd_arr(&r, sh, w, "points");
        int k = 0;
        double auto_t = NAN, auto_s = NAN;
        for (int p = 0; p < cJSON_GetArraySize(pts) && k < MB_SWEEP_MAX_POINTS && !r.bad; p++) {
            const cJSON *pt = cJSON_GetArrayItem(pts, p);
            snprintf(w, sizeof w, "shapes[%d].points[%d].", g, p);
            if (!cJSON_IsObject(pt)) { rd_fail(&r, w, "", "expected an object"); break; }
            int splits = point_splits(&r, pt, w);
            int st = rd_choice(&r, pt, w, "status", status, 3, "expected pass, fail or error");
            double t = point_time(&r, pt, w, "median_us");
            if (r.bad) break;
            if (st != 0) t = NAN;   /* only passing points are drawn */
            if (splits == 0) {      /* "auto": drawn at the count it chose */
                const int chose = rd_int_in(&r, pt, w, "splits_max", 0, MB_MAX_SPLITS);   /* 0: no plan was built */
                auto_t = t;
                auto_s = chose > 0 ? chose : NAN;
                continue;
            }
            xy[g][0][k] = splits;
            xy[g][1][k++] = t;
        }
        if (r.bad) break;
        snprintf(w, sizeof w, "shapes[%d].", g);
        xy[g][2][0] = auto_s;
        xy[g][3][0] = auto_t;
        series[2 * g] = (mb_svg_series_t){ g ? NULL : "num_kv_splits = N", xy[g][0], xy[g][1], k, NULL, "#4e79a7",
                                          NULL, MB_SVG_LINE | MB_SVG_POINTS };
        series[2 * g + 1] = (mb_svg_series_t){ g ? NULL : "\"auto\" (at the count it chose)", xy[g][2], xy[g][3], 1,
                                              NULL, "#f28e2b", NULL, MB_SVG_POINTS };
        int nm = 0;
        if (cJSON_GetObjectItemCaseSensitive(sh, "best_splits")) {   /* only when a point passed */
            const int bs = rd_int_in(&r, sh, w, "best_splits", 1, MB_MAX_SPLITS);
            const double bt = point_time(&r, sh, w, "best_median_us");
            if (r.bad) break;
            snprintf(labels[g][1], sizeof labels[g][1], "best: %d splits, %.1f µs", bs, bt);
            marks[g] = (mb_svg_mark_t){ bs, bt, labels[g][1] };
            nm = !isnan(bt);
        }
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(sh, "shape");
        snprintf(labels[g][0], sizeof labels[g][0], "%s", cJSON_IsString(name) ? name->valuestring : "?");
        panels[g] = (mb_svg_chart_t){ labels[g][0], "num_kv_splits", "time per call (µs)", 1, NULL, 0, 1,
                                      &series[2 * g], 2, NULL, 0, &marks[g], nm };
    }
    if (r.bad) { rc = 2; goto out; }
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
    snprintf(title, sizeof title, "%s: median GPU time per call against num_kv_splits (%s)", json_path,
             cJSON_IsString(dev) ? dev->valuestring : "?");
    rc = mb_svg_write_grid(svg_path, title, panels, n, n > 8 ? 4 : 2, err, errlen) ? 4 : 0;
out:
    free(panels);
    free(series);
    free(marks);
    free(xy);
    free(labels);
    return rc;
}

/* Change % per case with its noise band as an error bar, coloured by verdict, threshold lines. */
static int plot_compare(const char *json_path, const char *svg_path, char *err, size_t errlen)
{
    static const char *const colour[] = { [MB_V_FASTER] = "#59a14f", [MB_V_SAME] = "#9c9c9c", [MB_V_SLOWER] = "#edc948",
                                          [MB_V_REGRESSED] = "#e15759", [MB_V_AMBIGUOUS] = "#b07aa1" };
    mb_compare_t c;
    if (mb_compare_read_json(json_path, &c, err, errlen)) return 2;
    int n = c.n_rows < MAX_CASES ? c.n_rows : MAX_CASES, rc = 4;
    const char **names = calloc(n ? n : 1, sizeof *names), **cols = calloc(n ? n : 1, sizeof *cols);
    double *y = calloc(n ? n : 1, sizeof *y), *e = calloc(n ? n : 1, sizeof *e);
    char (*full)[140] = calloc(n ? n : 1, sizeof *full), title[1200], up[48], down[48];
    if (!names || !cols || !y || !e || !full) { snprintf(err, errlen, "out of memory"); goto out; }
    for (int i = 0; i < n; i++) {
        /* The mode is usually in the name already; add it only when it is not. */
        snprintf(full[i], sizeof full[i], "%s%s%s", c.rows[i].name, strstr(c.rows[i].name, c.rows[i].mode) ? "" : " ",
                 strstr(c.rows[i].name, c.rows[i].mode) ? "" : c.rows[i].mode);
        names[i] = full[i];
        y[i] = c.rows[i].change_pct;
        e[i] = c.rows[i].noise_pct;
        cols[i] = colour[c.rows[i].verdict];
    }
    snprintf(title, sizeof title, "%s vs %s: change of the %s per case (geomean %+.2f %%)", c.new_path, c.base_path,
             c.metric, c.geomean_change_pct);
    snprintf(up, sizeof up, "+%.3g %% (regression threshold)", c.max_regression_pct);
    snprintf(down, sizeof down, "-%.3g %%", c.max_regression_pct);
    mb_svg_series_t s[6] = {
        { NULL, NULL, y, n, e, "#9c9c9c", cols, MB_SVG_BARS },
        { "regressed", NULL, NULL, 0, NULL, colour[MB_V_REGRESSED], NULL, MB_SVG_BARS },
        { "slower (within threshold)", NULL, NULL, 0, NULL, colour[MB_V_SLOWER], NULL, MB_SVG_BARS },
        { "same", NULL, NULL, 0, NULL, colour[MB_V_SAME], NULL, MB_SVG_BARS },
        { "faster", NULL, NULL, 0, NULL, colour[MB_V_FASTER], NULL, MB_SVG_BARS },
        { "ambiguous (too noisy)", NULL, NULL, 0, NULL, colour[MB_V_AMBIGUOUS], NULL, MB_SVG_BARS },
    };
    mb_svg_hline_t h[3] = { { 0.0, NULL, 0, "#333333" }, { c.max_regression_pct, up, 1, "#e15759" },
                            { -c.max_regression_pct, down, 1, "#59a14f" } };
    mb_svg_chart_t ch = { title, "case (error bar: noise band, about 95 %)", "change (%)", 0, names, n, 1, s, 6, h, 3, NULL, 0 };
    rc = mb_svg_write_chart(svg_path, &ch, err, errlen) ? 4 : 0;
out:
    free(names);
    free(cols);
    free(y);
    free(e);
    free(full);
    mb_compare_free(&c);
    return rc;
}

int mb_plot_file(const char *json_path, const char *svg_path, char *err, size_t errlen)
{
    char *text = mb_read_text(json_path, err, errlen);
    if (!text) return 2;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) {
        snprintf(err, errlen, "%s: not valid JSON", json_path);
        return 2;
    }
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const char *s = cJSON_IsString(schema) ? schema->valuestring : "";
    int rc;
    if (!strcmp(s, MB_RESULT_SCHEMA)) rc = plot_run(json_path, svg_path, err, errlen);
    else if (!strcmp(s, MB_SWEEP_SCHEMA)) rc = plot_sweep(root, json_path, svg_path, err, errlen);
    else if (!strcmp(s, MB_COMPARE_SCHEMA)) rc = plot_compare(json_path, svg_path, err, errlen);
    else {
        snprintf(err, errlen, "%s: not a result, sweep or compare file of mla-bench (schema \"%s\")", json_path, s);
        rc = 2;
    }
    cJSON_Delete(root);
    return rc;
}

void mb_plot_default_path(const char *json_path, char *buf, size_t n)
{
    size_t len = strlen(json_path);
    if (len > 5 && !strcmp(json_path + len - 5, ".json")) snprintf(buf, n, "%.*s.svg", (int)(len - 5), json_path);
    else snprintf(buf, n, "%s.svg", json_path);
}
