/* Built-in defaults for case fields a config leaves out. The check tolerances are justified by
 * measured error distributions: README.md, "How it checks". */
#ifndef MB_DEFAULTS_H
#define MB_DEFAULTS_H

#define MB_DEF_Q_LEN        1
#define MB_DEF_HEADS        16
#define MB_DEF_CAUSAL       1
#define MB_DEF_SPLITS       0        /* "auto" */
#define MB_DEF_MODE         MB_MODE_GRAPH
#define MB_DEF_L2           MB_L2_COLD
#define MB_DEF_ICACHE       MB_ICACHE_WARM   /* as the targets and the peers' numbers were taken */
#define MB_DEF_SEED         1
#define MB_DEF_Q_STD        1.0
#define MB_DEF_KV_STD       1.0
#define MB_DEF_WARMUP       3
#define MB_DEF_MIN_RUNS     10
#define MB_DEF_MAX_RUNS     2000
#define MB_DEF_TARGET_RSE   0.005
#define MB_DEF_MAX_SECONDS  2.0
/* Each case is timed on this many workspaces, each allocated while the earlier ones are still held (its
 * own buffers and, in graph mode, its own graph executable): on the H200 one placement against another
 * moved b32-q4-kv1024's graph time between 21.4 and 24.4 us in one process, by where the driver put the
 * executable rather than the buffers (README, "How it times"). */
#define MB_DEF_PLACEMENTS   3
#define MB_MAX_PLACEMENTS   8
#define MB_DEF_ATOL         1e-2     /* x the RMS of the reference row */
#define MB_DEF_RTOL         1e-2
#define MB_DEF_MAX_REL_L2   5e-3

#endif
