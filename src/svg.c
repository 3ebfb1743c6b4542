/* SVG charts: each document is printed into memory, then written atomically. There are no font
 * metrics here, so text widths are estimated generously and margins are sized from those estimates. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "svg.h"

enum { FS_TICK = 11, FS_NOTE = 11, FS_LEGEND = 12, FS_AXIS = 13, FS_PANEL = 14, FS_TITLE = 16, MAXT = 40 };
#define ROT_DEG 35.0
#define LEGEND_ROW 18.0
#define FONTS "DejaVu Sans, Helvetica, Arial, sans-serif"
/* White outline under labels that sit on data (reference lines, marks), so they stay readable over bars. */
#define HALO " paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\""

/* Tableau 10: distinct, and still tellable apart by most colour-blind readers. */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

typedef struct {
    int cat, log2, n;       /* categorical (n categories), log2 or linear */
    double lo, hi;          /* domain, in log2 units on a log axis */
    double t[MAXT];         /* tick positions, domain units */
    int nt, dec;            /* tick count; decimals of tick labels, -1 = %g */
} axis_t;

typedef struct { double left, right, top, bottom, pw, ph; } layout_t;

/* About 0.6 em a character for DejaVu Sans and Helvetica; counts code points, so "µ" is one. */
static double text_w(const char *s, double fs)
{
    size_t n = 0;
    for (; s && *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return (double)n * fs * 0.6;
}

static int has(const char *s) { return s && *s; }

static void put_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        /* XML 1.0 forbids most control characters outright; one would make the file unreadable. */
        default: fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
        }
    }
}

static void text(FILE *f, double x, double y, int fs, const char *anchor, const char *extra, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s>", x, y, fs, anchor,
            extra ? extra : "");
    put_esc(f, s);
    fputs("</text>\n", f);
}

static void put_color(FILE *f, const char *attr, const char *color)
{
    fprintf(f, " %s=\"", attr);
    put_esc(f, color);
    fputc('"', f);
}

static const char *series_color(const mb_svg_chart_t *c, int si)
{
    const char *col = c->series[si].color;
    return col ? col : palette[si % (int)(sizeof palette / sizeof *palette)];
}

static int style_of(const mb_svg_series_t *s) { return s->style ? s->style : MB_SVG_POINTS; }

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- axes ---- */

/* A 1-2-5 step giving about target intervals over span. */
static double nice_step(double span, int target)
{
    double raw = span / (target < 2 ? 2 : target), mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
}

/* Ticks at multiples of a nice step; expand widens the domain to whole steps so both ends are labelled. */
static void linear_ticks(axis_t *a, int target, int expand)
{
    double step = nice_step(a->hi - a->lo, target);
    if (expand) {
        a->lo = floor(a->lo / step + 1e-9) * step;
        a->hi = ceil(a->hi / step - 1e-9) * step;
    }
    a->nt = 0;
    for (double k = ceil(a->lo / step - 1e-9); a->nt < MAXT && k * step <= a->hi + step * 1e-9; k++)
        a->t[a->nt++] = k == 0 ? 0.0 : k * step;   /* never "-0" */
    double d = -floor(log10(step) + 1e-9);
    a->dec = d > 0 ? (int)d : 0;
    /* Past 4 decimals or 7 digits, "5e-6" and "2e9" read better than a row of zeros. */
    if (a->dec > 4 || fabs(a->lo) >= 1e7 || fabs(a->hi) >= 1e7) a->dec = -1;
}

static void tick_label(char *b, size_t n, const axis_t *a, double t)
{
    if (a->dec >= 0 && !a->log2) { snprintf(b, n, "%.*f", a->dec, t); return; }
    if (a->log2 && t >= 0 && t < 53) { snprintf(b, n, "%.0f", exp2(t)); return; }   /* 1024, not 1.024e3 */
    snprintf(b, n, "%g", a->log2 ? exp2(t) : t);
    /* "2e+09" -> "2e9", "5e-06" -> "5e-6". */
    char *e = strchr(b, 'e'), *d = e ? e + 1 : NULL;
    if (!e) return;
    if (*d == '-') d++;
    char *z = d + (*d == '+');
    while (*z == '0' && z[1]) z++;
    memmove(d, z, strlen(z) + 1);
}

typedef struct { double lo, hi; } range_t;

static void grow(range_t *r, double v)
{
    if (!isfinite(v)) return;
    if (v < r->lo) r->lo = v;
    if (v > r->hi) r->hi = v;
}

/* An x value in axis units, NaN where it cannot be drawn. */
static double x_units(const mb_svg_chart_t *c, double v)
{
    if (c->x_log2) return v > 0 ? log2(v) : NAN;
    return v;
}

static int has_bars(const mb_svg_chart_t *c)
{
    for (int i = 0; i < c->n_series; i++)
        if (style_of(&c->series[i]) & MB_SVG_BARS) return 1;
    return 0;
}

/* Point i of series s has a place on the x axis: inside the category list, or a finite x (positive on log2). */
static int x_ok(const mb_svg_chart_t *c, const mb_svg_series_t *s, int i)
{
    if (c->categories) return i < c->n_categories;
    return isfinite(x_units(c, s->x ? s->x[i] : i));
}

static int point_ok(const mb_svg_chart_t *c, const mb_svg_series_t *s, int i)
{
    return isfinite(s->y[i]) && x_ok(c, s, i);
}

static void setup_axes(const mb_svg_chart_t *c, const layout_t *L, axis_t *x, axis_t *y)
{
    range_t rx = {INFINITY, -INFINITY}, ry = {INFINITY, -INFINITY};
    for (int si = 0; si < c->n_series; si++) {
        const mb_svg_series_t *s = &c->series[si];
        for (int i = 0; s->y && i < s->n; i++) {
            /* A failed point keeps its x: a sweep's axis spans every value swept. */
            if (x_ok(c, s, i) && !c->categories) grow(&rx, x_units(c, s->x ? s->x[i] : i));
            if (!point_ok(c, s, i)) continue;
            grow(&ry, s->y[i]);
            if (s->yerr && isfinite(s->yerr[i])) {
                grow(&ry, s->y[i] - fabs(s->yerr[i]));
                grow(&ry, s->y[i] + fabs(s->yerr[i]));
            }
        }
    }
    for (int i = 0; i < c->n_hlines; i++) grow(&ry, c->hlines[i].y);
    for (int i = 0; i < c->n_marks; i++) {
        if (!isfinite(c->marks[i].y) || !isfinite(x_units(c, c->marks[i].x))) continue;
        grow(&ry, c->marks[i].y);
        if (!c->categories) grow(&rx, x_units(c, c->marks[i].x));
    }
    /* Bars are read by their length, so their baseline must be zero. */
    if (c->y_from_zero || has_bars(c)) grow(&ry, 0);

    memset(y, 0, sizeof *y);
    double span = ry.hi - ry.lo;
    if (!(span >= 0) || (span == 0 && ry.hi == 0)) ry = (range_t){0, 1};   /* nothing, or only zeros */
    else {
        /* Headroom so no point sits on the frame, except at a zero baseline. */
        double pad = span > 0 ? span * 0.05 : fabs(ry.hi) * 0.1;
        if (ry.lo != 0) ry.lo -= pad;
        if (ry.hi != 0) ry.hi += pad;
    }
    y->lo = ry.lo;
    y->hi = ry.hi;
    linear_ticks(y, (int)(L->ph / 55), 1);

    memset(x, 0, sizeof *x);
    if (c->categories) {
        x->cat = 1;
        x->n = c->n_categories > 0 ? c->n_categories : 1;
        x->lo = -0.5;
        x->hi = x->n - 0.5;
    } else if (c->x_log2) {
        x->log2 = 1;
        if (rx.lo > rx.hi) rx = (range_t){0, 3};
        /* Whole powers of two at both ends, a quarter octave beyond them so end points are not cut. */
        double e0 = floor(rx.lo + 1e-9), e1 = ceil(rx.hi - 1e-9);
        if (e0 == e1) { e0--; e1++; }
        x->lo = e0 - 0.25;
        x->hi = e1 + 0.25;
        int stride = (int)ceil((e1 - e0) / 10.0);
        for (double e = e0; e <= e1 && x->nt < MAXT; e += stride) x->t[x->nt++] = e;
    } else {
        if (rx.lo > rx.hi) rx = (range_t){0, 1};
        double pad = rx.hi > rx.lo ? (rx.hi - rx.lo) * 0.04 : (rx.hi ? fabs(rx.hi) * 0.1 : 1);
        x->lo = rx.lo - pad;
        x->hi = rx.hi + pad;
        linear_ticks(x, (int)(L->pw / 90), 0);
    }
}

/* Domain units to pixels, p0 at lo and p1 at hi. */
static double map_t(const axis_t *a, double t, double p0, double p1)
{
    return p0 + (t - a->lo) / (a->hi - a->lo) * (p1 - p0);
}

/* ---- layout ---- */

static void marker(FILE *f, int shape, double x, double y, double r, const char *color, const char *cls)
{
    switch (shape % 4) {
    case 0: fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", x, y, r); break;
    case 1: fprintf(f, "<path d=\"M%.1f %.1fl%.1f %.1fl%.1f %.1fl%.1f %.1fz\"", x, y - 1.35 * r,
                    1.35 * r, 1.35 * r, -1.35 * r, 1.35 * r, -1.35 * r, -1.35 * r); break;
    case 2: fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x - r, y - r,
                    2 * r, 2 * r); break;
    default: fprintf(f, "<path d=\"M%.1f %.1fl%.1f %.1fh%.1fz\"", x, y - 1.3 * r, 1.2 * r,
                     2.1 * r, -2.4 * r);
    }
    put_color(f, "fill", color);
    fprintf(f, " stroke=\"#fff\" stroke-width=\"1\"%s/>\n", cls);
}

/* Lays out (and, with f, draws) the legend in rows from (x0, y0) within width w; returns the row count. */
static int legend(FILE *f, const mb_svg_chart_t *c, double x0, double y0, double w)
{
    double x = x0;
    int rows = 0;
    for (int si = 0; si < c->n_series; si++) {
        const mb_svg_series_t *s = &c->series[si];
        if (!has(s->label)) continue;
        double ew = 28 + text_w(s->label, FS_LEGEND) + 16;
        if (!rows || (x + ew > x0 + w && x > x0)) { rows++; x = x0; }
        if (f) {
            double cy = y0 + (rows - 1) * LEGEND_ROW;
            int st = style_of(s);
            const char *col = series_color(c, si);
            if (st & MB_SVG_BARS) {
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\"", x + 4, cy - 6);
                put_color(f, "fill", col);
                fputs("/>\n", f);
            }
            if (st & MB_SVG_LINE) {
                fprintf(f, "<path d=\"M%.1f %.1fh22\" stroke-width=\"2\"", x, cy);
                put_color(f, "stroke", col);
                fputs("/>\n", f);
            }
            if (st & MB_SVG_POINTS) marker(f, si, x + 11, cy, 4, col, "");
            text(f, x + 28, cy + 4, FS_LEGEND, "start", NULL, s->label);
        }
        x += ew;
    }
    return rows;
}

static double title_h(const mb_svg_chart_t *c, int tfs) { return has(c->title) ? tfs + 14 : 6; }

static double ytick_w(const axis_t *y)
{
    double w = 0;
    char b[64];
    for (int i = 0; i < y->nt; i++) {
        tick_label(b, sizeof b, y, y->t[i]);
        if (text_w(b, FS_TICK) > w) w = text_w(b, FS_TICK);
    }
    return w;
}

/* Height under the plot taken by the x tick labels. */
static double x_below(const mb_svg_chart_t *c, const axis_t *x)
{
    double below = FS_TICK + 10, sn = sin(ROT_DEG * M_PI / 180), cs = cos(ROT_DEG * M_PI / 180);
    if (x->cat) {
        below = 0;
        for (int i = 0; i < c->n_categories; i++)
            below = fmax(below, text_w(c->categories[i], FS_TICK) * sn + FS_TICK * cs);
        below += 12;
    }
    return below;
}

/* Margins this chart needs around a plot of L->pw x L->ph; only grows those in L. */
static void measure(const mb_svg_chart_t *c, const axis_t *x, const axis_t *y, int tfs, layout_t *L)
{
    double cs = cos(ROT_DEG * M_PI / 180);
    int rows = legend(NULL, c, 0, 0, L->pw);
    double top = title_h(c, tfs) + rows * LEGEND_ROW + (rows ? 4 : 6);
    double left = 12 + (has(c->y_label) ? FS_AXIS + 8 : 0) + ytick_w(y) + 9;
    double below = x_below(c, x), right = 20;
    if (x->cat) {
        double band = L->pw / x->n;
        for (int i = 0; i < c->n_categories; i++) {
            double w = text_w(c->categories[i], FS_TICK);
            /* A rotated label hangs down and to the left of its tick; the first ones may reach past the axis. */
            if (w * cs - band * (i + 0.5) + 8 > left) left = w * cs - band * (i + 0.5) + 8;
        }
    } else if (x->nt) {
        char b[64];
        tick_label(b, sizeof b, x, x->t[x->nt - 1]);
        double over = text_w(b, FS_TICK) / 2 - L->pw * (x->hi - x->t[x->nt - 1]) / (x->hi - x->lo) + 6;
        if (over > right) right = over;
    }
    double bottom = below + (has(c->x_label) ? FS_AXIS + 12 : 0) + 6;
    if (top > L->top) L->top = top;
    if (left > L->left) L->left = left;
    if (right > L->right) L->right = right;
    if (bottom > L->bottom) L->bottom = bottom;
}

/* ---- drawing ---- */

/* What labels on the plot must not cover: boxes (bars, points, error bars, placed labels) and segments
 * (the data lines, reference lines). */
typedef struct { double x0, y0, x1, y1; int seg; } obst_t;
typedef struct { obst_t *v; int n, cap, oom; double x0, x1, yt, yb; } plot_t;

static void obst(plot_t *p, double x0, double y0, double x1, double y1, int seg)
{
    if (p->n == p->cap) {
        obst_t *nv = realloc(p->v, sizeof *nv * (size_t)(p->cap = 2 * p->cap + 64));
        if (!nv) { p->oom = 1; p->cap = p->n; return; }
        p->v = nv;
    }
    if (!seg && x0 > x1) { double t = x0; x0 = x1; x1 = t; }
    if (!seg && y0 > y1) { double t = y0; y0 = y1; y1 = t; }
    p->v[p->n++] = (obst_t){x0, y0, x1, y1, seg};
}

/* Does o touch the box [x0,x1] x [y0,y1]? Segments are clipped to the box (Liang-Barsky). */
static int hits(const obst_t *o, double x0, double y0, double x1, double y1)
{
    if (!o->seg) return o->x0 < x1 && o->x1 > x0 && o->y0 < y1 && o->y1 > y0;
    double dx = o->x1 - o->x0, dy = o->y1 - o->y0, t0 = 0, t1 = 1;
    double pp[4] = {-dx, dx, -dy, dy}, q[4] = {o->x0 - x0, x1 - o->x0, o->y0 - y0, y1 - o->y0};
    for (int i = 0; i < 4; i++) {
        if (pp[i] == 0) { if (q[i] < 0) return 0; continue; }
        double r = q[i] / pp[i];
        if (pp[i] < 0 && r > t0) t0 = r;
        if (pp[i] > 0 && r < t1) t1 = r;
        if (t0 > t1) return 0;
    }
    return 1;
}

/* Draws a label at the first of the nc candidate boxes (left, top, alignment: 0 start, 0.5 middle, 1 end)
 * that lies inside the plot and covers nothing, else at the inside one covering least; the label then
 * becomes an obstacle. The text is anchored on the side it is aligned to, so a width estimated too wide
 * leaves a gap on the far side rather than a label away from its line or mark. */
static void place(FILE *f, plot_t *p, const double (*cand)[3], int nc, const char *s, int bold)
{
    double w = text_w(s, FS_NOTE) * (bold ? 1.1 : 1), h = FS_NOTE * 1.25;
    int best = -1, best_hits = 0;
    for (int k = 0; k < nc && (best < 0 || best_hits); k++) {
        double bx = cand[k][0], by = cand[k][1];
        if (bx < p->x0 + 2 || bx + w > p->x1 - 2 || by < p->yt + 1 || by + h > p->yb - 1) continue;
        int n = 0;
        for (int i = 0; i < p->n; i++) n += hits(&p->v[i], bx, by, bx + w, by + h);
        if (best < 0 || n < best_hits) { best = k; best_hits = n; }
    }
    int k = best >= 0 ? best : 0;
    double al = cand[k][2];
    double bx = best >= 0 ? cand[k][0] : clampd(cand[0][0], p->x0 + 2, fmax(p->x0 + 2, p->x1 - 2 - w));
    double by = best >= 0 ? cand[k][1] : clampd(cand[0][1], p->yt + 1, fmax(p->yt + 1, p->yb - 1 - h));
    text(f, bx + al * w, by + FS_NOTE * 0.95, FS_NOTE, al == 0 ? "start" : al == 1 ? "end" : "middle",
         bold ? HALO " font-weight=\"bold\"" : HALO, s);
    obst(p, bx, by, bx + w, by + h, 0);
}

/* Reference line labels (at either end or the middle, above or below the line), then mark labels (around
 * the ring), each where it covers no data. */
static void labels(FILE *f, const mb_svg_chart_t *c, const axis_t *x, const axis_t *y, plot_t *p)
{
    double h = FS_NOTE * 1.25;
    for (int i = 0; i < c->n_hlines; i++) {
        const mb_svg_hline_t *hl = &c->hlines[i];
        if (!isfinite(hl->y) || !has(hl->label)) continue;
        double py = map_t(y, hl->y, p->yb, p->yt), w = text_w(hl->label, FS_NOTE);
        double xr = p->x1 - 4 - w, xl = p->x0 + 4, xm = (p->x0 + p->x1 - w) / 2, up = py - 2 - h, dn = py + 2;
        const double cand[6][3] = {{xr, up, 1}, {xr, dn, 1}, {xl, up, 0}, {xl, dn, 0}, {xm, up, .5}, {xm, dn, .5}};
        place(f, p, cand, 6, hl->label, 0);
    }
    for (int i = 0; i < c->n_marks; i++) {
        const mb_svg_mark_t *m = &c->marks[i];
        double xu = x->cat ? m->x : x_units(c, m->x);
        if (!isfinite(m->y) || !isfinite(xu) || !has(m->label)) continue;
        double px = map_t(x, xu, p->x0, p->x1), py = map_t(y, m->y, p->yb, p->yt);
        if (px < p->x0 || px > p->x1) continue;   /* a ring clipped away needs no label */
        double w = text_w(m->label, FS_NOTE) * 1.1, r = 11;
        const double cand[8][3] = {{px + r, py - r - h, 0}, {px - r - w, py - r - h, 1}, {px + r, py + r, 0},
                                   {px - r - w, py + r, 1}, {px - w / 2, py - r - h - 4, .5},
                                   {px - w / 2, py + r + 4, .5}, {px + r + 2, py - h / 2, 0},
                                   {px - r - 2 - w, py - h / 2, 1}};
        place(f, p, cand, 8, m->label, 1);
    }
}

/* Draws one chart at (ox, oy); id names its clip path. Returns the number of values drawn, -1 on no memory. */
static int render(FILE *f, const mb_svg_chart_t *c, const axis_t *x, const axis_t *y, const layout_t *L,
                  double ox, double oy, int id, int tfs)
{
    double x0 = L->left, x1 = x0 + L->pw, yt = L->top, yb = yt + L->ph;
    double cs = cos(ROT_DEG * M_PI / 180);
    char b[64];
    plot_t pl = {NULL, 0, 0, 0, x0, x1, yt, yb};
    fprintf(f, "<g transform=\"translate(%.1f,%.1f)\">\n", ox, oy);
    if (has(c->title))
        text(f, tfs == FS_TITLE ? 12 : x0, 6 + tfs, tfs, "start", " font-weight=\"bold\"", c->title);
    legend(f, c, x0, title_h(c, tfs) + 9, L->pw);

    /* Grid lines and ticks. */
    for (int i = 0; i < y->nt; i++) {
        double py = map_t(y, y->t[i], yb, yt);
        fprintf(f, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"#e3e3e3\"/>\n", x0, py, x1);
        tick_label(b, sizeof b, y, y->t[i]);
        text(f, x0 - 8, py + 4, FS_TICK, "end", NULL, b);
    }
    for (int i = 0; i < (x->cat ? c->n_categories : x->nt); i++) {
        double px = map_t(x, x->cat ? i : x->t[i], x0, x1);
        if (x->cat) {
            fprintf(f, "<path d=\"M%.1f %.1fv5\" stroke=\"#444\"/>\n", px, yb);
            /* Anchored at its end, so the label's last character sits under its bar. */
            fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-%g)\" font-size=\"%d\" text-anchor=\"end\">",
                    px + FS_TICK * 0.35 * cs, yb + 10, ROT_DEG, FS_TICK);
            put_esc(f, c->categories[i]);
            fputs("</text>\n", f);
        } else {
            fprintf(f, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#e3e3e3\"/>\n", px, yt, yb);
            fprintf(f, "<path d=\"M%.1f %.1fv5\" stroke=\"#444\"/>\n", px, yb);
            tick_label(b, sizeof b, x, x->t[i]);
            text(f, px, yb + 8 + FS_TICK, FS_TICK, "middle", NULL, b);
        }
    }

    /* Data, clipped to the plot so nothing strays over the axes or the labels. */
    fprintf(f, "<clipPath id=\"plot%d\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n",
            id, x0, yt, L->pw, L->ph);
    fprintf(f, "<g clip-path=\"url(#plot%d)\">\n", id);
    if (y->lo < 0 && y->hi > 0)
        fprintf(f, "<path class=\"zero\" d=\"M%.1f %.1fH%.1f\" stroke=\"#333\" stroke-width=\"1.3\"/>\n", x0,
                map_t(y, 0, yb, yt), x1);
    for (int i = 0; i < c->n_hlines; i++) {
        const mb_svg_hline_t *h = &c->hlines[i];
        if (!isfinite(h->y)) continue;
        double py = map_t(y, h->y, yb, yt);
        fprintf(f, "<path class=\"hline\" d=\"M%.1f %.1fH%.1f\" stroke-width=\"1.6\"%s", x0, py, x1,
                h->dashed ? " stroke-dasharray=\"7 4\"" : "");
        obst(&pl, x0, py, x1, py, 1);
        put_color(f, "stroke", h->color ? h->color : "#555");
        fputs("/>\n", f);
    }
    int nbars = 0, bi = 0, drawn = 0;
    /* Series without points (legend entries only) take no slot. */
    for (int si = 0; si < c->n_series; si++)
        nbars += (style_of(&c->series[si]) & MB_SVG_BARS) && c->series[si].y && c->series[si].n > 0;
    double y0p = map_t(y, clampd(0, y->lo, y->hi), yb, yt);
    for (int si = 0; si < c->n_series; si++) {
        const mb_svg_series_t *s = &c->series[si];
        int st = style_of(s), n = s->y ? s->n : 0, pen = 0;
        if (n <= 0) continue;
        const char *col = series_color(c, si);
        /* Bars of several series share each category's slot side by side. */
        double gw = x->cat ? L->pw / x->n * 0.72 : fmin(40, L->pw / (n + 1) * 0.6);
        double bw = gw / (nbars ? nbars : 1);
        double *px = malloc(sizeof *px * (size_t)n);   /* a point's x (a bar's centre), NaN = skipped */
        if (!px) { free(pl.v); return -1; }
        for (int i = 0; i < n; i++) {
            px[i] = NAN;
            if (!point_ok(c, s, i)) continue;
            px[i] = map_t(x, x->cat ? i : x_units(c, s->x ? s->x[i] : i), x0, x1);
            if (st & MB_SVG_BARS) px[i] += -gw / 2 + (bi + 0.5) * bw;
            drawn++;
        }
        if (st & MB_SVG_BARS) {
            for (int i = 0; i < n; i++) {
                if (isnan(px[i])) continue;
                double vp = map_t(y, clampd(s->y[i], y->lo, y->hi), yb, yt);
                obst(&pl, px[i] - bw * 0.46, vp, px[i] + bw * 0.46, y0p, 0);
                fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
                        px[i] - bw * 0.46, fmin(vp, y0p), bw * 0.92, fmax(fabs(vp - y0p), 0.8));
                put_color(f, "fill", s->colors && s->colors[i] ? s->colors[i] : col);
                fputs("/>\n", f);
            }
            bi++;
        }
        if (st & MB_SVG_LINE) {
            double lx = 0, ly = 0;
            fputs("<path class=\"line\" d=\"", f);
            for (int i = 0; i < n; i++) {
                if (isnan(px[i])) { pen = 0; continue; }   /* a missing value breaks the line */
                double py = map_t(y, s->y[i], yb, yt);
                fprintf(f, "%s%.1f %.1f", pen ? "L" : "M", px[i], py);
                obst(&pl, pen ? lx : px[i], pen ? ly : py, px[i], py, 1);
                lx = px[i];
                ly = py;
                pen = 1;
            }
            fputs("\" fill=\"none\" stroke-width=\"2.2\" stroke-linejoin=\"round\"", f);
            put_color(f, "stroke", col);
            fputs("/>\n", f);
        }
        for (int i = 0; s->yerr && i < n; i++) {
            if (isnan(px[i]) || !isfinite(s->yerr[i])) continue;
            double e = fabs(s->yerr[i]), cap = fmin(bw * 0.25, 6);
            double lo = map_t(y, s->y[i] - e, yb, yt), hi = map_t(y, s->y[i] + e, yb, yt);
            obst(&pl, px[i] - cap, lo, px[i] + cap, hi, 0);
            fprintf(f, "<path class=\"err\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh%.1fM%.1f %.1fh%.1f\" stroke=\"#222\" "
                    "stroke-width=\"1.3\" fill=\"none\"/>\n", px[i], lo, hi, px[i] - cap, lo, 2 * cap, px[i] - cap,
                    hi, 2 * cap);
        }
        if (st & MB_SVG_POINTS)
            for (int i = 0; i < n; i++)
                if (!isnan(px[i])) {
                    double py = map_t(y, s->y[i], yb, yt);
                    marker(f, si, px[i], py, 4.5, col, " class=\"pt\"");
                    obst(&pl, px[i] - 6, py - 6, px[i] + 6, py + 6, 0);
                }
        free(px);
    }
    for (int i = 0; i < c->n_marks; i++) {
        const mb_svg_mark_t *m = &c->marks[i];
        double xu = x->cat ? m->x : x_units(c, m->x);
        if (!isfinite(m->y) || !isfinite(xu)) continue;
        double px = map_t(x, xu, x0, x1), py = map_t(y, m->y, yb, yt);
        fprintf(f, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#111\" "
                "stroke-width=\"2\"/>\n", px, py);
        obst(&pl, px - 10, py - 10, px + 10, py + 10, 0);
    }
    fputs("</g>\n", f);

    fprintf(f, "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"#444\"/>\n", x0, yt, yb, x1);
    labels(f, c, x, y, &pl);
    free(pl.v);
    if (!drawn) text(f, (x0 + x1) / 2, (yt + yb) / 2, FS_AXIS, "middle", " fill=\"#888\"", "no data");
    if (has(c->x_label)) text(f, (x0 + x1) / 2, yb + x_below(c, x) + FS_AXIS + 4, FS_AXIS, "middle", NULL, c->x_label);
    if (has(c->y_label)) {
        fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" font-size=\"%d\" text-anchor=\"middle\">",
                x0 - 9 - ytick_w(y) - 8, (yt + yb) / 2, FS_AXIS);
        put_esc(f, c->y_label);
        fputs("</text>\n", f);
    }
    fputs("</g>\n", f);
    return pl.oom ? -1 : drawn;
}

/* The document: n charts in a grid of cols, one shared plot size and margins; single: one chart whose
 * own title is the headline. */
static int write_svg(const char *path, const char *title, const mb_svg_chart_t *p, int n, int cols, int single,
                     char *err, size_t errlen)
{
    if (n < 0 || (n && !p)) { snprintf(err, errlen, "%s: no chart to draw", path); return -1; }
    if (cols <= 0) cols = (int)ceil(sqrt(n));
    if (cols > n) cols = n;
    if (cols < 1) cols = 1;
    int rows = (n + cols - 1) / cols, tfs = single ? FS_TITLE : FS_PANEL, rc = 0;
    axis_t *ax = calloc(2 * (size_t)(n ? n : 1), sizeof *ax);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = ax ? open_memstream(&buf, &len) : NULL;
    if (!f) { free(ax); snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM)); return -1; }

    int ncat = 0;
    for (int i = 0; i < n; i++)
        if (p[i].categories && p[i].n_categories > ncat) ncat = p[i].n_categories;
    /* Room for every category: rotated labels need about 30 px each to stay apart. */
    layout_t L = {0, 0, 0, 0, single ? 600 : 320, single ? 320 : 200};
    if (ncat * (single ? 34 : 30) > L.pw) L.pw = ncat * (single ? 34 : 30);
    for (int i = 0; i < n; i++) {
        setup_axes(&p[i], &L, &ax[2 * i], &ax[2 * i + 1]);
        measure(&p[i], &ax[2 * i], &ax[2 * i + 1], tfs, &L);
    }
    double cw = L.left + L.pw + L.right, ch = L.top + L.ph + L.bottom, head = has(title) ? FS_TITLE + 18 : 0;
    for (int i = 0; i < n; i++)
        if (has(p[i].title)) cw = fmax(cw, (single ? 12 : L.left) + text_w(p[i].title, tfs) * 1.1 + 12);
    double w = fmax(cols * cw, has(title) ? text_w(title, FS_TITLE) * 1.1 + 24 : 0), h = head + rows * ch;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"" FONTS "\" fill=\"#222\">\n", ceil(w), ceil(h), ceil(w), ceil(h));
    fprintf(f, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", ceil(w), ceil(h));
    if (has(title)) text(f, 12, 8 + FS_TITLE, FS_TITLE, "start", " font-weight=\"bold\"", title);
    for (int i = 0; i < n && rc >= 0; i++)
        rc = render(f, &p[i], &ax[2 * i], &ax[2 * i + 1], &L, (i % cols) * cw, head + (i / cols) * ch, i, tfs);
    fputs("</svg>\n", f);
    int bad = ferror(f) || rc < 0;
    free(ax);
    if (fclose(f) || bad) {
        free(buf);
        snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
        return -1;
    }
    rc = mb_write_file_atomic(path, buf, len, err, errlen);
    free(buf);
    return rc;
}

int mb_svg_write_chart(const char *path, const mb_svg_chart_t *chart, char *err, size_t errlen)
{
    return write_svg(path, NULL, chart, chart ? 1 : -1, 1, 1, err, errlen);
}

int mb_svg_write_grid(const char *path, const char *title, const mb_svg_chart_t *panels, int n, int cols,
                      char *err, size_t errlen)
{
    return write_svg(path, title, panels, n, cols, 0, err, errlen);
}
