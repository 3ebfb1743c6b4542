/* Writers of finished results: console table, JSON (versioned schema, every sample), Markdown, CSV.
 * Files are written atomically (temp file + rename), so an interrupted run never leaves half a table. */
#ifndef MB_REPORT_H
#define MB_REPORT_H

#include <stdio.h>
#include "jsonio.h"
#include "result.h"

/* color: 1 only when the stream is a terminal (the caller decides). */
void mb_report_print(FILE *f, const mb_report_t *r, int color);

/* Each returns 0, or -1 with a message in err naming the file. */
int mb_report_write_json(const mb_report_t *r, const char *path, char *err, size_t errlen);
int mb_report_write_md(const mb_report_t *r, const char *path, char *err, size_t errlen);
int mb_report_write_csv(const mb_report_t *r, const char *path, char *err, size_t errlen);
/* Writes DIR/STEM.json, .md and .csv (creating DIR); the paths written go to stderr. */
int mb_report_write_all(const mb_report_t *r, const char *dir, const char *stem, char *err, size_t errlen);

/* Reads a file written by mb_report_write_json back, for tools that compare runs: env, interrupted,
 * config path and text, and per case its definition, plan, status, error, check, time stats, stop
 * reason, samples and throughput. Seeds above 2^53 come back rounded (JSON numbers are doubles here);
 * nulls (non-finite values when written) come back as NaN, stage times as -1. out owns everything,
 * including the mb_config_t holding the cases; release it with mb_report_free_read. Returns 0, or -1
 * with a message naming the file (and the JSON path of a bad field); out is then empty. */
int mb_report_read_json(const char *path, mb_report_t *out, char *err, size_t errlen);
void mb_report_free_read(mb_report_t *r);

/* Variants (q_quant, plan) and per-stage median times, and the Q range counts, one row a case; printed
 * only when some case has any of them. md: Markdown instead of aligned text. */
void mb_report_stages(FILE *f, const mb_report_t *r, int md);

/* Atomic file write of a whole buffer: DIR/.name.tmp.PID, fsync, rename. */
int mb_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);
/* The same for a file made of several buffers, so a large payload needs no copy behind its header. */
typedef struct mb_buf { const void *data; size_t len; } mb_buf_t;
int mb_write_parts_atomic(const char *path, const mb_buf_t *parts, int nparts, char *err, size_t errlen);
/* The tool, date and device objects every JSON file of the tool starts with (root's "tool", "date",
 * "device"). */
void mb_json_env(jb_t *b, cJSON *root, const mb_env_t *e);
/* A CSV field as RFC 4180 has it: quoted, its quotes doubled, where it holds a comma, quote or line break. */
void mb_csv_quoted(FILE *f, const char *s);
/* s as a table cell's text in out (n bytes, cut short where it does not fit): control characters as
 * spaces (they would break a row), and with md '|' and '\\' escaped (a '|' would end a Markdown cell). */
void mb_cell_text(char *out, size_t n, const char *s, int md);
/* mkdir -p DIR: 0, or -1 with err naming the component that could not be made. */
int mb_mkdir_p(const char *dir, char *err, size_t errlen);

/* How far apart the medians of a case's placements lie, as % of its pooled median: (max - min) / median;
 * 0 for fewer than two. And the table's cell: "3, 8.1%", "1", or "-" when unknown (older files). */
double mb_placement_spread_pct(const mb_case_result_t *cr);
/* mb_env_t.module_loading from the variable's name and its value (NULL: not set). */
void mb_module_loading_text(char *buf, size_t n, const char *name, const char *value);
void mb_placements_text(char *buf, size_t n, const mb_case_result_t *cr);

/* Pieces shared by the writers. */
typedef enum { MB_TABLE_PLAIN = 0, MB_TABLE_COLOR = 1, MB_TABLE_MARKDOWN = 2 } mb_table_style_t;
/* The aligned results table, one row per result ("-" where a value was not measured). */
void mb_report_table(FILE *f, const mb_report_t *r, mb_table_style_t style);
/* Lines under the table: case counts, the interruption note, each ERROR case's message. */
void mb_report_summary(FILE *f, const mb_report_t *r, int markdown);
/* A case whose SM clock across its timed calls (sm_mhz) was under MB_THROTTLE_FRACTION of the
 * device's peak: its times are not what the chip does at full clock (nvbench's warning threshold). */
#define MB_THROTTLE_FRACTION 0.75
int mb_sm_throttled(const mb_case_result_t *cr, const mb_env_t *e);
/* A case whose stop rule ran out (max_seconds or max_runs) with its relative standard error still over
 * target_rse (nvbench's "stopped at the time limit, noise X %" warning); files without the stop rule
 * never are. */
int mb_noisy(const mb_case_result_t *cr);
/* "pass", "fail", "error". */
const char *mb_status_name(mb_case_status_t s);
/* Splits as the tables show them: the most any batch got, "a" appended when the case asked for
 * auto ("8a"); the request alone ("auto", "4") when no plan was made. */
void mb_splits_text(char *buf, size_t n, const mb_case_result_t *cr);
/* The KV cache layout as the tables show it: "flat", or the page size and order ("64 shuffled"). */
void mb_pages_text(char *buf, size_t n, const mb_case_t *c);
/* Shortest decimal that reads back as exactly d (at most "%.17g"); d must be finite. */
void mb_fmt_double(char buf[32], double d);

#endif
