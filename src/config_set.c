/* --set KEY=VALUE: one key set for every case of a config without editing it (the device scripts used
 * to rewrite configs with python for "placements"). The override goes into "defaults" and out of every
 * case entry, so that it wins over both; kv_len and kv_lens replace each other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_set.h"

/* The key a case entry holds instead of `key`, which a set of `key` must also remove. */
static const char *rival(const char *key)
{
    return !strcmp(key, "kv_len") ? "kv_lens" : !strcmp(key, "kv_lens") ? "kv_len" : NULL;
}

static void drop(cJSON *obj, const char *key)
{
    const char *other = rival(key);
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    if (other) cJSON_DeleteItemFromObjectCaseSensitive(obj, other);
}

/* One override into root. 0, or 2 with a message. */
static int apply_one(cJSON *root, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        snprintf(err, errlen, "--set '%s': expected KEY=VALUE, e.g. placements=8 or l2=hot", arg);
        return 2;
    }
    char key[64], shown[320];
    snprintf(key, sizeof key, "%.*s", (int)(eq - arg < 63 ? eq - arg : 63), arg);
    snprintf(shown, sizeof shown, "--set %s", arg);
    if (!strcmp(key, "name")) {
        snprintf(err, errlen, "%s: each case has a name of its own; one cannot be set for all", shown);
        return 2;
    }
    /* JSON where it parses (8, true, ["eager", "graph"]), else the text as a string (graph, hot). */
    cJSON *v = cJSON_ParseWithOpts(eq + 1, NULL, 1);
    if (!v) v = cJSON_CreateString(eq + 1);
    if (!v) { snprintf(err, errlen, "%s: out of memory", shown); return 2; }
    if (mb_config_check_set(shown, key, v, err, errlen)) { cJSON_Delete(v); return 2; }
    cJSON *defaults = cJSON_GetObjectItemCaseSensitive(root, "defaults");
    if (!defaults) defaults = cJSON_AddObjectToObject(root, "defaults");
    if (!cJSON_IsObject(defaults)) { cJSON_Delete(v); return 0; }   /* the build names the bad "defaults" */
    drop(defaults, key);
    cJSON_AddItemToObject(defaults, key, v);
    cJSON *entry;
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    cJSON_ArrayForEach(entry, cases) if (cJSON_IsObject(entry)) drop(entry, key);
    return 0;
}

int mb_config_apply_sets(mb_config_t *cfg, const char *const *sets, int n, char *err, size_t errlen)
{
    cJSON *root = cJSON_ParseWithOpts(cfg->text, NULL, 1);
    if (!cJSON_IsObject(root)) { cJSON_Delete(root); return 0; }
    size_t len = 1;
    for (int i = 0; i < n; i++) len += strlen(sets[i]) + 7;
    char *shown = malloc(len), *text = NULL;
    int rc = shown ? 0 : 2;
    if (!shown) snprintf(err, errlen, "--set: out of memory");
    else shown[0] = '\0';
    for (int i = 0; i < n && !rc; i++) {
        rc = apply_one(root, sets[i], err, errlen);
        strcat(strcat(shown, i ? " --set " : "--set "), sets[i]);
    }
    if (!rc && !(text = cJSON_Print(root))) { snprintf(err, errlen, "--set: out of memory"); rc = 2; }
    cJSON_Delete(root);
    if (rc) { free(shown); return rc; }
    free(cfg->text);
    cfg->text = text;
    cfg->sets = shown;
    return 0;
}
