/* The read-once floor's host side (floor.h): the bytes a case reads, the launch shapes tried, and the
 * tables. */
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>
#include "floor.h"
#include "jsonio.h"
#include "numeric.h"
#include "report.h"

int64_t mb_floor_bytes(const mb_case_t *c)
{
    return mb_case_total_kv(c) * MB_DK;
}

/* Grids of 1 to 64 blocks an SM: a small cache wants every SM asking at once with few loads a thread,
 * a large one fewer, longer-lived threads; the best differs by GPU and size, so all are timed. */
void mb_floor_shapes(int sm_count, mb_floor_shape_t out[MB_FLOOR_SHAPES])
{
    static const int blocks[MB_FLOOR_BLOCKS] = { 128, 256, 512 };
    static const int per_sm[MB_FLOOR_GRIDS] = { 1, 2, 3, 4, 6, 8, 16, 32, 64 };
    for (int b = 0; b < MB_FLOOR_BLOCKS; b++)
        for (int k = 0; k < MB_FLOOR_GRIDS; k++)
            out[b * MB_FLOOR_GRIDS + k] = (mb_floor_shape_t){ per_sm[k] * (sm_count > 0 ? sm_count : 1), blocks[b], 0.0 };
}

int mb_floor_best(const mb_floor_t *f)
{
    int best = 0;
    for (int i = 1; i < MB_FLOOR_SHAPES; i++)
        if (f->shapes[i].median_us < f->shapes[best].median_us) best = i;
    return best;
}

static double floor_us(const mb_floor_t *f) { return f->shapes[f->best].median_us; }
static double floor_tbps(const mb_floor_t *f) { return (double)f->bytes / (floor_us(f) * 1e-6) / 1e12; }

enum { STYLE_CONSOLE, STYLE_MD, STYLE_CSV };

static void write_rows(FILE *out, const mb_floor_t *fl, int n, const mb_env_t *env, int style)
{
    static const char *const head[] = { "case", "KV MB", "floor µs", "TB/s", "% copy", "grid x block", "measured as" };
    if (style == STYLE_CSV) {
        fputs("case,kv_bytes,floor_us,tbps,pct_copy,grid,block,measured_as\n", out);
    } else if (style == STYLE_MD) {
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |\n|---|---:|---:|---:|---:|---|---|\n", head[0], head[1], head[2],
                head[3], head[4], head[5], head[6]);
    } else {
        fprintf(out, "%-34s  %9s  %9s  %6s  %6s  %-12s  %s\n", head[0], head[1], head[2], head[3], head[4], head[5], head[6]);
    }
    for (int i = 0; i < n; i++) {
        const mb_floor_t *f = &fl[i];
        const mb_floor_shape_t *s = &f->shapes[f->best];
        const char *as = f->same_as >= 0 ? fl[f->same_as].c->name : "";
        const double pct = env->copy_tbps > 0 ? 100.0 * floor_tbps(f) / env->copy_tbps : 0.0;
        char shape[32];
        snprintf(shape, sizeof shape, "%d x %d", s->grid, s->block);
        if (style == STYLE_CSV) {
            mb_csv_quoted(out, f->c->name);
            fprintf(out, ",%lld,%.3f,%.3f,%.1f,%d,%d,", (long long)f->bytes, floor_us(f), floor_tbps(f), pct, s->grid, s->block);
            mb_csv_quoted(out, as);
            fputc('\n', out);
        } else if (style == STYLE_MD) {
            char name[300], same[300];
            mb_cell_text(name, sizeof name, f->c->name, 1);
            mb_cell_text(same, sizeof same, as, 1);
            fprintf(out, "| %s | %.1f | %.2f | %.2f | %.1f | %s | %s |\n", name, f->bytes / 1e6, floor_us(f), floor_tbps(f),
                    pct, shape, same);
        } else
            fprintf(out, "%-34s  %9.1f  %9.2f  %6.2f  %6.1f  %-12s  %s\n", f->c->name, f->bytes / 1e6, floor_us(f),
                    floor_tbps(f), pct, shape, as);
    }
}

void mb_floor_print(FILE *out, const mb_floor_t *fl, int n, const mb_env_t *env)
{
    write_rows(out, fl, n, env, STYLE_CONSOLE);
    fprintf(out, "device: %s; copy %.2f TB/s measured; launch floor %.2f µs\n", env->device, env->copy_tbps,
            env->launch_floor_us);
}

static int write_json(const mb_floor_t *fl, int n, const mb_env_t *env, const char *config, const char *path,
                      char *err, size_t errlen)
{
    jb_t b = { 0 };
    cJSON *root = cJSON_CreateObject();
    if (!root) b.oom = 1;
    jb_put_str(&b, root, "schema", MB_FLOOR_SCHEMA);
    mb_json_env(&b, root, env);
    jb_put_str(&b, root, "config", config);
    jb_put_num(&b, root, "samples_per_shape", MB_FLOOR_SAMPLES);
    cJSON *cases = jb_put(&b, root, "cases", cJSON_CreateArray());
    for (int i = 0; i < n && cases; i++) {
        const mb_floor_t *f = &fl[i];
        cJSON *o = jb_put(&b, cases, NULL, cJSON_CreateObject());
        jb_put_str(&b, o, "name", f->c->name);
        jb_put_num(&b, o, "kv_bytes", (double)f->bytes);
        jb_put_num(&b, o, "floor_us", floor_us(f));
        jb_put_num(&b, o, "tbps", floor_tbps(f));
        jb_put_num(&b, o, "grid", f->shapes[f->best].grid);
        jb_put_num(&b, o, "block", f->shapes[f->best].block);
        jb_put_str(&b, o, "measured_as", f->same_as >= 0 ? fl[f->same_as].c->name : NULL);
        cJSON *sh = jb_put(&b, o, "shapes", cJSON_CreateArray());
        for (int k = 0; k < MB_FLOOR_SHAPES && sh; k++) {
            cJSON *s = jb_put(&b, sh, NULL, cJSON_CreateObject());
            jb_put_num(&b, s, "grid", f->shapes[k].grid);
            jb_put_num(&b, s, "block", f->shapes[k].block);
            jb_put_num(&b, s, "median_us", f->shapes[k].median_us);
        }
    }
    int rc = jb_write(&b, root, path, err, errlen);
    cJSON_Delete(root);
    return rc;
}

static int write_text(const mb_floor_t *fl, int n, const mb_env_t *env, const char *config, const char *path, int style,
                      char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
    if (style == STYLE_MD)
        fprintf(f, "# mla-bench floor\n\n- device: %s, %s\n- date: %s\n- tool: mla-bench %s (commit %s)\n- config: %s\n\n"
                   "The read-once floor: the best median (of %d samples) over %d launch shapes of a kernel that reads\n"
                   "the case's KV cache once from a cold L2, timed as cases are. Cases of as many bytes share one\n"
                   "measurement (`measured as`). Copy bandwidth %.2f TB/s (read + write), launch floor %.2f µs.\n\n",
                env->device, env->gpu_id, env->date, env->tool_version, env->git_commit, config, MB_FLOOR_SAMPLES,
                MB_FLOOR_SHAPES, env->copy_tbps, env->launch_floor_us);
    write_rows(f, fl, n, env, style);
    fclose(f);
    int rc = mb_write_file_atomic(path, buf, len, err, errlen);
    free(buf);
    return rc;
}

int mb_floor_write_all(const mb_floor_t *fl, int n, const mb_env_t *env, const char *config, const char *dir,
                       const char *stem, char *err, size_t errlen)
{
    if (mb_mkdir_p(dir, err, errlen)) return -1;
    static const char *const ext[] = { "json", "md", "csv" };
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ext[i]);
        int rc = i == 0 ? write_json(fl, n, env, config, path, err, errlen)
                        : write_text(fl, n, env, config, path, i == 1 ? STYLE_MD : STYLE_CSV, err, errlen);
        if (rc) return -1;
        fprintf(stderr, "wrote %s\n", path);
    }
    return 0;
}
