/* The spin kernel's length (timing.c, gpuenv.c): it keeps the stream busy while the host queues the
 * start event and the call, so that the events time GPU work, not submission (nvbench's method). */
#ifndef MB_SPIN_H
#define MB_SPIN_H

#include <stdint.h>

#define MB_SPIN_US 100.0   /* longer than queuing one call (eager: a few launches, ~10-20 us) */

/* A runtime that reports no clock: 3 GHz, above any GPU's, so the spin lasts at least its length. */
#define MB_SPIN_FALLBACK_KHZ 3000000

/* SM clock cycles in `us` microseconds at clock_khz, the unit of hipDeviceAttributeClockRate. (Until
 * this was a function the tool multiplied kHz by 100 and spun 100 ms, a thousand times the intent,
 * before every sample and every launch-floor probe.) */
static inline uint64_t mb_spin_cycles(int clock_khz, double us)
{
    const double khz = clock_khz > 0 ? clock_khz : MB_SPIN_FALLBACK_KHZ;
    return us > 0.0 ? (uint64_t)(khz * us / 1e3) : 0;
}

#endif
