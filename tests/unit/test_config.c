/* Workload configs: every error path, each asserted on the whole message so a wrong JSON path or a
 * wrong "expected" fails the test; merging over defaults, grid expansion, generated lengths, and the
 * shipped configs. JSON here is written with single quotes; dq() turns them into double quotes. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* mkstemp, unlink */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "defaults.h"
#include "numeric.h"
#include "unit.h"

/* --- test-local helpers --- */

enum { TEXT_LEN = 4096, ERR_LEN = 512 };

static void dq(char *out, size_t n, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++) out[i] = s[i] == '\'' ? '"' : s[i];
    out[i] = '\0';
}

static int parse(const char *json, mb_config_t *cfg, char *err)
{
    char text[TEXT_LEN];
    dq(text, sizeof text, json);
    return mb_config_parse("t.json", text, cfg, err, ERR_LEN);
}

static int cleared(const mb_config_t *cfg)
{
    return !cfg->path && !cfg->text && !cfg->cases && cfg->n_cases == 0;
}

/* A config must fail with exactly this message (single quotes for double) and leave cfg empty. */
#define EXPECT_ERR(json, msg) expect_err(__LINE__, json, msg)
static void expect_err(int line, const char *json, const char *msg)
{
    mb_config_t cfg;
    char err[ERR_LEN] = "", want[ERR_LEN];
    int rc = parse(json, &cfg, err);
    dq(want, sizeof want, msg);
    CHECKF(rc == 2, "line %d: rc %d", line, rc);
    CHECKF(strcmp(err, want) == 0, "line %d:\n    got  %s\n    want %s", line, err, want);
    CHECKF(cleared(&cfg), "line %d: cfg not left empty", line);
    mb_config_free(&cfg);
}

#define PARSE_OK(json, cfg) parse_ok(__LINE__, json, cfg)
static int parse_ok(int line, const char *json, mb_config_t *cfg)
{
    char err[ERR_LEN] = "";
    int rc = parse(json, cfg, err);
    CHECKF(rc == 0, "line %d: rc %d: %s", line, rc, err);
    return rc == 0;
}

/* A bad value must be reported at its own path both in a case and in "defaults". field is one
 * "key": value pair; tail the message after the path prefix. Value errors come before any check of
 * missing keys, so the case needs nothing else. */
#define BAD_VALUE(field, tail) bad_value(__LINE__, field, tail)
static void bad_value(int line, const char *field, const char *tail)
{
    char json[TEXT_LEN], msg[ERR_LEN];
    snprintf(json, sizeof json, "{'cases':[{%s}]}", field);
    snprintf(msg, sizeof msg, "t.json: cases[0].%s", tail);
    expect_err(line, json, msg);
    snprintf(json, sizeof json, "{'defaults':{%s},'cases':[{'batch':1,'kv_len':1}]}", field);
    snprintf(msg, sizeof msg, "t.json: defaults.%s", tail);
    expect_err(line, json, msg);
}

static int all_lens(const mb_case_t *c, int32_t len)
{
    for (int b = 0; b < c->batch; b++)
        if (c->kv_lens[b] != len) return 0;
    return 1;
}

/* Writes a temporary file; returns 0 or -1. */
static int write_temp(char *path, const char *data, size_t len)
{
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    ssize_t w = write(fd, data, len);
    close(fd);
    return w == (ssize_t)len ? 0 : -1;
}

/* --- merging --- */

static void config_builtin_defaults(void)
{
    mb_config_t cfg;
    const char *json = "{'cases':[{'batch':2,'kv_len':64}]}";
    char text[TEXT_LEN];
    if (!PARSE_OK(json, &cfg)) return;
    dq(text, sizeof text, json);
    CHECK(strcmp(cfg.path, "t.json") == 0 && strcmp(cfg.text, text) == 0);
    CHECK(cfg.n_cases == 1);
    const mb_case_t *c = &cfg.cases[0];
    CHECKF(strcmp(c->name, "b2-q1-kv64-h16") == 0, "%s", c->name);
    CHECK(c->file == cfg.path && c->index == 0);
    CHECK(c->batch == 2 && c->q_len == MB_DEF_Q_LEN && c->heads == MB_DEF_HEADS);
    CHECK(all_lens(c, 64) && strcmp(c->kv_desc, "64") == 0);
    CHECK(c->causal == MB_DEF_CAUSAL && c->splits == MB_DEF_SPLITS && c->mode == MB_DEF_MODE);
    CHECK(c->l2 == MB_DEF_L2 && c->seed == MB_DEF_SEED);
    CHECK(c->q_std == MB_DEF_Q_STD && c->kv_std == MB_DEF_KV_STD);
    CHECK(c->warmup == MB_DEF_WARMUP && c->min_runs == MB_DEF_MIN_RUNS && c->max_runs == MB_DEF_MAX_RUNS);
    CHECK(c->target_rse == MB_DEF_TARGET_RSE && c->max_seconds == MB_DEF_MAX_SECONDS && c->placements == MB_DEF_PLACEMENTS);
    CHECK(c->atol == MB_DEF_ATOL && c->rtol == MB_DEF_RTOL && c->max_rel_l2 == MB_DEF_MAX_REL_L2);
    mb_config_free(&cfg);
    CHECK(cleared(&cfg));
}

static void config_defaults_merge(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'description':'d','defaults':{'heads':32,'q_len':2,'mode':'eager','l2':'hot','seed':9,"
                  "'warmup':0,'atol':0.5},'cases':[{'batch':1,'kv_len':8},"
                  "{'batch':2,'kv_len':8,'heads':64,'mode':'graph','atol':0,'rtol':0.25}]}", &cfg))
        return;
    CHECK(cfg.n_cases == 2);
    const mb_case_t *a = &cfg.cases[0], *b = &cfg.cases[1];
    CHECK(a->heads == 32 && a->q_len == 2 && a->mode == MB_MODE_EAGER && a->l2 == MB_L2_HOT && a->seed == 9);
    CHECK(a->warmup == 0 && a->atol == 0.5 && a->rtol == MB_DEF_RTOL && a->min_runs == MB_DEF_MIN_RUNS);
    CHECKF(strcmp(a->name, "b1-q2-kv8-h32") == 0, "%s", a->name);
    CHECK(b->heads == 64 && b->q_len == 2 && b->mode == MB_MODE_GRAPH && b->l2 == MB_L2_HOT && b->seed == 9);
    CHECK(b->atol == 0 && b->rtol == 0.25 && b->index == 1);
    mb_config_free(&cfg);
}

static void config_every_field_at_its_bounds(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'name':'hi','batch':3,'q_len':8,'heads':128,'kv_len':1048576,'causal':false,"
                  "'num_kv_splits':256,'mode':'eager','l2':'hot','seed':9007199254740992,'q_std':10000,"
                  "'kv_std':0.25,'warmup':1000,'min_runs':100000,'max_runs':1000000,'target_rse':1,"
                  "'max_seconds':3600,'placements':8,'atol':1,'rtol':1,'max_rel_l2':1},"
                  "{'name':'lo','batch':1,'q_len':1,'heads':1,'kv_len':1,'num_kv_splits':1,'seed':0,"
                  "'q_std':1e-9,'warmup':0,'min_runs':1,'max_runs':1,'target_rse':1e-9,'max_seconds':1e-9,'placements':1,"
                  "'atol':0,'rtol':0,'max_rel_l2':0}]}", &cfg))
        return;
    const mb_case_t *h = &cfg.cases[0], *l = &cfg.cases[1];
    CHECK(strcmp(h->name, "hi") == 0 && h->batch == 3 && h->q_len == 8 && h->heads == 128);
    CHECK(all_lens(h, 1048576) && h->causal == 0 && h->splits == 256 && h->mode == MB_MODE_EAGER);
    CHECK(h->l2 == MB_L2_HOT && h->seed == 9007199254740992ull && h->q_std == 10000 && h->kv_std == 0.25);
    CHECK(h->warmup == 1000 && h->min_runs == 100000 && h->max_runs == 1000000 && h->target_rse == 1);
    CHECK(h->max_seconds == 3600 && h->placements == 8 && h->atol == 1 && h->rtol == 1 && h->max_rel_l2 == 1);
    CHECK(l->batch == 1 && l->q_len == 1 && l->heads == 1 && all_lens(l, 1) && l->splits == 1 && l->seed == 0);
    CHECK(l->q_std == 1e-9 && l->warmup == 0 && l->min_runs == 1 && l->max_runs == 1 && l->placements == 1);
    CHECK(l->target_rse == 1e-9 && l->max_seconds == 1e-9 && l->atol == 0 && l->rtol == 0 && l->max_rel_l2 == 0);
    mb_config_free(&cfg);
}

static void config_integral_floats(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'batch':3.0,'kv_len':1.024e3,'heads':16.0,'seed':7e0,'num_kv_splits':2.0}]}", &cfg))
        return;
    const mb_case_t *c = &cfg.cases[0];
    CHECK(c->batch == 3 && all_lens(c, 1024) && c->heads == 16 && c->seed == 7 && c->splits == 2);
    CHECKF(strcmp(c->name, "b3-q1-kv1024-h16") == 0, "%s", c->name);
    mb_config_free(&cfg);
}

static void config_kv_lens_list(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'q_len':2,'kv_lens':[17,2,300]},{'name':'agree','batch':3,'kv_lens':[1,2,3],"
                  "'causal':false,'q_len':8}]}", &cfg))
        return;
    const mb_case_t *a = &cfg.cases[0], *b = &cfg.cases[1];
    CHECK(a->batch == 3 && a->kv_lens[0] == 17 && a->kv_lens[1] == 2 && a->kv_lens[2] == 300);
    CHECKF(strcmp(a->name, "b3-q2-kvlist-h16") == 0, "%s", a->name);
    CHECK(strcmp(a->kv_desc, "list") == 0 && mb_case_total_kv(a) == 319);
    CHECK(b->batch == 3 && b->kv_lens[2] == 3 && b->causal == 0);
    mb_config_free(&cfg);
}

/* kv_len and kv_lens replace each other across levels, and an entry's own list replaces a default
 * batch. */
static void config_kv_override(void)
{
    mb_config_t cfg;
    if (PARSE_OK("{'defaults':{'batch':4,'kv_len':100},'cases':[{'name':'a'},{'name':'b','kv_lens':[5,6]},"
                 "{'name':'c','kv_len':{'uniform':[1,9]}}]}", &cfg)) {
        CHECK(cfg.cases[0].batch == 4 && all_lens(&cfg.cases[0], 100));
        CHECK(cfg.cases[1].batch == 2 && cfg.cases[1].kv_lens[0] == 5 && cfg.cases[1].kv_lens[1] == 6);
        CHECK(cfg.cases[2].batch == 4 && strcmp(cfg.cases[2].kv_desc, "uniform[1,9]") == 0);
        mb_config_free(&cfg);
    }
    if (PARSE_OK("{'defaults':{'kv_lens':[3,4]},'cases':[{'name':'a'},{'name':'b','batch':5,'kv_len':7}]}", &cfg)) {
        CHECK(cfg.cases[0].batch == 2 && cfg.cases[0].kv_lens[0] == 3 && cfg.cases[0].kv_lens[1] == 4);
        CHECK(cfg.cases[1].batch == 5 && all_lens(&cfg.cases[1], 7) && strcmp(cfg.cases[1].kv_desc, "7") == 0);
        mb_config_free(&cfg);
    }
}

/* --- grids --- */

static void config_grid_order_and_names(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'name':'g','batch':[1,2],'kv_len':[64,{'uniform':[1,8]}],'mode':['eager','graph'],"
                  "'q_std':[0.5,0.1]}]}", &cfg))
        return;
    CHECK(cfg.n_cases == 16);
    for (int k = 0; k < cfg.n_cases && k < 16; k++) {
        const mb_case_t *c = &cfg.cases[k];
        /* batch outermost, then kv_len, mode, q_std innermost */
        int b = k / 8, kv = k / 4 % 2, m = k / 2 % 2, q = k % 2;
        char want[128];
        snprintf(want, sizeof want, "g/batch=%d/kv_len=%s/mode=%s/q_std=%s", b + 1, kv ? "uniform[1,8]" : "64",
                 m ? "graph" : "eager", q ? "0.1" : "0.5");
        CHECKF(strcmp(c->name, want) == 0, "case %d: %s, want %s", k, c->name, want);
        CHECK(c->batch == b + 1 && c->mode == (m ? MB_MODE_GRAPH : MB_MODE_EAGER) && c->q_std == (q ? 0.1 : 0.5));
        CHECK(c->index == 0 && (kv || all_lens(c, 64)));
    }
    mb_config_free(&cfg);
}

static void config_grid_value_texts(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'name':'x','batch':1,'kv_len':8,'num_kv_splits':['auto',4],'l2':['cold','hot'],"
                  "'seed':[3,4],'kv_std':[1,2.5],'causal':[true,false],'heads':[16,32]}]}", &cfg))
        return;
    CHECK(cfg.n_cases == 64);
    CHECKF(strcmp(cfg.cases[0].name, "x/heads=16/num_kv_splits=auto/l2=cold/seed=3/kv_std=1/causal=true") == 0,
           "%s", cfg.cases[0].name);
    CHECKF(strcmp(cfg.cases[63].name, "x/heads=32/num_kv_splits=4/l2=hot/seed=4/kv_std=2.5/causal=false") == 0,
           "%s", cfg.cases[63].name);
    CHECK(cfg.cases[63].splits == 4 && cfg.cases[63].l2 == MB_L2_HOT && cfg.cases[63].seed == 4);
    CHECK(cfg.cases[63].kv_std == 2.5 && cfg.cases[63].causal == 0 && cfg.cases[63].heads == 32);
    mb_config_free(&cfg);
}

/* "icache": warm unless asked; "cold" is its own setting, in a grid like the others. */
static void config_icache(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'name':'d','batch':1,'kv_len':8},{'name':'x','batch':1,'kv_len':8,'icache':['warm','cold']}]}", &cfg)) return;
    CHECK(cfg.n_cases == 3);
    if (cfg.n_cases == 3) {
        CHECK(cfg.cases[0].icache == MB_ICACHE_WARM && MB_DEF_ICACHE == MB_ICACHE_WARM);
        CHECKF(cfg.cases[1].icache == MB_ICACHE_WARM && !strcmp(cfg.cases[1].name, "x/icache=warm"), "%s", cfg.cases[1].name);
        CHECKF(cfg.cases[2].icache == MB_ICACHE_COLD && !strcmp(cfg.cases[2].name, "x/icache=cold"), "%s", cfg.cases[2].name);
    }
    CHECK(!strcmp(mb_icache_name(MB_ICACHE_COLD), "cold") && !strcmp(mb_icache_name(MB_ICACHE_WARM), "warm"));
    mb_config_free(&cfg);
}

/* "l2": "cold-clean" is its own setting, named in a grid like the others. */
static void config_l2_cold_clean(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'name':'x','batch':1,'kv_len':8,'l2':['cold','cold-clean','hot']}]}", &cfg)) return;
    CHECK(cfg.n_cases == 3);
    const mb_l2_t want[3] = {MB_L2_COLD, MB_L2_COLD_CLEAN, MB_L2_HOT};
    for (int i = 0; i < 3 && i < cfg.n_cases; i++) {
        char name[64];
        snprintf(name, sizeof name, "x/l2=%s", mb_l2_name(want[i]));
        CHECKF(cfg.cases[i].l2 == want[i] && !strcmp(cfg.cases[i].name, name), "%s", cfg.cases[i].name);
    }
    CHECK(!strcmp(mb_l2_name(MB_L2_COLD_CLEAN), "cold-clean"));
    mb_config_free(&cfg);
}

/* A generated name already shows batch, q_len, kv and heads, so only the other grid keys are added. */
static void config_grid_generated_names(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'batch':[2,4],'kv_len':64,'heads':[16,32],'seed':[1,2]}]}", &cfg)) return;
    static const char *const want[] = {
        "b2-q1-kv64-h16/seed=1", "b2-q1-kv64-h16/seed=2", "b2-q1-kv64-h32/seed=1", "b2-q1-kv64-h32/seed=2",
        "b4-q1-kv64-h16/seed=1", "b4-q1-kv64-h16/seed=2", "b4-q1-kv64-h32/seed=1", "b4-q1-kv64-h32/seed=2",
    };
    CHECK(cfg.n_cases == 8);
    for (int k = 0; k < cfg.n_cases && k < 8; k++)
        CHECKF(strcmp(cfg.cases[k].name, want[k]) == 0, "case %d: %s", k, cfg.cases[k].name);
    mb_config_free(&cfg);
}

static void config_grid_in_defaults(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'defaults':{'mode':['eager','graph'],'seed':[1,2],'batch':1,'kv_len':4},"
                  "'cases':[{'name':'a'},{'name':'b','mode':'eager'},{'name':'c','mode':'graph','seed':5}]}", &cfg))
        return;
    static const char *const want[] = {"a/mode=eager/seed=1", "a/mode=eager/seed=2", "a/mode=graph/seed=1",
                                       "a/mode=graph/seed=2", "b/seed=1", "b/seed=2", "c"};
    static const int index[] = {0, 0, 0, 0, 1, 1, 2};
    CHECK(cfg.n_cases == 7);
    for (int k = 0; k < cfg.n_cases && k < 7; k++) {
        CHECKF(strcmp(cfg.cases[k].name, want[k]) == 0, "case %d: %s", k, cfg.cases[k].name);
        CHECK(cfg.cases[k].index == index[k]);
    }
    if (cfg.n_cases == 7) CHECK(cfg.cases[6].seed == 5 && cfg.cases[6].mode == MB_MODE_GRAPH);
    mb_config_free(&cfg);
}

/* --- generated lengths --- */

static void config_uniform_lengths(void)
{
    mb_config_t cfg, again;
    const char *json = "{'cases':[{'name':'u','batch':200,'kv_len':{'uniform':[10,20]},'seed':42},"
                       "{'name':'v','batch':200,'kv_len':{'uniform':[10,20]},'seed':43},"
                       "{'name':'w','batch':3,'kv_len':{'uniform':[5,5]}},"
                       "{'batch':2,'kv_len':{'uniform':[1,4096]}},"
                       "{'name':'s','batch':50,'kv_len':{'uniform':[1,1000]},'seed':[1,2]}]}";
    if (!PARSE_OK(json, &cfg)) return;
    const mb_case_t *u = &cfg.cases[0], *v = &cfg.cases[1];
    int lo = 99, hi = 0, differ = 0;
    for (int b = 0; b < 200; b++) {
        int32_t want = (int32_t)(10 + mb_rng_u64(42, MB_STREAM_KV_LENS, (uint64_t)b) % 11);
        CHECKF(u->kv_lens[b] == want, "batch %d: %d, want %d", b, u->kv_lens[b], want);
        lo = u->kv_lens[b] < lo ? u->kv_lens[b] : lo;
        hi = u->kv_lens[b] > hi ? u->kv_lens[b] : hi;
        differ += u->kv_lens[b] != v->kv_lens[b];
    }
    CHECKF(lo == 10 && hi == 20, "range [%d, %d]", lo, hi);
    CHECK(differ > 0 && strcmp(u->kv_desc, "uniform[10,20]") == 0);
    CHECK(all_lens(&cfg.cases[2], 5) && strcmp(cfg.cases[2].kv_desc, "uniform[5,5]") == 0);
    CHECKF(strcmp(cfg.cases[3].name, "b2-q1-kvuniform[1,4096]-h16") == 0, "%s", cfg.cases[3].name);
    /* each expanded case draws with its own seed */
    for (int k = 0; k < 2; k++) {
        const mb_case_t *c = &cfg.cases[4 + k];
        for (int b = 0; b < 50; b++)
            CHECK(c->kv_lens[b] == (int32_t)(1 + mb_rng_u64((uint64_t)k + 1, MB_STREAM_KV_LENS, (uint64_t)b) % 1000));
    }
    if (PARSE_OK(json, &again)) {
        for (int k = 0; k < cfg.n_cases; k++)
            CHECK(memcmp(cfg.cases[k].kv_lens, again.cases[k].kv_lens, sizeof(int32_t) * (size_t)cfg.cases[k].batch) == 0);
        mb_config_free(&again);
    }
    mb_config_free(&cfg);
}

/* --- paged KV cache --- */

static void config_pages(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'defaults':{'kv_lens':[17,100,48]},'cases':[{'name':'flat'},{'name':'zero','page_size':0},"
                  "{'name':'p16','page_size':16},{'name':'p48c','page_size':48,'page_order':'contiguous'},"
                  "{'name':'one','page_size':1.0,'page_order':'shuffled'},{'name':'max','page_size':4096}]}", &cfg))
        return;
    CHECK(cfg.n_cases == 6);
    const mb_case_t *flat = &cfg.cases[0], *zero = &cfg.cases[1], *p16 = &cfg.cases[2], *p48 = &cfg.cases[3];
    const mb_case_t *one = &cfg.cases[4], *max = &cfg.cases[5];
    /* absent or 0: the flat cache, whose rows are the tokens */
    CHECK(flat->page_size == 0 && mb_case_pages(flat) == 0 && mb_case_cache_rows(flat) == 165);
    CHECK(zero->page_size == 0 && mb_case_cache_rows(zero) == 165);
    /* shuffled is the default order; each batch's last page is padded to a whole page */
    CHECK(p16->page_size == 16 && p16->page_order == MB_PAGES_SHUFFLED);
    CHECKF(mb_case_pages(p16) == 2 + 7 + 3 && mb_case_cache_rows(p16) == 12 * 16, "%lld", (long long)mb_case_pages(p16));
    CHECK(p48->page_size == 48 && p48->page_order == MB_PAGES_CONTIGUOUS);
    CHECK(mb_case_pages(p48) == 1 + 3 + 1 && mb_case_cache_rows(p48) == 5 * 48);
    CHECK(one->page_size == 1 && one->page_order == MB_PAGES_SHUFFLED && mb_case_cache_rows(one) == 165);
    CHECK(max->page_size == 4096 && mb_case_pages(max) == 3 && mb_case_cache_rows(max) == 3 * 4096);
    CHECK(mb_case_total_kv(max) == 165);   /* the tokens a call reads do not change */
    CHECK(!strcmp(mb_page_order_name(MB_PAGES_SHUFFLED), "shuffled"));
    CHECK(!strcmp(mb_page_order_name(MB_PAGES_CONTIGUOUS), "contiguous"));
    mb_config_free(&cfg);
}

/* Both keys are grid keys, expanded after the others and named like them. */
static void config_pages_grid(void)
{
    mb_config_t cfg;
    if (!PARSE_OK("{'cases':[{'name':'g','batch':2,'kv_len':100,'mode':['eager','graph'],'page_size':[16,64],"
                  "'page_order':['shuffled','contiguous']},{'batch':1,'kv_len':8,'page_size':[1,48]}]}", &cfg))
        return;
    static const char *const want[] = {
        "g/mode=eager/page_size=16/page_order=shuffled", "g/mode=eager/page_size=16/page_order=contiguous",
        "g/mode=eager/page_size=64/page_order=shuffled", "g/mode=eager/page_size=64/page_order=contiguous",
        "g/mode=graph/page_size=16/page_order=shuffled", "g/mode=graph/page_size=16/page_order=contiguous",
        "g/mode=graph/page_size=64/page_order=shuffled", "g/mode=graph/page_size=64/page_order=contiguous",
        "b1-q1-kv8-h16/page_size=1", "b1-q1-kv8-h16/page_size=48",
    };
    CHECK(cfg.n_cases == 10);
    for (int k = 0; k < cfg.n_cases && k < 10; k++) {
        const mb_case_t *c = &cfg.cases[k];
        CHECKF(strcmp(c->name, want[k]) == 0, "case %d: %s", k, c->name);
        if (k < 8) CHECK(c->page_size == (k / 2 % 2 ? 64 : 16) && c->page_order == (mb_page_order_t)(k % 2));
    }
    if (cfg.n_cases == 10) CHECK(cfg.cases[8].page_size == 1 && cfg.cases[9].page_size == 48);
    mb_config_free(&cfg);
}

static void config_err_pages(void)
{
    BAD_VALUE("'page_size':-1", "page_size: expected integer in [0, 4096], got -1");
    BAD_VALUE("'page_size':4097", "page_size: expected integer in [0, 4096], got 4097");
    BAD_VALUE("'page_size':16.5", "page_size: expected integer in [0, 4096], got 16.5");
    BAD_VALUE("'page_size':'16'", "page_size: expected integer in [0, 4096], got '16'");
    BAD_VALUE("'page_size':true", "page_size: expected integer in [0, 4096], got true");
    BAD_VALUE("'page_size':null", "page_size: expected integer in [0, 4096], got null");
    BAD_VALUE("'page_size':[16,-64]", "page_size[1]: expected integer in [0, 4096], got -64");
    BAD_VALUE("'page_size':[]", "page_size: expected integer in [0, 4096], or a non-empty array of them, got []");
    BAD_VALUE("'page_order':'random'", "page_order: expected 'shuffled' or 'contiguous', got 'random'");
    BAD_VALUE("'page_order':1", "page_order: expected 'shuffled' or 'contiguous', got 1");
    BAD_VALUE("'page_order':['contiguous','Shuffled']", "page_order[1]: expected 'shuffled' or 'contiguous', got 'Shuffled'");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':8,'page_sise':16}]}",
               "t.json: cases[0]: unknown key 'page_sise' (did you mean 'page_size'?)");
    /* an order without pages would be ignored silently: wherever it is given, it needs a page size */
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':8,'page_order':'contiguous'}]}",
               "t.json: cases[0]: 'page_order' needs 'page_size' > 0 (a flat cache has no pages)");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':8,'page_size':0,'page_order':'shuffled'}]}",
               "t.json: cases[0]: 'page_order' needs 'page_size' > 0 (a flat cache has no pages)");
    EXPECT_ERR("{'defaults':{'page_order':'shuffled'},'cases':[{'batch':1,'kv_len':8,'page_size':16},{'batch':2,'kv_len':8}]}",
               "t.json: cases[1]: 'page_order' needs 'page_size' > 0 (a flat cache has no pages)");
    EXPECT_ERR("{'cases':[{'name':'g','batch':1,'kv_len':8,'page_size':[16,0],'page_order':'contiguous'}]}",
               "t.json: cases[0] (g/page_size=0): 'page_order' needs 'page_size' > 0 (a flat cache has no pages)");
}

/* Cache rows are indexed like tokens, so whole pages must fit in int32 too, even when the tokens do. */
static void config_err_pages_total(void)
{
    mb_config_t cfg;
    EXPECT_ERR("{'cases':[{'batch':2048,'kv_len':1048575,'page_size':4096}]}",
               "t.json: cases[0]: expected KV cache rows (kv lengths rounded up to whole pages) <= 2147483647, "
               "got 2147483648");
    if (PARSE_OK("{'cases':[{'batch':2048,'kv_len':1048575,'page_size':1}]}", &cfg)) {
        CHECK(mb_case_cache_rows(&cfg.cases[0]) == 2048ll * 1048575);
        mb_config_free(&cfg);
    }
}

/* --- errors --- */

static void config_err_syntax(void)
{
    EXPECT_ERR("{\n  'cases': [1 2]\n}", "t.json:2:15: JSON syntax error");
    /* the place is where cJSON stopped: for a bad key, one past its first character */
    EXPECT_ERR("{\n  'cases': [\n    {'batch': 1,, 'kv_len': 4}\n  ]\n}", "t.json:3:18: JSON syntax error");
    EXPECT_ERR("{'cases':[]} x", "t.json:1:14: JSON syntax error");
    EXPECT_ERR("", "t.json:1:1: JSON syntax error");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':4}]", "t.json:1:34: JSON syntax error");
}

static void config_err_structure(void)
{
    EXPECT_ERR("[1]", "t.json: top level: expected object, got [1]");
    EXPECT_ERR("{}", "t.json: top level: missing key 'cases'");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1}],'case':1}", "t.json: top level: unknown key 'case' (did you mean 'cases'?)");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1}],'zzz':1}", "t.json: top level: unknown key 'zzz'");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1}],'cases':[]}", "t.json: top level: duplicate key 'cases'");
    EXPECT_ERR("{'cases':[]}", "t.json: cases: expected non-empty array of case objects, got []");
    EXPECT_ERR("{'cases':{}}", "t.json: cases: expected non-empty array of case objects, got {}");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1},1]}", "t.json: cases[1]: expected object, got 1");
    EXPECT_ERR("{'description':3,'cases':[{'batch':1,'kv_len':1}]}", "t.json: description: expected string, got 3");
    EXPECT_ERR("{'defaults':[],'cases':[{'batch':1,'kv_len':1}]}", "t.json: defaults: expected object, got []");
}

static void config_err_keys(void)
{
    EXPECT_ERR("{'defaults':{'hedas':4},'cases':[{'batch':1,'kv_len':1}]}",
               "t.json: defaults: unknown key 'hedas' (did you mean 'heads'?)");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1},{'batch':1,'kv_lenn':1}]}",
               "t.json: cases[1]: unknown key 'kv_lenn' (did you mean 'kv_len'?)");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1,'Mode':'eager'}]}",
               "t.json: cases[0]: unknown key 'Mode' (did you mean 'mode'?)");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1,'flux_capacitor':1}]}", "t.json: cases[0]: unknown key 'flux_capacitor'");
    /* a control character in a key is escaped, so the message stays one line */
    EXPECT_ERR("{'cases':[{'a\\nb':1}]}", "t.json: cases[0]: unknown key 'a\\nb'");
    EXPECT_ERR("{'cases':[{'batch':1,'batch':2,'kv_len':1}]}", "t.json: cases[0]: duplicate key 'batch'");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':{'uniform':[1,2],'uniform':[1,3]}}]}",
               "t.json: cases[0].kv_len: duplicate key 'uniform'");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':{'unifrom':[1,2]}}]}",
               "t.json: cases[0].kv_len: unknown key 'unifrom' (did you mean 'uniform'?)");
}

static void config_err_int_fields(void)
{
    BAD_VALUE("'batch':0", "batch: expected integer in [1, 65536], got 0");
    BAD_VALUE("'batch':65537", "batch: expected integer in [1, 65536], got 65537");
    BAD_VALUE("'batch':'4'", "batch: expected integer in [1, 65536], got '4'");
    BAD_VALUE("'batch':true", "batch: expected integer in [1, 65536], got true");
    BAD_VALUE("'batch':3.5", "batch: expected integer in [1, 65536], got 3.5");
    BAD_VALUE("'batch':null", "batch: expected integer in [1, 65536], got null");
    BAD_VALUE("'q_len':9", "q_len: expected integer in [1, 8], got 9");
    BAD_VALUE("'q_len':0", "q_len: expected integer in [1, 8], got 0");
    BAD_VALUE("'heads':129", "heads: expected integer in [1, 128], got 129");
    BAD_VALUE("'heads':'x'", "heads: expected integer in [1, 128], got 'x'");
    BAD_VALUE("'seed':-1", "seed: expected integer in [0, 9007199254740992], got -1");
    BAD_VALUE("'seed':9007199254740994", "seed: expected integer in [0, 9007199254740992], got 9007199254740994");
    BAD_VALUE("'seed':1.5", "seed: expected integer in [0, 9007199254740992], got 1.5");
    BAD_VALUE("'warmup':1001", "warmup: expected integer in [0, 1000], got 1001");
    BAD_VALUE("'warmup':-1", "warmup: expected integer in [0, 1000], got -1");
    BAD_VALUE("'warmup':[1,2]", "warmup: expected integer in [0, 1000], got [1,2]");
    BAD_VALUE("'min_runs':0", "min_runs: expected integer in [1, 100000], got 0");
    BAD_VALUE("'min_runs':100001", "min_runs: expected integer in [1, 100000], got 100001");
    BAD_VALUE("'max_runs':0", "max_runs: expected integer in [1, 1000000], got 0");
    BAD_VALUE("'max_runs':1000001", "max_runs: expected integer in [1, 1000000], got 1000001");
    BAD_VALUE("'num_kv_splits':'many'", "num_kv_splits: expected 'auto', 'tuned' or integer in [1, 256], got 'many'");
    BAD_VALUE("'num_kv_splits':0", "num_kv_splits: expected 'auto', 'tuned' or integer in [1, 256], got 0");
    BAD_VALUE("'num_kv_splits':257", "num_kv_splits: expected 'auto', 'tuned' or integer in [1, 256], got 257");
    BAD_VALUE("'num_kv_splits':['auto',2.5]", "num_kv_splits[1]: expected 'auto', 'tuned' or integer in [1, 256], got 2.5");
}

static void config_err_other_fields(void)
{
    BAD_VALUE("'mode':'graf'", "mode: expected 'eager' or 'graph', got 'graf'");
    BAD_VALUE("'mode':['eager','graf']", "mode[1]: expected 'eager' or 'graph', got 'graf'");
    BAD_VALUE("'mode':1", "mode: expected 'eager' or 'graph', got 1");
    BAD_VALUE("'l2':'warm'", "l2: expected 'cold', 'hot' or 'cold-clean', got 'warm'");
    BAD_VALUE("'l2':true", "l2: expected 'cold', 'hot' or 'cold-clean', got true");
    BAD_VALUE("'icache':'hot'", "icache: expected 'warm' or 'cold', got 'hot'");
    BAD_VALUE("'icache':false", "icache: expected 'warm' or 'cold', got false");
    BAD_VALUE("'causal':1", "causal: expected true or false, got 1");
    BAD_VALUE("'causal':'yes'", "causal: expected true or false, got 'yes'");
    BAD_VALUE("'q_std':0", "q_std: expected number in (0, 10000], got 0");
    BAD_VALUE("'q_std':10001", "q_std: expected number in (0, 10000], got 10001");
    BAD_VALUE("'q_std':'a'", "q_std: expected number in (0, 10000], got 'a'");
    BAD_VALUE("'kv_std':-1", "kv_std: expected number in (0, 10000], got -1");
    BAD_VALUE("'kv_std':1e400", "kv_std: expected number in (0, 10000], got a number out of range");
    BAD_VALUE("'target_rse':0", "target_rse: expected number in (0, 1], got 0");
    BAD_VALUE("'target_rse':1.5", "target_rse: expected number in (0, 1], got 1.5");
    BAD_VALUE("'max_seconds':0", "max_seconds: expected number in (0, 3600], got 0");
    BAD_VALUE("'max_seconds':3600.5", "max_seconds: expected number in (0, 3600], got 3600.5");
    BAD_VALUE("'placements':0", "placements: expected integer in [1, 8], got 0");
    BAD_VALUE("'placements':9", "placements: expected integer in [1, 8], got 9");
    BAD_VALUE("'placements':2.5", "placements: expected integer in [1, 8], got 2.5");
    BAD_VALUE("'atol':-0.1", "atol: expected number in [0, 1], got -0.1");
    BAD_VALUE("'atol':2", "atol: expected number in [0, 1], got 2");
    BAD_VALUE("'rtol':1.01", "rtol: expected number in [0, 1], got 1.01");
    BAD_VALUE("'max_rel_l2':'x'", "max_rel_l2: expected number in [0, 1], got 'x'");
    BAD_VALUE("'name':''", "name: expected string of 1 to 100 bytes without control characters, got ''");
    BAD_VALUE("'name':5", "name: expected string of 1 to 100 bytes without control characters, got 5");
    BAD_VALUE("'name':'a\\tb'", "name: expected string of 1 to 100 bytes without control characters, got 'a\\tb'");
    BAD_VALUE("'name':['a','b']", "name: expected string of 1 to 100 bytes without control characters, got ['a','b']");
}

static void config_err_kv_fields(void)
{
    const char *what = "expected integer in [1, 1048576] or {'uniform': [lo, hi]}";
    char tail[ERR_LEN];
    snprintf(tail, sizeof tail, "kv_len: %s, got -3", what);
    BAD_VALUE("'kv_len':-3", tail);
    snprintf(tail, sizeof tail, "kv_len: %s, got 1048577", what);
    BAD_VALUE("'kv_len':1048577", tail);
    snprintf(tail, sizeof tail, "kv_len: %s, got {}", what);
    BAD_VALUE("'kv_len':{}", tail);
    snprintf(tail, sizeof tail, "kv_len: %s, or a non-empty array of them, got []", what);
    BAD_VALUE("'kv_len':[]", tail);
    BAD_VALUE("'kv_len':{'uniform':[5,1]}", "kv_len.uniform: expected [lo, hi] with 1 <= lo <= hi <= 1048576, got [5,1]");
    BAD_VALUE("'kv_len':{'uniform':[1,2,3]}",
              "kv_len.uniform: expected [lo, hi] with 1 <= lo <= hi <= 1048576, got [1,2,3]");
    BAD_VALUE("'kv_len':{'uniform':'1-5'}", "kv_len.uniform: expected [lo, hi] with 1 <= lo <= hi <= 1048576, got '1-5'");
    BAD_VALUE("'kv_len':{'uniform':[0,5]}", "kv_len.uniform[0]: expected integer in [1, 1048576], got 0");
    BAD_VALUE("'kv_len':[64,{'uniform':[1,1.5]}]", "kv_len[1].uniform[1]: expected integer in [1, 1048576], got 1.5");
    BAD_VALUE("'kv_lens':[]", "kv_lens: expected non-empty array of at most 65536 integers, got []");
    BAD_VALUE("'kv_lens':5", "kv_lens: expected non-empty array of at most 65536 integers, got 5");
    BAD_VALUE("'kv_lens':[1,0]", "kv_lens[1]: expected integer in [1, 1048576], got 0");
    BAD_VALUE("'kv_lens':[1,'2']", "kv_lens[1]: expected integer in [1, 1048576], got '2'");
    BAD_VALUE("'batch':[]", "batch: expected integer in [1, 65536], or a non-empty array of them, got []");
    BAD_VALUE("'batch':[1,0]", "batch[1]: expected integer in [1, 65536], got 0");
    BAD_VALUE("'batch':[[1]]", "batch[0]: expected integer in [1, 65536], got [1]");
    /* the entry's index is in the path */
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1},{'batch':1,'kv_len':1},{'batch':1,'kv_len':-3}]}",
               "t.json: cases[2].kv_len: expected integer in [1, 1048576] or {'uniform': [lo, hi]}, got -3");
}

static void config_err_kv_lens_too_long(void)
{
    size_t n = 65537, len = 0, cap = n * 2 + 64;
    char *text = malloc(cap), err[ERR_LEN] = "";
    mb_config_t cfg;
    if (!text) { CHECK(text); return; }
    len += (size_t)snprintf(text, cap, "{\"cases\":[{\"kv_lens\":[1");
    for (size_t i = 1; i < n; i++) { text[len++] = ','; text[len++] = '1'; }
    snprintf(text + len, cap - len, "]}]}");
    CHECK(mb_config_parse("t.json", text, &cfg, err, sizeof err) == 2);
    CHECKF(strcmp(err, "t.json: cases[0].kv_lens: expected non-empty array of at most 65536 integers, "
                       "got [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1...") == 0, "%s", err);
    free(text);
}

/* Long values are cut at 40 bytes, never inside a UTF-8 character. */
static void config_err_value_shortened(void)
{
    char json[TEXT_LEN], want[ERR_LEN], name[256] = "", cut[64] = "";
    for (int i = 0; i < 60; i++) strcat(name, "\xc3\xa9");
    for (int i = 0; i < 19; i++) strcat(cut, "\xc3\xa9");
    snprintf(json, sizeof json, "{'cases':[{'name':'%s'}]}", name);
    snprintf(want, sizeof want,
             "t.json: cases[0].name: expected string of 1 to 100 bytes without control characters, got '%s...", cut);
    EXPECT_ERR(json, want);
    EXPECT_ERR("{'cases':[{'warmup':[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}]}",
               "t.json: cases[0].warmup: expected integer in [0, 1000], got [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,...");
}

static void config_err_missing_and_conflicting(void)
{
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1,'kv_lens':[1]}]}", "t.json: cases[0]: give kv_len or kv_lens, not both");
    EXPECT_ERR("{'defaults':{'kv_len':1,'kv_lens':[1]},'cases':[{'batch':1}]}",
               "t.json: defaults: give kv_len or kv_lens, not both");
    EXPECT_ERR("{'cases':[{'batch':1}]}", "t.json: cases[0]: missing key 'kv_len' (or 'kv_lens')");
    EXPECT_ERR("{'defaults':{'batch':1},'cases':[{'heads':4}]}", "t.json: cases[0]: missing key 'kv_len' (or 'kv_lens')");
    EXPECT_ERR("{'cases':[{'kv_len':1}]}", "t.json: cases[0]: missing key 'batch' (needed unless kv_lens is given)");
    EXPECT_ERR("{'cases':[{'batch':4,'kv_lens':[1,2,3]}]}",
               "t.json: cases[0].batch: expected 3 (the length of kv_lens), got 4");
    EXPECT_ERR("{'cases':[{'batch':[3,4],'kv_lens':[1,2,3]}]}",
               "t.json: cases[0].batch[1]: expected 3 (the length of kv_lens), got 4");
    EXPECT_ERR("{'defaults':{'batch':2,'kv_lens':[1,2,3]},'cases':[{}]}",
               "t.json: defaults.batch: expected 3 (the length of kv_lens), got 2");
    EXPECT_ERR("{'defaults':{'kv_lens':[1,2,3]},'cases':[{'batch':2}]}",
               "t.json: cases[0].batch: expected 3 (the length of kv_lens), got 2");
}

static void config_err_runs(void)
{
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1,'min_runs':50,'max_runs':20}]}",
               "t.json: cases[0].max_runs: expected integer in [50, 1000000] (at least min_runs), got 20");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1,'min_runs':5000}]}",
               "t.json: cases[0].min_runs: expected integer in [1, 2000] (at most max_runs), got 5000");
    EXPECT_ERR("{'defaults':{'max_runs':20},'cases':[{'batch':1,'kv_len':1,'min_runs':50}]}",
               "t.json: cases[0].min_runs: expected integer in [1, 20] (at most max_runs), got 50");
    EXPECT_ERR("{'defaults':{'min_runs':50},'cases':[{'batch':1,'kv_len':1,'max_runs':20}]}",
               "t.json: cases[0].max_runs: expected integer in [50, 1000000] (at least min_runs), got 20");
}

static void config_err_causal(void)
{
    mb_config_t cfg;
    EXPECT_ERR("{'cases':[{'q_len':4,'kv_lens':[4,5,1]}]}",
               "t.json: cases[0]: causal needs kv_len >= q_len; batch 2 has kv_len 1 < q_len 4");
    EXPECT_ERR("{'cases':[{'name':'c','batch':2,'kv_len':3,'q_len':[2,4]}]}",
               "t.json: cases[0] (c/q_len=4): causal needs kv_len >= q_len; batch 0 has kv_len 3 < q_len 4");
    /* uniform lengths: the first batch drawn below q_len is named */
    int first = -1;
    for (int b = 0; b < 64 && first < 0; b++)
        if (1 + mb_rng_u64(MB_DEF_SEED, MB_STREAM_KV_LENS, (uint64_t)b) % 4 < 2) first = b;
    CHECK(first >= 0);
    char want[ERR_LEN];
    snprintf(want, sizeof want, "t.json: cases[0]: causal needs kv_len >= q_len; batch %d has kv_len 1 < q_len 2", first);
    EXPECT_ERR("{'cases':[{'q_len':2,'batch':64,'kv_len':{'uniform':[1,4]}}]}", want);
    if (PARSE_OK("{'cases':[{'q_len':4,'kv_lens':[4,5,1],'causal':false}]}", &cfg)) mb_config_free(&cfg);
}

static void config_err_total_kv(void)
{
    mb_config_t cfg;
    EXPECT_ERR("{'cases':[{'batch':4096,'kv_len':1048576}]}",
               "t.json: cases[0]: expected total KV tokens (sum of kv lengths) <= 2147483647, got 4294967296");
    EXPECT_ERR("{'cases':[{'batch':2048,'kv_len':1048576}]}",
               "t.json: cases[0]: expected total KV tokens (sum of kv lengths) <= 2147483647, got 2147483648");
    if (PARSE_OK("{'cases':[{'batch':2047,'kv_len':1048576}]}", &cfg)) {
        CHECK(mb_case_total_kv(&cfg.cases[0]) == 2047ll * 1048576);
        mb_config_free(&cfg);
    }
}

static void config_err_duplicate_names(void)
{
    EXPECT_ERR("{'defaults':{'batch':1,'kv_len':1},'cases':[{'name':'a'},{'name':'b'},{'name':'a'}]}",
               "t.json: cases[2]: duplicate name 'a' (first used by cases[0])");
    EXPECT_ERR("{'cases':[{'batch':1,'kv_len':1},{'batch':1,'kv_len':1.0}]}",
               "t.json: cases[1]: duplicate name 'b1-q1-kv1-h16' (first used by cases[0])");
    EXPECT_ERR("{'cases':[{'name':'x','batch':1,'kv_len':1,'mode':['eager','eager']}]}",
               "t.json: cases[0]: duplicate name 'x/mode=eager' (first used by cases[0])");
    /* the duplicate reported is the earliest one in the file */
    EXPECT_ERR("{'defaults':{'batch':1,'kv_len':1},'cases':[{'name':'a'},{'name':'b'},{'name':'b'},{'name':'a'}]}",
               "t.json: cases[2]: duplicate name 'b' (first used by cases[1])");
    /* a grid suffix that makes an explicit name too long */
    char json[TEXT_LEN], want[ERR_LEN], name[101];
    memset(name, 'n', 100);
    name[100] = '\0';
    snprintf(json, sizeof json, "{'cases':[{'name':'%s','batch':1,'kv_len':1,'mode':['eager','graph'],"
             "'seed':[9007199254740992,0]}]}", name);
    snprintf(want, sizeof want, "t.json: cases[0]: expected a name of at most 127 bytes with its grid suffix, "
             "got '%.40s...'", name);
    EXPECT_ERR(json, want);
}

/* Grid text: a case with seeds 0..seeds-1 and heads 1..heads, plus `extra` single cases. */
static char *grid_text(int seeds, int heads, int extra)
{
    size_t cap = (size_t)seeds * 8 + (size_t)heads * 5 + (size_t)extra * 40 + 256, len = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    len += (size_t)snprintf(t + len, cap - len, "{\"cases\":[{\"batch\":1,\"kv_len\":1,\"seed\":[0");
    for (int i = 1; i < seeds; i++) len += (size_t)snprintf(t + len, cap - len, ",%d", i);
    len += (size_t)snprintf(t + len, cap - len, "],\"heads\":[1");
    for (int i = 2; i <= heads; i++) len += (size_t)snprintf(t + len, cap - len, ",%d", i);
    len += (size_t)snprintf(t + len, cap - len, "]}");
    for (int i = 0; i < extra; i++)
        len += (size_t)snprintf(t + len, cap - len, ",{\"name\":\"extra%d\",\"batch\":1,\"kv_len\":1}", i);
    snprintf(t + len, cap - len, "]}");
    return t;
}

static void config_err_too_many_cases(void)
{
    char err[ERR_LEN] = "";
    mb_config_t cfg;
    char *at_limit = grid_text(1000, 100, 0), *over = grid_text(1000, 101, 0), *over_later = grid_text(1000, 100, 1);
    if (at_limit && over && over_later) {
        CHECKF(mb_config_parse("t.json", at_limit, &cfg, err, sizeof err) == 0, "%s", err);
        CHECK(cfg.n_cases == 100000);
        if (cfg.n_cases == 100000) CHECKF(strcmp(cfg.cases[99999].name, "b1-q1-kv1-h100/seed=999") == 0, "%s",
                                          cfg.cases[99999].name);
        mb_config_free(&cfg);
        CHECK(mb_config_parse("t.json", over, &cfg, err, sizeof err) == 2);
        CHECKF(strcmp(err, "t.json: cases[0]: grid expansion gives more than 100000 cases in the file") == 0, "%s", err);
        CHECK(mb_config_parse("t.json", over_later, &cfg, err, sizeof err) == 2);
        CHECKF(strcmp(err, "t.json: cases[1]: grid expansion gives more than 100000 cases in the file") == 0, "%s", err);
    } else {
        CHECK(!"out of memory");
    }
    free(at_limit);
    free(over);
    free(over_later);
}

/* --- files --- */

static void config_load_errors(void)
{
    mb_config_t cfg;
    char err[ERR_LEN] = "", want[ERR_LEN];
    CHECK(mb_config_load("configs/no-such-config.json", &cfg, err, sizeof err) == 2);
    CHECKF(strcmp(err, "configs/no-such-config.json: cannot read: No such file or directory") == 0, "%s", err);
    CHECK(cleared(&cfg));
    CHECK(mb_config_load("configs", &cfg, err, sizeof err) == 2);
    CHECKF(strcmp(err, "configs: cannot read: Is a directory") == 0, "%s", err);
    CHECK(cleared(&cfg));

    /* a NUL byte would make the parser stop early and silently drop the rest */
    static const char nul[] = "{\n\"cases\":\0[{\"batch\":1,\"kv_len\":1}]}";
    char path[] = "/tmp/mb-test-config-XXXXXX";
    if (write_temp(path, nul, sizeof nul - 1) == 0) {
        CHECK(mb_config_load(path, &cfg, err, sizeof err) == 2);
        snprintf(want, sizeof want, "%s:2:9: JSON syntax error (NUL byte)", path);
        CHECKF(strcmp(err, want) == 0, "%s", err);
        CHECK(cleared(&cfg));
        unlink(path);
    } else {
        CHECK(!"cannot write a temporary file");
    }
}

static void config_load_file(void)
{
    static const char text[] = "{\"cases\": [\n  {\"batch\": 2, \"kv_len\": 5}\n]}\n";
    char path[] = "/tmp/mb-test-config-XXXXXX", err[ERR_LEN] = "";
    mb_config_t cfg;
    if (write_temp(path, text, sizeof text - 1) != 0) { CHECK(!"cannot write a temporary file"); return; }
    CHECKF(mb_config_load(path, &cfg, err, sizeof err) == 0, "%s", err);
    CHECK(cfg.path && strcmp(cfg.path, path) == 0 && cfg.text && strcmp(cfg.text, text) == 0);
    CHECK(cfg.n_cases == 1 && cfg.cases[0].file == cfg.path && all_lens(&cfg.cases[0], 5));
    mb_config_free(&cfg);
    unlink(path);
}

static void config_shipped_mixed_mla(void)
{
    static const struct { int batch, q_len, kv_len, heads; } shape[8] = {
        {4, 1, 1024, 32}, {4, 4, 8192, 32}, {32, 1, 8192, 16}, {32, 4, 1024, 16},
        {32, 1, 1024, 32}, {32, 4, 8192, 32}, {128, 1, 8192, 16}, {128, 4, 8192, 16},
    };
    mb_config_t cfg;
    char err[ERR_LEN] = "";
    CHECKF(mb_config_load("configs/mixed-mla.json", &cfg, err, sizeof err) == 0, "%s", err);
    CHECK(cfg.n_cases == 16 && cfg.text && strstr(cfg.text, "\"description\""));
    for (int i = 0; i < 16 && i < cfg.n_cases; i++) {
        const mb_case_t *c = &cfg.cases[i];
        char want[128];
        int s = i / 2;
        snprintf(want, sizeof want, "b%d-q%d-kv%d-h%d/mode=%s", shape[s].batch, shape[s].q_len, shape[s].kv_len,
                 shape[s].heads, i % 2 ? "graph" : "eager");
        CHECKF(strcmp(c->name, want) == 0, "%s, want %s", c->name, want);
        CHECK(c->batch == shape[s].batch && c->q_len == shape[s].q_len && c->heads == shape[s].heads);
        CHECK(all_lens(c, shape[s].kv_len) && c->mode == (i % 2 ? MB_MODE_GRAPH : MB_MODE_EAGER));
        CHECK(c->l2 == MB_L2_COLD && c->splits == 0 && c->causal == 1 && c->index == s);
    }
    mb_config_free(&cfg);
}

static void config_shipped_smoke(void)
{
    mb_config_t cfg;
    char err[ERR_LEN] = "";
    CHECKF(mb_config_load("configs/smoke.json", &cfg, err, sizeof err) == 0, "%s", err);
    CHECK(cfg.n_cases >= 4);
    int list = 0, uniform = 0, eager = 0, hot = 0, clean = 0;
    for (int i = 0; i < cfg.n_cases; i++) {
        const mb_case_t *c = &cfg.cases[i];
        CHECK(c->max_seconds == 0.2 && c->min_runs == 5);
        /* small enough to run in seconds */
        CHECKF(mb_case_total_kv(c) <= 20000 && c->batch * c->q_len * c->heads <= 1024, "%s", c->name);
        list += strcmp(c->kv_desc, "list") == 0;
        uniform += strncmp(c->kv_desc, "uniform", 7) == 0;
        eager += c->mode == MB_MODE_EAGER;
        hot += c->l2 == MB_L2_HOT;
        clean += c->l2 == MB_L2_COLD_CLEAN;
    }
    CHECK(list && uniform && eager && hot && clean);
    mb_config_free(&cfg);
}

/* configs/paged.json: each mixed-mla shape flat and with 64-token pages both ways; 1- and 16-token
 * shuffled pages for two of them; graph mode, auto splits. */
static void config_shipped_paged(void)
{
    mb_config_t cfg;
    char err[ERR_LEN] = "";
    CHECKF(mb_config_load("configs/paged.json", &cfg, err, sizeof err) == 0, "%s", err);
    int flat = 0, p64[2] = {0, 0}, small = 0;
    for (int i = 0; i < cfg.n_cases; i++) {
        const mb_case_t *c = &cfg.cases[i];
        CHECKF(c->mode == MB_MODE_GRAPH && c->splits == 0 && c->l2 == MB_L2_COLD, "%s", c->name);
        flat += c->page_size == 0;
        if (c->page_size == 64) p64[c->page_order]++;
        small += (c->page_size == 1 || c->page_size == 16) && c->page_order == MB_PAGES_SHUFFLED;
        /* the layout is in the name, so a comparison matches like with like */
        if (c->page_size) {
            char want[64];
            snprintf(want, sizeof want, "/page_size=%d/page_order=%s", c->page_size, mb_page_order_name(c->page_order));
            CHECKF(strstr(c->name, want) != NULL, "%s", c->name);
        }
    }
    CHECKF(cfg.n_cases == 28 && flat == 8 && p64[0] == 8 && p64[1] == 8 && small == 4, "%d cases", cfg.n_cases);
    mb_config_free(&cfg);
}

/* The GPU tests' configs parse, and the correctness sweep covers the paged layouts it promises. */
static void config_gpu_test_configs(void)
{
    static const char *const files[] = {"tests/gpu/correctness.json", "tests/gpu/negative.json",
                                        "tests/gpu/dump-paged.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        mb_config_t cfg;
        char err[ERR_LEN] = "";
        CHECKF(mb_config_load(files[f], &cfg, err, sizeof err) == 0, "%s", err);
        int paged = 0, sizes = 0, orders = 0, causal_multi = 0, partial_page = 0;
        for (int i = 0; i < cfg.n_cases; i++) {
            const mb_case_t *c = &cfg.cases[i];
            if (!c->page_size) continue;
            paged++;
            sizes |= (c->page_size == 1) | (c->page_size == 16) << 1 | (c->page_size == 48) << 2 | (c->page_size == 64) << 3;
            orders |= 1 << c->page_order;
            causal_multi |= c->causal && c->q_len > 1;
            for (int b = 0; b < c->batch; b++) partial_page |= c->kv_lens[b] % c->page_size != 0;
        }
        CHECKF(paged > 0 && orders == 3 && partial_page, "%s: %d paged cases", files[f], paged);
        if (f == 0) CHECKF(sizes == 15 && causal_multi && paged >= 40, "%d paged cases, sizes %#x", paged, sizes);
        mb_config_free(&cfg);
    }
}

/* --- the rest of the API --- */

static void config_free_is_safe(void)
{
    mb_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    mb_config_free(&cfg);
    mb_config_free(&cfg);
    mb_config_free(NULL);
    CHECK(cleared(&cfg));
    /* half built: cases allocated, one without lengths yet */
    cfg.cases = calloc(2, sizeof *cfg.cases);
    cfg.n_cases = cfg.cases ? 2 : 0;
    if (cfg.cases) cfg.cases[0].kv_lens = malloc(4 * sizeof(int32_t));
    cfg.path = malloc(8);
    mb_config_free(&cfg);
    CHECK(cleared(&cfg));
}

/* --filter keeps the matching cases in order with their own lengths, frees the rest (valgrind-clean
 * under make test's runner), keeps all for no pattern, and names a pattern that does not compile. */
static void config_filter(void)
{
    mb_config_t cfg;
    char err[ERR_LEN] = "";
    if (!PARSE_OK("{'defaults': {'mode': ['eager', 'graph']}, 'cases': ["
                  "{'name': 'b4-q1', 'batch': 4, 'q_len': 1, 'kv_len': 100, 'heads': 16},"
                  "{'name': 'b8-q2', 'batch': 8, 'q_len': 2, 'kv_len': 200, 'heads': 16},"
                  "{'name': 'b128-q4', 'batch': 128, 'q_len': 4, 'kv_len': 300, 'heads': 16}]}", &cfg)) return;
    CHECK(cfg.n_cases == 6);
    CHECK(mb_config_filter(&cfg, NULL, err, sizeof err) == 6 && cfg.n_cases == 6);
    CHECK(mb_config_filter(&cfg, "b128|b4-q1/mode=graph", err, sizeof err) == 3 && cfg.n_cases == 3);
    CHECKF(cfg.n_cases == 3 && !strcmp(cfg.cases[0].name, "b4-q1/mode=graph") &&
           !strcmp(cfg.cases[1].name, "b128-q4/mode=eager") && !strcmp(cfg.cases[2].name, "b128-q4/mode=graph"),
           "%s %s", cfg.cases[0].name, cfg.n_cases > 1 ? cfg.cases[1].name : "");
    CHECK(cfg.n_cases == 3 && cfg.cases[0].batch == 4 && cfg.cases[0].kv_lens[3] == 100 &&
          cfg.cases[2].batch == 128 && cfg.cases[2].kv_lens[127] == 300);
    CHECK(mb_config_filter(&cfg, "(", err, sizeof err) == -1 && cfg.n_cases == 3);
    CHECKF(!strncmp(err, "--filter '(': not a regular expression (", 40), "%s", err);
    CHECK(mb_config_filter(&cfg, "^b4", err, sizeof err) == 1);      /* anchored: b4 only, not b128 */
    CHECK(mb_config_filter(&cfg, "nothing", err, sizeof err) == 0 && cfg.n_cases == 0);
    mb_config_free(&cfg);
    CHECK(cleared(&cfg));
}

/* --set: a key for every case, over "defaults" and over the entries' own (kv_len replacing kv_lens),
 * its value JSON or else text; each bad override is exit 2 naming the argument, and an error the
 * overrides cause in the file says they were there. */
static void config_set(void)
{
    char path[] = "/tmp/mb-set-XXXXXX", text[TEXT_LEN], err[ERR_LEN] = "";
    dq(text, sizeof text, "{'defaults': {'placements': 2, 'mode': ['eager', 'graph']}, 'cases': ["
                          "{'name': 'a', 'batch': 4, 'kv_len': 100, 'placements': 3, 'l2': 'cold'},"
                          "{'name': 'b', 'batch': 3, 'kv_lens': [5, 6, 7], 'q_len': 2}]}");
    if (write_temp(path, text, strlen(text))) { CHECK(0); return; }
    mb_config_t cfg;
    const char *sets[] = {"placements=8", "mode=graph", "l2=hot", "kv_len=64"};
    CHECKF(mb_config_load_set(path, sets, 4, &cfg, err, sizeof err) == 0, "%s", err);
    CHECK(cfg.n_cases == 2 && cfg.sets && !strcmp(cfg.sets, "--set placements=8 --set mode=graph --set l2=hot --set kv_len=64"));
    for (int i = 0; i < cfg.n_cases; i++) {
        const mb_case_t *c = &cfg.cases[i];
        CHECKF(c->placements == 8 && c->mode == MB_MODE_GRAPH && c->l2 == MB_L2_HOT && c->kv_lens[0] == 64, "%s", c->name);
    }
    CHECK(cfg.n_cases == 2 && cfg.cases[1].batch == 3 && cfg.cases[1].kv_lens[2] == 64 && !strcmp(cfg.cases[1].name, "b"));
    CHECK(cfg.text && strstr(cfg.text, "\"placements\":\t8") && !strstr(cfg.text, "kv_lens"));
    mb_config_free(&cfg);
    const char *grid[] = {"mode=[\"eager\", \"graph\"]"};
    CHECK(mb_config_load_set(path, grid, 1, &cfg, err, sizeof err) == 0 && cfg.n_cases == 4);
    mb_config_free(&cfg);
    const struct { const char *set, *msg; } bad[] = {
        {"placements=99", "--set placements=99: placements: expected integer in [1, 8], got 99"},
        {"placement=8", "--set placement=8: unknown key \"placement\" (did you mean \"placements\"?)"},
        {"name=x", "--set name=x: each case has a name of its own; one cannot be set for all"},
        {"=8", "--set '=8': expected KEY=VALUE, e.g. placements=8 or l2=hot"},
        {"l2=lukewarm", "--set l2=lukewarm: l2: expected \"cold\", \"hot\" or \"cold-clean\", got \"lukewarm\""},
        {"icache=hot", "--set icache=hot: icache: expected \"warm\" or \"cold\", got \"hot\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECKF(mb_config_load_set(path, &bad[i].set, 1, &cfg, err, sizeof err) == 2 && !strcmp(err, bad[i].msg),
               "%s: %s", bad[i].set, err);
        CHECK(cleared(&cfg));
    }
    const char *causal[] = {"kv_len=1"};   /* shorter than case b's q_len 2: the file's case, the override named */
    CHECK(mb_config_load_set(path, causal, 1, &cfg, err, sizeof err) == 2);
    CHECKF(strstr(err, "cases[1]") && strstr(err, " (with --set kv_len=1)"), "%s", err);
    unlink(path);
}

static void config_err_buffer(void)
{
    mb_config_t cfg;
    char err[10];
    CHECK(mb_config_parse("t.json", "{}", &cfg, NULL, 0) == 2);
    CHECK(mb_config_parse("t.json", "{}", &cfg, err, sizeof err) == 2);
    CHECK(strlen(err) == sizeof err - 1 && strncmp(err, "t.json: t", 9) == 0);
    CHECK(mb_config_parse("long-file-name.json", "[", &cfg, err, sizeof err) == 2);
    CHECK(strlen(err) == sizeof err - 1);
}

static void config_mode_name_and_total_kv(void)
{
    CHECK(strcmp(mb_mode_name(MB_MODE_EAGER), "eager") == 0 && strcmp(mb_mode_name(MB_MODE_GRAPH), "graph") == 0);
    mb_case_t c;
    memset(&c, 0, sizeof c);
    c.batch = 2100;
    c.kv_lens = malloc(sizeof(int32_t) * 2100);
    if (!c.kv_lens) { CHECK(c.kv_lens); return; }
    for (int b = 0; b < c.batch; b++) c.kv_lens[b] = MB_MAX_KV_LEN;
    CHECK(mb_case_total_kv(&c) == 2100ll * MB_MAX_KV_LEN);   /* beyond int32: no overflow */
    c.batch = 3;
    c.kv_lens[0] = 1; c.kv_lens[1] = 2; c.kv_lens[2] = 3;
    CHECK(mb_case_total_kv(&c) == 6);
    free(c.kv_lens);
}

void suite_config(void)
{
    RUN(config_builtin_defaults);
    RUN(config_defaults_merge);
    RUN(config_every_field_at_its_bounds);
    RUN(config_integral_floats);
    RUN(config_kv_lens_list);
    RUN(config_kv_override);
    RUN(config_grid_order_and_names);
    RUN(config_grid_value_texts);
    RUN(config_icache);
    RUN(config_l2_cold_clean);
    RUN(config_grid_generated_names);
    RUN(config_grid_in_defaults);
    RUN(config_uniform_lengths);
    RUN(config_pages);
    RUN(config_pages_grid);
    RUN(config_err_pages);
    RUN(config_err_pages_total);
    RUN(config_err_syntax);
    RUN(config_err_structure);
    RUN(config_err_keys);
    RUN(config_err_int_fields);
    RUN(config_err_other_fields);
    RUN(config_err_kv_fields);
    RUN(config_err_kv_lens_too_long);
    RUN(config_err_value_shortened);
    RUN(config_err_missing_and_conflicting);
    RUN(config_err_runs);
    RUN(config_err_causal);
    RUN(config_err_total_kv);
    RUN(config_err_duplicate_names);
    RUN(config_err_too_many_cases);
    RUN(config_load_errors);
    RUN(config_load_file);
    RUN(config_shipped_mixed_mla);
    RUN(config_shipped_smoke);
    RUN(config_shipped_paged);
    RUN(config_gpu_test_configs);
    RUN(config_free_is_safe);
    RUN(config_filter);
    RUN(config_set);
    RUN(config_err_buffer);
    RUN(config_mode_name_and_total_kv);
}
