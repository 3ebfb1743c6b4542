/* The spin kernel's length: what the README promises (~100 us), at the clocks of the GPUs the tool
 * runs on, read in hipDeviceAttributeClockRate's unit (kHz). The first version multiplied kHz by 100
 * and spun 100 ms before every sample; these checks fail on that formula. */
#include "spin.h"
#include "unit.h"

static void test_spin_h200(void)
{
    /* H200: 1,980 MHz = 1,980,000 kHz; 100 us is 198,000 cycles. */
    CHECKF(mb_spin_cycles(1980000, 100.0) == 198000, "got %llu", (unsigned long long)mb_spin_cycles(1980000, 100.0));
    CHECK(mb_spin_cycles(1980000, 1.0) == 1980);
}

static void test_spin_length_in_time(void)
{
    /* Whatever the clock (MI300X 2,100 MHz, an older part at 1,000), the spin lasts MB_SPIN_US. */
    const int khz[] = { 1000000, 1410000, 1980000, 2100000 };
    for (int i = 0; i < 4; i++) {
        const double us = (double)mb_spin_cycles(khz[i], MB_SPIN_US) / (khz[i] / 1e3);
        CHECKF(us > 0.99 * MB_SPIN_US && us <= MB_SPIN_US, "%d kHz: %.3f us", khz[i], us);
    }
    CHECK(MB_SPIN_US >= 50.0 && MB_SPIN_US <= 1000.0);   /* longer than a call's submission, far below a sample's budget */
}

static void test_spin_unknown_clock(void)
{
    /* A runtime that reports no clock: the fallback's cycles, at least MB_SPIN_US on any real clock. */
    CHECK(mb_spin_cycles(0, 100.0) == 300000);
    CHECK(mb_spin_cycles(-5, 100.0) == 300000);
    CHECK(mb_spin_cycles(1980000, 0.0) == 0);
}

void suite_spin(void)
{
    RUN(test_spin_h200);
    RUN(test_spin_length_in_time);
    RUN(test_spin_unknown_clock);
}
