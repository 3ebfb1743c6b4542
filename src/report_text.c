/* Markdown and CSV results. Each document is built in memory and then written atomically. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

typedef void (*body_fn)(FILE *f, const mb_report_t *r);

static int write_doc(const mb_report_t *r, const char *path, body_fn body, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
    body(f, r);
    int bad = ferror(f);
    if (fclose(f) || bad) {
        free(buf);
        snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
        return -1;
    }
    int rc = mb_write_file_atomic(path, buf, len, err, errlen);
    free(buf);
    return rc;
}

static void stage_cell(FILE *f, double us, int md)
{
    if (us < 0) fprintf(f, md ? " | %9s" : "  %9s", "-");
    else fprintf(f, md ? " | %9.2f" : "  %9.2f", us);
}

void mb_report_stages(FILE *f, const mb_report_t *r, int md)
{
    int any = 0, w = 4, wp = 5;
    char pages[32];
    for (int i = 0; i < r->n_results; i++) {
        const mb_case_result_t *cr = &r->results[i];
        any |= cr->stage_median_us[MB_STAGE_DECODE] >= 0 || cr->c->q_quant != MB_Q_CAST || cr->c->plan_rebuild ||
               cr->c->page_size > 0 || cr->check.q_saturated || cr->check.q_below_normal;
        if ((int)strlen(cr->c->name) > w) w = (int)strlen(cr->c->name);
        mb_pages_text(pages, sizeof pages, cr->c);
        if ((int)strlen(pages) > wp) wp = (int)strlen(pages);
    }
    if (!any) return;
    const char *sep = md ? " | " : "  ";
    fprintf(f, "%s%s", md ? "\n" : "\n", md ? "Variants and per-stage GPU time (eager mode; medians of staged calls, with events between the stages, µs), Q range after quantisation:\n\n| "
                                           : "variants and per-stage GPU time (eager mode; medians of staged calls, with events between the stages, µs), Q range after quantisation:\n");
    fprintf(f, "%-*s%s%-7s%s%-7s%s%-*s", w, "case", sep, "q_quant", sep, "plan", sep, wp, "pages");
    fprintf(f, "%s%9s%s%9s%s%9s%s%9s%s%11s%s%11s%s%11s%s\n", sep, "plan", sep, "quant", sep, "decode", sep, "combine", sep,
            "staged call", sep, "Q saturated", sep, "Q < normal", md ? " |" : "");
    if (md) fprintf(f, "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < r->n_results; i++) {
        const mb_case_result_t *cr = &r->results[i];
        char name[300];
        mb_cell_text(name, sizeof name, cr->c->name, md);
        mb_pages_text(pages, sizeof pages, cr->c);
        fprintf(f, "%s%-*s%s%-7s%s%-7s%s%-*s", md ? "| " : "", w, name, sep, mb_q_quant_name(cr->c->q_quant), sep,
                cr->c->plan_rebuild ? "rebuild" : "cached", sep, wp, pages);
        for (int s = 0; s < MB_NSTAGES; s++) stage_cell(f, cr->stage_median_us[s], md);
        if (cr->staged_calls > 0) fprintf(f, md ? " | %11.2f" : "  %11.2f", cr->staged_total_us);
        else fprintf(f, md ? " | %11s" : "  %11s", "-");
        fprintf(f, "%s%11lld%s%11lld%s\n", sep, (long long)cr->check.q_saturated, sep, (long long)cr->check.q_below_normal,
                md ? " |" : "");
    }
}

static void md_body(FILE *f, const mb_report_t *r)
{
    const mb_env_t *e = &r->env;
    const char *cfg = r->config && r->config->path ? r->config->path : "-";
    fprintf(f, "# mla-bench results\n\n");
    fprintf(f, "- device: %s (%s %s, %d SMs)%s%s\n", e->device, e->vendor, e->arch, e->sm_count,
            e->gpu_id[0] ? ", " : "", e->gpu_id);
    fprintf(f, "- date: %s\n", e->date);
    fprintf(f, "- tool: mla-bench %s (commit %s)\n", e->tool_version, e->git_commit);
    const char *sets = r->config ? r->config->sets : NULL;
    fprintf(f, "- config: %s", cfg);
    if (sets) fprintf(f, " (%s)", sets);
    fputc('\n', f);
    fprintf(f, "- copy bandwidth: %.2f TB/s (device-to-device, measured)\n", e->copy_tbps);
    fprintf(f, "- launch floor: %.2f µs\n", e->launch_floor_us);
    if (e->sm_clock_max_mhz > 0) fprintf(f, "- SM clock peak: %.0f MHz (reported by the device)\n", e->sm_clock_max_mhz);
    if (e->module_loading[0]) fprintf(f, "- module loading: %s\n", e->module_loading);
    fprintf(f, "- fp8: %s\n\n", e->fp8_flavour);
    mb_report_table(f, r, MB_TABLE_MARKDOWN);
    mb_report_stages(f, r, 1);
    fputc('\n', f);
    mb_report_summary(f, r, 1);
}

int mb_report_write_md(const mb_report_t *r, const char *path, char *err, size_t errlen)
{
    return write_doc(r, path, md_body, err, errlen);
}

/* RFC 4180: a field holding a comma, quote or line break is quoted, its quotes doubled. */
void mb_csv_quoted(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_str(FILE *f, const char *s)
{
    fputc(',', f);
    mb_csv_quoted(f, s);
}

/* Not measured or not finite: an empty field, which spreadsheets and pandas read as missing. */
static void csv_num(FILE *f, double v, int have)
{
    char buf[32];
    fputc(',', f);
    if (!have || !isfinite(v)) return;
    mb_fmt_double(buf, v);
    fputs(buf, f);
}

static void csv_row(FILE *f, const mb_case_result_t *cr)
{
    const mb_case_t *c = cr->c;
    const mb_stats_t *t = &cr->time;
    const mb_check_t *k = &cr->check;
    int timed = t->n > 0, checked = k->n_total > 0, planned = cr->splits_max > 0;
    char splits[24];
    mb_splits_text(splits, sizeof splits, cr);
    mb_csv_quoted(f, c->name);
    csv_num(f, c->batch, 1);
    csv_num(f, c->q_len, 1);
    csv_str(f, c->kv_desc);
    csv_num(f, c->heads, 1);
    csv_str(f, splits);
    csv_str(f, mb_mode_name(c->mode));
    csv_str(f, mb_l2_name(c->l2));
    csv_str(f, cr->kernel);
    csv_num(f, t->median, timed);
    csv_num(f, t->mean, timed);
    csv_num(f, t->min, timed);
    csv_num(f, t->max, timed);
    csv_num(f, t->stddev, timed);
    csv_num(f, t->rse, timed);
    csv_num(f, t->n, 1);
    csv_num(f, cr->host_wall_us, timed);
    csv_num(f, cr->bytes, 1);
    csv_num(f, cr->tbps, timed);
    csv_num(f, cr->pct_copy, timed);
    csv_num(f, k->max_abs, checked);
    csv_num(f, k->rel_l2, checked);
    csv_num(f, k->row_rel_l2, checked);
    csv_num(f, k->cosine, checked);
    csv_num(f, (double)k->n_outside, checked);
    csv_num(f, k->fid_rel_l2, checked);
    csv_str(f, mb_q_quant_name(c->q_quant));
    csv_str(f, c->plan_rebuild ? "rebuild" : "cached");
    csv_num(f, c->page_size, 1);
    csv_str(f, c->page_size ? mb_page_order_name(c->page_order) : "");
    for (int s = 0; s < MB_NSTAGES; s++) csv_num(f, cr->stage_median_us[s], cr->stage_median_us[s] >= 0);
    csv_num(f, cr->staged_total_us, cr->staged_calls > 0);
    csv_num(f, (double)k->q_saturated, checked);
    csv_num(f, (double)k->q_below_normal, checked);
    csv_num(f, cr->placements, cr->placements > 0);
    csv_num(f, mb_placement_spread_pct(cr), timed && cr->placements > 0);
    csv_num(f, cr->sm_mhz, timed && cr->sm_mhz > 0);
    csv_str(f, !planned ? "" : cr->plan_built ? "built" : "cached");
    csv_str(f, mb_icache_name(c->icache));   /* a later column: earlier ones keep their places */
    csv_str(f, mb_status_name(cr->status));   /* last: scripts read it as $NF */
    fputc('\n', f);
}

static void csv_body(FILE *f, const mb_report_t *r)
{
    fputs("name,batch,q_len,kv,heads,splits,mode,l2,kernel,median_us,mean_us,min_us,max_us,stddev_us,rse,n,"
          "host_wall_us,bytes,tbps,pct_copy,max_abs,rel_l2,row_rel_l2,cosine,n_outside,fid_rel_l2,q_quant,plan_policy,page_size,page_order,"
          "plan_us,quant_us,decode_us,combine_us,staged_total_us,q_saturated,q_below_normal,placements,placement_spread_pct,sm_mhz,plan,icache,status\n", f);
    for (int i = 0; i < r->n_results; i++) csv_row(f, &r->results[i]);
}

int mb_report_write_csv(const mb_report_t *r, const char *path, char *err, size_t errlen)
{
    return write_doc(r, path, csv_body, err, errlen);
}
