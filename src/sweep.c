#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>
#include "plot.h"
#include "jsonio.h"
#include "report.h"
#include "sweep.h"
#include "tuning.h"

/* Same inputs and the same run settings: everything but the name and num_kv_splits. */
static int same_shape(const mb_case_t *a, const mb_case_t *b)
{
    return a->batch == b->batch && a->q_len == b->q_len && a->heads == b->heads && a->causal == b->causal &&
           a->mode == b->mode && a->l2 == b->l2 && a->icache == b->icache && a->seed == b->seed && a->q_std == b->q_std &&
           a->kv_std == b->kv_std && a->page_size == b->page_size &&
           (!a->page_size || a->page_order == b->page_order) &&
           !memcmp(a->kv_lens, b->kv_lens, sizeof(int32_t) * a->batch);
}

static void shape_name(const char *case_name, char *buf, size_t n)
{
    char tmp[256];
    size_t k = 0;
    snprintf(tmp, sizeof tmp, "%s", case_name);
    buf[0] = '\0';
    for (char *part = strtok(tmp, "/"); part; part = strtok(NULL, "/")) {
        if (!strncmp(part, "num_kv_splits=", 14)) continue;
        k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s", k ? "/" : "", part);
    }
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Sorted, unique, at most MB_SWEEP_MAX_POINTS - 1 counts. */
static int normalise(int *v, int n)
{
    int k = 0;
    qsort(v, n, sizeof(int), cmp_int);
    for (int i = 0; i < n; i++) if ((!k || v[i] != v[k - 1]) && k < MB_SWEEP_MAX_POINTS - 1) v[k++] = v[i];
    return k;
}

/* Powers of two up to the most splits the longest batch can use (one tile each), at most 64. */
static int auto_range(const mb_case_t *c, int granularity, int *out)
{
    int longest = 1, n = 0;
    for (int b = 0; b < c->batch; b++) if (c->kv_lens[b] > longest) longest = c->kv_lens[b];
    int most = (longest + granularity - 1) / granularity;
    for (int s = 1; s <= 64 && s <= most; s *= 2) out[n++] = s;
    return n ? n : (out[0] = 1, 1);
}

/* The split counts of one shape: --splits, else the explicit counts its cases give, else auto-range. */
static int group_splits(const mb_config_t *cfg, const mb_case_t *first, const int *list, int n_list,
                        int granularity, int *out)
{
    int n = 0;
    if (n_list) { memcpy(out, list, sizeof(int) * n_list); return normalise(out, n_list); }
    int tmp[MB_MAX_SPLITS];
    for (int i = 0; i < cfg->n_cases; i++)
        if (same_shape(&cfg->cases[i], first) && cfg->cases[i].splits > 0 && n < MB_MAX_SPLITS) tmp[n++] = cfg->cases[i].splits;
    if (!n) return auto_range(first, granularity, out);
    memcpy(out, tmp, sizeof(int) * n);
    return normalise(out, n);
}

int mb_sweep_build(mb_sweep_t *sw, const mb_config_t *cfg, const int *list, int n_list, int granularity,
                   char *err, size_t errlen)
{
    memset(sw, 0, sizeof *sw);
    sw->groups = calloc(cfg->n_cases, sizeof *sw->groups);
    sw->cases = calloc((size_t)cfg->n_cases * MB_SWEEP_MAX_POINTS, sizeof *sw->cases);
    sw->res = calloc((size_t)cfg->n_cases * MB_SWEEP_MAX_POINTS, sizeof *sw->res);
    if (!sw->groups || !sw->cases || !sw->res) { snprintf(err, errlen, "out of host memory"); mb_sweep_free(sw); return -1; }
    for (int i = 0; i < cfg->n_cases; i++) {
        const mb_case_t *c = &cfg->cases[i];
        int known = 0, splits[MB_SWEEP_MAX_POINTS];
        for (int g = 0; g < sw->n_groups && !known; g++) known = same_shape(sw->groups[g].first, c);
        if (known) continue;
        mb_sweep_group_t *grp = &sw->groups[sw->n_groups++];
        shape_name(c->name, grp->name, sizeof grp->name);
        grp->first = c;
        grp->point0 = sw->n_points;
        grp->points = &sw->cases[sw->n_points];
        grp->res = &sw->res[sw->n_points];
        int n = group_splits(cfg, c, list, n_list, granularity, splits);
        for (int p = 0; p <= n; p++) {
            mb_case_t *pt = &grp->points[p];
            *pt = *c;
            pt->splits = p ? splits[p - 1] : 0;
            if (p) snprintf(pt->name, sizeof pt->name, "%.100s/splits=%d", grp->name, pt->splits);
            else snprintf(pt->name, sizeof pt->name, "%.100s/splits=auto", grp->name);
        }
        grp->n_points = n + 1;
        grp->best = -1;
        sw->n_points += n + 1;
    }
    sw->points_cfg.path = cfg->path;
    sw->points_cfg.text = cfg->text;
    sw->points_cfg.cases = sw->cases;
    sw->points_cfg.n_cases = sw->n_points;
    return 0;
}

void mb_sweep_summarise(mb_sweep_t *sw)
{
    sw->n_compared = sw->n_auto_ok = 0;
    for (int g = 0; g < sw->n_groups; g++) {
        mb_sweep_group_t *grp = &sw->groups[g];
        grp->best = -1;
        grp->speedup = 0.0;
        grp->auto_ok = 0;
        for (int p = 0; p < grp->n_points && grp->point0 + p < sw->n_done; p++) {
            const mb_case_result_t *r = &grp->res[p];
            grp->same[p] = -1;
            for (int q = 0; q < p && r->plan_id; q++)
                if (grp->res[q].plan_id == r->plan_id) { grp->same[p] = q; break; }
            if (r->status != MB_CASE_PASS || r->time.n < 1 || grp->same[p] >= 0) continue;
            if (grp->best < 0 || r->time.median < grp->res[grp->best].time.median) grp->best = p;
        }
        const mb_case_result_t *a = &grp->res[0];
        if (grp->best < 0 || a->status != MB_CASE_PASS || a->time.n < 1) continue;
        grp->speedup = a->time.median / grp->res[grp->best].time.median;
        grp->auto_ok = a->time.median <= grp->res[grp->best].time.median * (1.0 + MB_SWEEP_AUTO_OK);
        sw->n_compared++;
        sw->n_auto_ok += grp->auto_ok;
    }
}

/* ---- tables ---- */

enum { SEP_CONSOLE, SEP_MD, SEP_CSV };

/* The split counts any shape tried, as columns. */
static int columns(const mb_sweep_t *sw, int *cols)
{
    int n = 0;
    for (int g = 0; g < sw->n_groups; g++)
        for (int p = 1; p < sw->groups[g].n_points; p++) {
            int s = sw->groups[g].points[p].splits, seen = 0;
            for (int k = 0; k < n; k++) seen |= cols[k] == s;
            if (!seen && n < MB_MAX_SPLITS) cols[n++] = s;
        }
    qsort(cols, n, sizeof(int), cmp_int);
    return n;
}

static void point_cell(const mb_sweep_group_t *grp, int p, int done, char *buf, size_t n)
{
    const mb_case_result_t *r = &grp->res[p];
    if (!done) snprintf(buf, n, "-");
    else if (r->status == MB_CASE_ERROR) snprintf(buf, n, "ERROR");
    else if (r->status == MB_CASE_FAIL) snprintf(buf, n, "FAIL");
    else snprintf(buf, n, "%s%.1f", p == grp->best ? "*" : grp->same[p] >= 0 ? "=" : "", r->time.median);
}

static void write_table(FILE *f, const mb_sweep_t *sw, int style)
{
    int cols[MB_MAX_SPLITS], nc = columns(sw, cols), wname = 5;
    const char *sep = style == SEP_CSV ? "," : style == SEP_MD ? " | " : "  ";
    for (int g = 0; g < sw->n_groups; g++) if ((int)strlen(sw->groups[g].name) > wname) wname = (int)strlen(sw->groups[g].name);
    if (style == SEP_CSV) wname = 0;
    fprintf(f, "%s%-*s%s%10s", style == SEP_MD ? "| " : "", wname, "shape", sep, "auto");
    for (int k = 0; k < nc; k++) fprintf(f, "%s%8d", sep, cols[k]);
    fprintf(f, "%s%5s%s%8s%s%7s%s\n", sep, "best", sep, "speedup", sep, "auto ok", style == SEP_MD ? " |" : "");
    if (style == SEP_MD) {
        fprintf(f, "|---|---:|");
        for (int k = 0; k < nc; k++) fprintf(f, "---:|");
        fprintf(f, "---:|---:|---|\n");
    }
    for (int g = 0; g < sw->n_groups; g++) {
        const mb_sweep_group_t *grp = &sw->groups[g];
        char cell[32], autoc[48];
        int done0 = grp->point0 < sw->n_done;
        point_cell(grp, 0, done0, cell, sizeof cell);
        snprintf(autoc, sizeof autoc, "%d:%s", grp->res[0].splits_max, cell);
        fprintf(f, "%s%-*s%s%10s", style == SEP_MD ? "| " : "", wname, grp->name, sep, done0 ? autoc : "-");
        for (int k = 0; k < nc; k++) {
            snprintf(cell, sizeof cell, "-");
            for (int p = 1; p < grp->n_points; p++)
                if (grp->points[p].splits == cols[k]) point_cell(grp, p, grp->point0 + p < sw->n_done, cell, sizeof cell);
            fprintf(f, "%s%8s", sep, cell);
        }
        if (grp->best >= 0) snprintf(cell, sizeof cell, "%d", grp->best ? grp->points[grp->best].splits : grp->res[0].splits_max);
        else snprintf(cell, sizeof cell, "-");
        fprintf(f, "%s%5s%s%8.3f%s%7s%s\n", sep, cell, sep, grp->speedup, sep,
                grp->best < 0 ? "-" : grp->auto_ok ? "yes" : "no", style == SEP_MD ? " |" : "");
    }
}

void mb_sweep_print(FILE *f, const mb_sweep_t *sw, int color)
{
    (void)color;
    fprintf(f, "\nsweep (median µs per call; auto column = splits chosen:time; * = fastest passing point;\n"
               "= same plan as a point to its left, not ranked: the batches have fewer tiles than the splits asked)\n");
    write_table(f, sw, SEP_CONSOLE);
    fprintf(f, "auto within %.0f %% of the best on %d of %d shapes\n", MB_SWEEP_AUTO_OK * 100, sw->n_auto_ok, sw->n_compared);
}

static cJSON *group_json(const mb_sweep_group_t *grp, int n_done)
{
    cJSON *o = cJSON_CreateObject(), *pts = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "shape", grp->name);
    cJSON_AddNumberToObject(o, "batch", grp->first->batch);
    cJSON_AddNumberToObject(o, "q_len", grp->first->q_len);
    cJSON_AddNumberToObject(o, "heads", grp->first->heads);
    cJSON_AddStringToObject(o, "kv", grp->first->kv_desc);
    for (int p = 0; p < grp->n_points && grp->point0 + p < n_done; p++) {
        const mb_case_result_t *r = &grp->res[p];
        cJSON *pt = cJSON_CreateObject();
        if (p) cJSON_AddNumberToObject(pt, "splits", grp->points[p].splits);
        else cJSON_AddStringToObject(pt, "splits", "auto");
        cJSON_AddNumberToObject(pt, "splits_max", r->splits_max);
        if (grp->same[p] == 0) cJSON_AddStringToObject(pt, "same_plan_as", "auto");
        else if (grp->same[p] > 0) cJSON_AddNumberToObject(pt, "same_plan_as", grp->points[grp->same[p]].splits);
        cJSON_AddStringToObject(pt, "status", r->status == MB_CASE_PASS ? "pass" : r->status == MB_CASE_FAIL ? "fail" : "error");
        if (r->time.n > 0) cJSON_AddNumberToObject(pt, "median_us", r->time.median);
        else cJSON_AddNullToObject(pt, "median_us");
        cJSON_AddNumberToObject(pt, "n", r->time.n);
        cJSON_AddItemToArray(pts, pt);
    }
    cJSON_AddItemToObject(o, "points", pts);
    if (grp->best >= 0) {
        cJSON_AddNumberToObject(o, "best_splits", grp->best ? grp->points[grp->best].splits : grp->res[0].splits_max);
        cJSON_AddNumberToObject(o, "best_median_us", grp->res[grp->best].time.median);
        cJSON_AddNumberToObject(o, "speedup_best_over_auto", grp->speedup);
        cJSON_AddBoolToObject(o, "auto_within_3pct", grp->auto_ok);
    }
    return o;
}

static int write_json(const mb_sweep_t *sw, const mb_env_t *env, const char *path, char *err, size_t errlen)
{
    cJSON *root = cJSON_CreateObject(), *groups = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "schema", MB_SWEEP_SCHEMA);
    cJSON_AddStringToObject(root, "device", env->device);
    cJSON_AddStringToObject(root, "tool_version", env->tool_version);
    cJSON_AddStringToObject(root, "commit", env->git_commit);
    cJSON_AddStringToObject(root, "date", env->date);
    cJSON_AddStringToObject(root, "config", sw->points_cfg.path);
    for (int g = 0; g < sw->n_groups; g++) cJSON_AddItemToArray(groups, group_json(&sw->groups[g], sw->n_done));
    cJSON_AddItemToObject(root, "shapes", groups);
    cJSON_AddNumberToObject(root, "shapes_compared", sw->n_compared);
    cJSON_AddNumberToObject(root, "auto_within_3pct", sw->n_auto_ok);
    int rc = jb_write(NULL, root, path, err, errlen);
    cJSON_Delete(root);
    return rc;
}

/* Renders a table into memory, then writes it atomically. */
static int write_text(const mb_sweep_t *sw, const mb_env_t *env, const char *path, int style, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
    if (style == SEP_MD)
        fprintf(f, "# mla-bench sweep\n\n- device: %s\n- date: %s\n- tool: mla-bench %s (commit %s)\n- config: %s\n\n"
                   "Median µs per call; auto = splits chosen:time; * = fastest passing point.\n\n",
                env->device, env->date, env->tool_version, env->git_commit, sw->points_cfg.path);
    write_table(f, sw, style);
    if (style == SEP_MD)
        fprintf(f, "\nauto within %.0f %% of the best on %d of %d shapes\n", MB_SWEEP_AUTO_OK * 100, sw->n_auto_ok, sw->n_compared);
    fclose(f);
    int rc = mb_write_file_atomic(path, buf, len, err, errlen);
    free(buf);
    return rc;
}

int mb_sweep_write_all(const mb_sweep_t *sw, const mb_env_t *env, const char *dir, const char *stem, int plot,
                       char *err, size_t errlen)
{
    char path[1024];
    static const char *const ext[] = { "json", "md", "csv" };
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ext[i]);
        int rc = i == 0 ? write_json(sw, env, path, err, errlen) : write_text(sw, env, path, i == 1 ? SEP_MD : SEP_CSV, err, errlen);
        if (rc) return -1;
        fprintf(stderr, "wrote %s\n", path);
    }
    if (plot) {
        char json[1024];
        snprintf(json, sizeof json, "%s/%s.json", dir, stem);
        snprintf(path, sizeof path, "%s/%s.svg", dir, stem);
        if (mb_plot_file(json, path, err, errlen)) return -1;
        fprintf(stderr, "wrote %s\n", path);
    }
    return 0;
}

int mb_sweep_update_tuning(const mb_sweep_t *sw, const char *kernel, const char *device, const char *path,
                           char *err, size_t errlen)
{
    mb_tuning_t t;
    if (mb_tuning_load(path, &t, err, errlen)) return -1;
    for (int g = 0; g < sw->n_groups; g++) {
        const mb_sweep_group_t *grp = &sw->groups[g];
        int splits[MB_SWEEP_MAX_POINTS], n = 0, best = 0, auto_plan_ranked = 0;
        double med[MB_SWEEP_MAX_POINTS], best_t = 0.0;
        /* The best explicit count that passed: "tuned" must name a count, and a failing one never wins.
         * Counts that repeat an earlier count's plan are not ranked (their times are that plan's noise);
         * one that repeats auto's plan is, as the smallest count that gives it. */
        for (int p = 1; p < grp->n_points && grp->point0 + p < sw->n_done; p++) {
            const mb_case_result_t *r = &grp->res[p];
            if (r->status != MB_CASE_PASS || r->time.n < 1) continue;
            splits[n] = grp->points[p].splits;
            med[n++] = r->time.median;
            if (grp->same[p] > 0 || (grp->same[p] == 0 && auto_plan_ranked++)) continue;
            if (!best || r->time.median < best_t) { best = grp->points[p].splits; best_t = r->time.median; }
        }
        if (!best) continue;
        char key[160];
        mb_tuning_key(grp->first, kernel, key, sizeof key);
        mb_tuning_set(&t, key, device, best, splits, med, n, grp->res[0].splits_max, grp->res[0].time.median);
    }
    int rc = mb_tuning_save(&t, err, errlen);
    if (!rc) fprintf(stderr, "wrote %s\n", path);
    mb_tuning_free(&t);
    return rc;
}

void mb_sweep_free(mb_sweep_t *sw)
{
    if (sw->res) for (int i = 0; i < sw->n_points; i++) mb_result_free_samples(&sw->res[i]);
    free(sw->groups);
    free(sw->cases);
    free(sw->res);
    memset(sw, 0, sizeof *sw);
}
