/* Kernels that serve the measurement itself: a spin that hides host submission from the events, and
 * an empty kernel whose event-to-event time is the floor of what the tool can measure. */
#include "common.h"

__global__ void spin_kernel(uint64_t cycles)
{
    uint64_t start = clock64();
    while ((uint64_t)clock64() - start < cycles) { }
}

extern "C" hipError_t mb_launch_spin(uint64_t cycles, hipStream_t s)
{
    spin_kernel<<<1, 1, 0, s>>>(cycles);
    return MB_LAUNCH_RESULT();
}

__global__ void empty_kernel(void) { }

extern "C" hipError_t mb_launch_empty(hipStream_t s)
{
    empty_kernel<<<1, 1, 0, s>>>();
    return MB_LAUNCH_RESULT();
}
