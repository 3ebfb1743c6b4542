/* Stopping a run by signal: the first SIGINT/SIGTERM only raises the flag (the run writes its finished
 * cases), a repeat within a second is ignored (what `timeout` delivers), a later one exits 130 at once. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "stop.h"
#include "unit.h"

static void pause_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0) { }
}

/* Runs `body` in a child process with the handler installed; its exit status (or 128 + signal). */
static int in_child(void (*body)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        mb_stop_catch();
        body();
        _exit(mb_interrupted ? 7 : 0);   /* 7: still alive after its signals, flag set */
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void one_int(void) { raise(SIGINT); }
static void two_quick(void) { raise(SIGINT); raise(SIGINT); }
static void term_then_int(void) { raise(SIGTERM); pause_ms(50); raise(SIGINT); }
static void two_apart(void) { raise(SIGTERM); pause_ms(1100); raise(SIGTERM); }

static void test_stop_signals(void)
{
    CHECKF(in_child(one_int) == 7, "one SIGINT: the run goes on to write its tables");
    CHECKF(in_child(two_quick) == 7, "a repeat at once (timeout's double delivery) is ignored");
    CHECKF(in_child(term_then_int) == 7, "SIGTERM then SIGINT within the second: one request");
    CHECKF(in_child(two_apart) == 130, "a second request a second later exits 130 at once");
}

void suite_stop(void)
{
    RUN(test_stop_signals);
}
