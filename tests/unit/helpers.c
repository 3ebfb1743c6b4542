/* Helpers the suites share: running the binary as a user would, and cleaning scratch directories. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"

int unit_run_cli(const char *args, char *out, size_t outlen)
{
    const char *bin = getenv("MLA_BENCH") ? getenv("MLA_BENCH") : "build/mla-bench";
    char cmd[2048];
    /* GPUs hidden, so the results do not depend on the machine the tests run on. */
    snprintf(cmd, sizeof cmd, "CUDA_VISIBLE_DEVICES= HIP_VISIBLE_DEVICES= NO_COLOR=1 %s %s 2>&1", bin, args);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, outlen - 1, p) : 0;
    out[n] = '\0';
    int st = p ? pclose(p) : -1;
    return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int unit_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

void unit_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char path[512];
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!lstat(path, &st) && S_ISDIR(st.st_mode)) unit_remove_tree(path);
        else unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

char *unit_read_back(FILE *f)
{
    if (!f) return NULL;
    long n = ftell(f);
    rewind(f);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (buf) buf[got] = '\0';
    return buf;
}
