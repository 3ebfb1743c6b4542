/* Stopping a run from outside: SIGINT (Ctrl-C) or SIGTERM. Host-only, so the unit tests drive it. */
#ifndef MB_STOP_H
#define MB_STOP_H

#include <signal.h>

/* Set by the first SIGINT or SIGTERM: finish the current sample, write the finished cases, exit 130. */
extern volatile sig_atomic_t mb_interrupted;

/* Installs the handler. A second signal a second or more after the first exits 130 at once; one
 * sooner is the first request delivered twice (as `timeout` does) and is ignored. */
void mb_stop_catch(void);

#endif
