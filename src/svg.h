/* Small self-contained SVG charts for reports: bars on a categorical axis, lines and points on a linear
 * or log2 axis, error bars, labelled horizontal reference lines and highlighted points, alone or as a
 * grid of small multiples. Output is deterministic (same input, same bytes) and written atomically.
 * Non-finite values are skipped, never written; all text is XML-escaped. */
#ifndef MB_SVG_H
#define MB_SVG_H

#include <stddef.h>

/* May be OR-ed: MB_SVG_LINE | MB_SVG_POINTS draws a line through marked points. 0 means points. */
typedef enum { MB_SVG_LINE = 1, MB_SVG_POINTS = 2, MB_SVG_BARS = 4 } mb_svg_style_t;

typedef struct mb_svg_series {
    const char *label;            /* legend text; NULL = no legend entry */
    const double *x, *y;          /* x NULL, or on a categorical axis: the index is x */
    int n;                        /* n = 0 with a label: a legend entry alone (e.g. a bar colour's meaning) */
    const double *yerr;           /* optional symmetric error bars (half-widths); NULL = none */
    const char *color;            /* "#rrggbb"; NULL = next palette colour */
    const char *const *colors;    /* optional per-point colours (bars); NULL or a NULL entry = color */
    int style;                    /* mb_svg_style_t bits */
} mb_svg_series_t;

/* A horizontal reference line across the plot, its label just above or below it: at the right end where
 * that covers no data, else at the left end or the middle. */
typedef struct mb_svg_hline {
    double y;
    const char *label;            /* NULL = no label */
    int dashed;
    const char *color;            /* NULL = dark grey */
} mb_svg_hline_t;

/* A highlighted point: a ring around (x, y), its label (bold) beside the ring where it covers no data;
 * x is the index on a categorical axis. */
typedef struct mb_svg_mark {
    double x, y;
    const char *label;
} mb_svg_mark_t;

typedef struct mb_svg_chart {
    const char *title, *x_label, *y_label;   /* axis labels carry units, e.g. "time per call (µs)" */
    int x_log2;                              /* log2 x axis, ticks at powers of 2 (x <= 0 is skipped) */
    const char *const *categories;           /* categorical x axis when non-NULL */
    int n_categories;
    int y_from_zero;                         /* include 0 in the y range (always so with bars) */
    const mb_svg_series_t *series;
    int n_series;
    const mb_svg_hline_t *hlines;
    int n_hlines;
    const mb_svg_mark_t *marks;
    int n_marks;
} mb_svg_chart_t;

/* One chart. Returns 0, or -1 with a message naming the file in err. */
int mb_svg_write_chart(const char *path, const mb_svg_chart_t *chart, char *err, size_t errlen);
/* n panels, cols per row (cols <= 0: about square), under a common title (NULL = none); the panels
 * share one plot size and margins so their axes line up. Returns 0, or -1 with a message naming the file. */
int mb_svg_write_grid(const char *path, const char *title, const mb_svg_chart_t *panels, int n, int cols,
                      char *err, size_t errlen);

#endif
