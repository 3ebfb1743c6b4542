/* The results table (console and Markdown), the summary under it, and atomic file writes. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report.h"

enum {
    COL_NAME, COL_BATCH, COL_QLEN, COL_KV, COL_HEADS, COL_SPLITS, COL_MODE, COL_KERNEL, COL_MEDIAN,
    COL_RSE, COL_MIN, COL_N, COL_PLACES, COL_TBPS, COL_PCT, COL_HOST, COL_CLOCK, COL_REL, COL_FID, COL_PLAN, COL_CHECK, NCOL
};
/* A case name (127 bytes) with every byte escaped for Markdown still fits. */
enum { CELL = 272 };

typedef char row_t[NCOL][CELL];

static const struct { const char *title; int right; } cols[NCOL] = {
    {"case", 0}, {"batch", 1}, {"q_len", 1}, {"kv", 0}, {"heads", 1}, {"splits", 1}, {"mode", 0},
    {"kernel", 0}, {"median µs", 1}, {"±%", 1}, {"min µs", 1}, {"n", 1}, {"placements", 1}, {"TB/s", 1}, {"% copy", 1},
    {"host µs", 1}, {"SM MHz", 1}, {"err (row)", 1}, {"fp8 err", 1}, {"plan", 0}, {"check", 0},
};

const char *mb_status_name(mb_case_status_t s)
{
    return s == MB_CASE_PASS ? "pass" : s == MB_CASE_FAIL ? "fail" : "error";
}

void mb_splits_text(char *buf, size_t n, const mb_case_result_t *cr)
{
    char how = cr->splits_how ? cr->splits_how : cr->c->splits == 0 ? 'a' : 0;
    if (cr->splits_max > 0) snprintf(buf, n, "%d%s", cr->splits_max, how == 'a' ? "a" : how == 't' ? "t" : "");
    else mb_splits_request_text(cr->c->splits, buf, n);
}

double mb_placement_spread_pct(const mb_case_result_t *cr)
{
    if (cr->placements < 2 || !(cr->time.median > 0)) return 0.0;
    double lo = cr->placement_median_us[0], hi = lo;
    for (int i = 1; i < cr->placements; i++) {
        if (cr->placement_median_us[i] < lo) lo = cr->placement_median_us[i];
        if (cr->placement_median_us[i] > hi) hi = cr->placement_median_us[i];
    }
    return 100.0 * (hi - lo) / cr->time.median;
}

void mb_module_loading_text(char *buf, size_t n, const char *name, const char *value)
{
    if (value) snprintf(buf, n, "%s=%s", name, value);
    else snprintf(buf, n, "%s unset", name);
}

void mb_placements_text(char *buf, size_t n, const mb_case_result_t *cr)
{
    if (cr->placements < 1) snprintf(buf, n, "-");
    else if (cr->placements == 1) snprintf(buf, n, "1");
    else snprintf(buf, n, "%d, %.1f%%", cr->placements, mb_placement_spread_pct(cr));
}

void mb_pages_text(char *buf, size_t n, const mb_case_t *c)
{
    if (c->page_size > 0) snprintf(buf, n, "%d %s", c->page_size, mb_page_order_name(c->page_order));
    else snprintf(buf, n, "flat");
}

void mb_fmt_double(char buf[32], double d)
{
    for (int prec = 15; prec < 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) return;
    }
    snprintf(buf, 32, "%.17g", d);
}

/* Columns line up by what a terminal shows, and "µs", "±" or a UTF-8 name take more bytes than
 * columns: count code points (every byte that does not continue a sequence). */
static size_t disp_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

void mb_cell_text(char *out, size_t n, const char *s, int md)
{
    size_t o = 0;
    for (; *s && o + 3 < n; s++) {
        if (md && (*s == '|' || *s == '\\')) out[o++] = '\\';
        out[o++] = (unsigned char)*s < 0x20 ? ' ' : *s;
    }
    if (n) out[o] = '\0';
}
static void cell_text(char *cell, const char *s, int md) { mb_cell_text(cell, CELL, s, md); }

static void cell_num(char *cell, const char *fmt, double v, int have)
{
    if (have) snprintf(cell, CELL, fmt, v);
    else snprintf(cell, CELL, "-");
}

static void fill_row(row_t row, const mb_case_result_t *cr, int md)
{
    const mb_case_t *c = cr->c;
    int timed = cr->time.n > 0, checked = cr->check.n_total > 0, planned = cr->splits_max > 0;
    cell_text(row[COL_NAME], c->name, md);
    snprintf(row[COL_BATCH], CELL, "%d", c->batch);
    snprintf(row[COL_QLEN], CELL, "%d", c->q_len);
    cell_text(row[COL_KV], c->kv_desc, md);
    snprintf(row[COL_HEADS], CELL, "%d", c->heads);
    mb_splits_text(row[COL_SPLITS], CELL, cr);
    /* The cache settings beside the mode where they are not the defaults, so that a hot or cold-clean
     * time is not read as a cold one, nor a cold-code time as one with the code warm. */
    char l2[24] = "", ic[24] = "";
    if (c->l2 != MB_L2_COLD) snprintf(l2, sizeof l2, ", l2 %s", mb_l2_name(c->l2));
    if (c->icache != MB_ICACHE_WARM) snprintf(ic, sizeof ic, ", icache %s", mb_icache_name(c->icache));
    snprintf(row[COL_MODE], CELL, "%s%s%s", mb_mode_name(c->mode), l2, ic);
    cell_text(row[COL_KERNEL], cr->kernel[0] ? cr->kernel : "-", md);
    cell_num(row[COL_MEDIAN], "%.2f", cr->time.median, timed);
    cell_num(row[COL_RSE], "%.1f%%", cr->time.rse * 100.0, timed);
    cell_num(row[COL_MIN], "%.2f", cr->time.min, timed);
    cell_num(row[COL_N], "%.0f", cr->time.n, timed);
    if (timed) mb_placements_text(row[COL_PLACES], CELL, cr);
    else snprintf(row[COL_PLACES], CELL, "-");
    cell_num(row[COL_TBPS], "%.2f", cr->tbps, timed);
    cell_num(row[COL_PCT], "%.1f", cr->pct_copy, timed);
    cell_num(row[COL_HOST], "%.2f", cr->host_wall_us, timed);
    cell_num(row[COL_CLOCK], "%.0f", cr->sm_mhz, timed && cr->sm_mhz > 0);
    cell_num(row[COL_REL], "%.1e", cr->check.row_rel_l2, checked);
    cell_num(row[COL_FID], "%.1e", cr->check.fid_rel_l2, checked);
    snprintf(row[COL_PLAN], CELL, "%s", !planned ? "-" : cr->plan_built ? "built" : "cached");
    snprintf(row[COL_CHECK], CELL, "%s",
             cr->status == MB_CASE_PASS ? "PASS" : cr->status == MB_CASE_FAIL ? "FAIL" : "ERROR");
}

static void pad(FILE *f, size_t n)
{
    while (n--) fputc(' ', f);
}

/* color: the escape that starts the check cell, or NULL. The last console column is not padded, so
 * lines carry no trailing blanks. */
static void put_row(FILE *f, row_t row, const size_t *w, int md, const char *color)
{
    for (int j = 0; j < NCOL; j++) {
        size_t fill = w[j] - disp_width(row[j]);
        fputs(md ? (j ? " | " : "| ") : (j ? "  " : ""), f);
        if (cols[j].right) pad(f, fill);
        if (j == COL_CHECK && color) fprintf(f, "%s%s\033[0m", color, row[j]);
        else fputs(row[j], f);
        if (!cols[j].right && (md || j < NCOL - 1)) pad(f, fill);
    }
    fputs(md ? " |\n" : "\n", f);
}

/* Console: dashes under each title. Markdown: the delimiter row, ':' marking right-aligned columns. */
static void put_rule(FILE *f, const size_t *w, int md)
{
    for (int j = 0; j < NCOL; j++) {
        fputs(md ? (j ? " | " : "| ") : (j ? "  " : ""), f);
        for (size_t k = 0; k < w[j]; k++) fputc(md && cols[j].right && k + 1 == w[j] ? ':' : '-', f);
    }
    fputs(md ? " |\n" : "\n", f);
}

static const char *status_color(mb_case_status_t s)
{
    return s == MB_CASE_PASS ? "\033[32m" : "\033[31m";
}

void mb_report_table(FILE *f, const mb_report_t *r, mb_table_style_t style)
{
    int md = style == MB_TABLE_MARKDOWN;
    row_t *rows = malloc(sizeof(row_t) * (size_t)(r->n_results + 1));
    if (!rows) { fputs("(out of memory for the results table)\n", f); return; }
    size_t w[NCOL];
    for (int j = 0; j < NCOL; j++) {
        snprintf(rows[0][j], CELL, "%s", cols[j].title);
        /* GFM wants at least three characters in a delimiter cell to read well. */
        w[j] = md ? 3 : 0;
    }
    for (int i = 0; i < r->n_results; i++) fill_row(rows[i + 1], &r->results[i], md);
    for (int i = 0; i <= r->n_results; i++)
        for (int j = 0; j < NCOL; j++) {
            size_t d = disp_width(rows[i][j]);
            if (d > w[j]) w[j] = d;
        }
    put_row(f, rows[0], w, md, NULL);
    put_rule(f, w, md);
    for (int i = 0; i < r->n_results; i++)
        put_row(f, rows[i + 1], w, md,
                style == MB_TABLE_COLOR ? status_color(r->results[i].status) : NULL);
    free(rows);
}

void mb_report_summary(FILE *f, const mb_report_t *r, int markdown)
{
    int n[3] = {0, 0, 0};
    for (int i = 0; i < r->n_results; i++) n[r->results[i].status]++;
    const char *item = markdown ? "- " : "";
    fprintf(f, "%scases: %d pass, %d fail, %d error\n", item, n[MB_CASE_PASS], n[MB_CASE_FAIL],
            n[MB_CASE_ERROR]);
    if (r->interrupted)
        fprintf(f, "%sinterrupted: the run was stopped; only the %d finished cases are listed\n", item,
                r->n_results);
    for (int i = 0; i < r->n_results; i++) {
        const mb_case_result_t *cr = &r->results[i];
        if (cr->status == MB_CASE_ERROR) fprintf(f, "%sERROR %s: %s\n", item, cr->c->name, cr->error);
    }
    for (int i = 0; i < r->n_results; i++) {
        const mb_case_result_t *cr = &r->results[i];
        if (mb_sm_throttled(cr, &r->env))
            fprintf(f, "%sclock: %s ran at %.0f MHz, under %.0f%% of the SM's peak %.0f MHz (the chip's clock "
                    "management under this load, or another job on the GPU): its times are not the chip's best\n", item,
                    cr->c->name, cr->sm_mhz, MB_THROTTLE_FRACTION * 100.0, r->env.sm_clock_max_mhz);
        if (mb_noisy(cr))
            fprintf(f, "%snoise: %s stopped at %s with ±%.2f%%, short of its target ±%.2f%%: its time is known less "
                    "well than asked (raise \"max_seconds\", or look for other work on the GPU)\n", item, cr->c->name,
                    cr->stop_reason, cr->time.rse * 100.0, cr->c->target_rse * 100.0);
    }
}

int mb_noisy(const mb_case_result_t *cr)
{
    const char *why = cr->stop_reason;
    return cr->time.n > 0 && cr->c->target_rse > 0 && why && (!strcmp(why, "max_seconds") || !strcmp(why, "max_runs")) &&
           cr->time.rse > cr->c->target_rse;
}

int mb_sm_throttled(const mb_case_result_t *cr, const mb_env_t *e)
{
    return cr->sm_mhz > 0 && e->sm_clock_max_mhz > 0 && cr->sm_mhz < MB_THROTTLE_FRACTION * e->sm_clock_max_mhz;
}

void mb_report_print(FILE *f, const mb_report_t *r, int color)
{
    const mb_env_t *e = &r->env;
    mb_report_table(f, r, color ? MB_TABLE_COLOR : MB_TABLE_PLAIN);
    mb_report_stages(f, r, 0);
    fprintf(f, "\ndevice: %s (%s, %d SMs, fp8 %s); copy %.2f TB/s measured; launch floor %.2f µs; "
            "SM clock peak %.0f MHz%s%s\n", e->device, e->arch, e->sm_count, e->fp8_flavour, e->copy_tbps,
            e->launch_floor_us, e->sm_clock_max_mhz, e->module_loading[0] ? "; " : "", e->module_loading);
    mb_report_summary(f, r, 0);
}

static int write_parts(int fd, const mb_buf_t *parts, int nparts)
{
    for (int i = 0; i < nparts; i++) {
        const char *p = parts[i].data;
        size_t left = parts[i].len;
        while (left) {
            ssize_t k = write(fd, p, left);
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) return -1;
            p += k;
            left -= (size_t)k;
        }
    }
    return 0;
}

/* After the rename, so the new directory entry itself survives a power loss; a failure here leaves
 * a complete file behind and is not worth failing the write for. */
static void sync_dir(const char *path, int dirlen)
{
    char *dir = dirlen ? strndup(path, (size_t)dirlen) : strdup(".");
    if (!dir) return;
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) { fsync(fd); close(fd); }
    free(dir);
}

int mb_write_parts_atomic(const char *path, const mb_buf_t *parts, int nparts, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    if (!*base) { snprintf(err, errlen, "%s: not a file name", path); return -1; }
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    if (!tmp) { snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM)); return -1; }
    snprintf(tmp, tlen, "%.*s.%s.tmp.%ld", dirlen, path, base, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = write_parts(fd, parts, nparts) || fsync(fd);
    int e = errno;
    if (close(fd) && !rc) { rc = 1; e = errno; }
    if (!rc && rename(tmp, path)) { rc = 1; e = errno; }
    if (rc) {
        unlink(tmp);
        snprintf(err, errlen, "%s: %s", path, strerror(e));
    } else {
        sync_dir(path, dirlen);
    }
    free(tmp);
    return rc ? -1 : 0;
}

int mb_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    mb_buf_t part = {data, len};
    return mb_write_parts_atomic(path, &part, 1, err, errlen);
}

/* mkdir -p: every missing component is made; an existing one must be a directory. */
int mb_mkdir_p(const char *dir, char *err, size_t errlen)
{
    char *p = strdup(dir);
    if (!p || !*p) {
        snprintf(err, errlen, "%s: %s", dir, strerror(p ? ENOENT : ENOMEM));
        free(p);
        return -1;
    }
    int rc = 0;
    for (char *s = p + 1; !rc; s++) {
        if (*s != '/' && *s) continue;
        char keep = *s;
        *s = '\0';
        if (mkdir(p, 0777) && errno != EEXIST) rc = -1;
        *s = keep;
        if (!keep) break;
    }
    struct stat st;
    if (!rc && stat(p, &st)) rc = -1;
    else if (!rc && !S_ISDIR(st.st_mode)) { rc = -1; errno = ENOTDIR; }
    if (rc) snprintf(err, errlen, "%s: %s", dir, strerror(errno));
    free(p);
    return rc;
}

int mb_report_write_all(const mb_report_t *r, const char *dir, const char *stem, char *err, size_t errlen)
{
    static const struct {
        const char *ext;
        int (*write)(const mb_report_t *, const char *, char *, size_t);
    } outs[] = {{".json", mb_report_write_json}, {".md", mb_report_write_md}, {".csv", mb_report_write_csv}};
    if (mb_mkdir_p(dir, err, errlen)) return -1;
    size_t n = strlen(dir) + strlen(stem) + 8;
    char *path = malloc(n);
    if (!path) { snprintf(err, errlen, "%s: %s", dir, strerror(ENOMEM)); return -1; }
    int rc = 0;
    for (size_t i = 0; i < sizeof outs / sizeof outs[0] && !rc; i++) {
        snprintf(path, n, "%s/%s%s", dir, stem, outs[i].ext);
        rc = outs[i].write(r, path, err, errlen);
        if (!rc) fprintf(stderr, "wrote %s\n", path);
    }
    free(path);
    return rc;
}
