/* mb_stats_compute on data whose statistics are known exactly, including data far from zero, where a
 * one-pass variance would lose every significant digit. */
#include <math.h>
#include <string.h>
#include "stats.h"
#include "unit.h"

static int near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want) || got == want;
}

static void test_stats_odd(void)
{
    const double x[] = { 5.0, 1.0, 4.0, 2.0, 3.0 };
    mb_stats_t s;
    mb_stats_compute(x, 5, &s);
    CHECK(s.n == 5);
    CHECK(s.median == 3.0 && s.mean == 3.0 && s.min == 1.0 && s.max == 5.0);
    /* Squared deviations 4+1+0+1+4 = 10, over n - 1 = 4. */
    CHECKF(near(s.stddev, sqrt(2.5), 1e-15), "stddev %.17g", s.stddev);
    CHECKF(near(s.rse, sqrt(2.5) / sqrt(5.0) / 3.0, 1e-15), "rse %.17g", s.rse);
}

static void test_stats_even(void)
{
    const double x[] = { 4.0, 10.0, 1.0, 3.0 };
    mb_stats_t s;
    mb_stats_compute(x, 4, &s);
    CHECK(s.n == 4);
    CHECK(s.median == 3.5);           /* mean of the middle two, 3 and 4 */
    CHECK(s.mean == 4.5 && s.min == 1.0 && s.max == 10.0);
    /* Deviations -3.5, 5.5, -0.5, -1.5: squares sum to 12.25 + 30.25 + 0.25 + 2.25 = 45, over 3. */
    CHECKF(near(s.stddev, sqrt(15.0), 1e-15), "stddev %.17g", s.stddev);
    CHECKF(near(s.rse, sqrt(15.0) / 2.0 / 4.5, 1e-15), "rse %.17g", s.rse);

    const double two[] = { 7.0, 3.0 };
    mb_stats_compute(two, 2, &s);
    CHECK(s.median == 5.0 && s.mean == 5.0 && s.min == 3.0 && s.max == 7.0);
    CHECKF(near(s.stddev, sqrt(8.0), 1e-15), "stddev %.17g", s.stddev);
}

static void test_stats_single_and_empty(void)
{
    const double one[] = { 12.5 };
    mb_stats_t s;
    mb_stats_compute(one, 1, &s);
    CHECK(s.n == 1);
    CHECK(s.median == 12.5 && s.mean == 12.5 && s.min == 12.5 && s.max == 12.5);
    CHECK(s.stddev == 0.0 && s.rse == 0.0);

    memset(&s, 0x5a, sizeof s);
    mb_stats_compute(one, 0, &s);
    CHECK(s.n == 0);
    CHECK(s.median == 0.0 && s.mean == 0.0 && s.min == 0.0 && s.max == 0.0 && s.stddev == 0.0 && s.rse == 0.0);
}

/* 1e6 plus multiples of 2^-10 (exact in double): the true stddev is that of the offsets. A one-pass
 * sum of squares near 1e12 * n carries rounding errors of ~1e-4, larger than the variance itself. */
static void test_stats_large_offset(void)
{
    enum { N = 1001 };
    static double x[N];
    double d2 = 0.0;
    for (int i = 0; i < N; i++) {
        int k = (i * 37) % N - N / 2;    /* -500..500, each once, shuffled */
        x[i] = 1e6 + k / 1024.0;
        d2 += (k / 1024.0) * (k / 1024.0);
    }
    double want_sd = sqrt(d2 / (N - 1));
    mb_stats_t s;
    mb_stats_compute(x, N, &s);
    CHECK(s.n == N);
    CHECKF(near(s.mean, 1e6, 1e-15), "mean %.17g", s.mean);
    CHECK(s.median == 1e6);
    CHECK(s.min == 1e6 - 500 / 1024.0 && s.max == 1e6 + 500 / 1024.0);
    CHECKF(near(s.stddev, want_sd, 1e-9), "stddev %.17g, want %.17g", s.stddev, want_sd);
    CHECKF(near(s.rse, want_sd / sqrt((double)N) / 1e6, 1e-9), "rse %.17g", s.rse);

    double naive = 0.0, sum = 0.0;
    for (int i = 0; i < N; i++) { sum += x[i]; naive += x[i] * x[i]; }
    naive = (naive - sum * sum / N) / (N - 1);
    /* Guard that this case really defeats the one-pass formula, or it proves nothing. */
    CHECKF(!near(naive < 0 ? 0.0 : sqrt(naive), want_sd, 1e-3), "one-pass got %.17g", sqrt(fabs(naive)));
}

static void test_stats_input_untouched(void)
{
    double x[] = { 9.0, -2.0, 7.5, 3.0, 3.0, 100.0, 0.25 };
    double copy[sizeof x / sizeof x[0]];
    memcpy(copy, x, sizeof x);
    mb_stats_t s;
    mb_stats_compute(x, 7, &s);
    CHECK(memcmp(x, copy, sizeof x) == 0);
    CHECK(s.median == 3.0 && s.min == -2.0 && s.max == 100.0);
    /* Non-positive mean: rse is defined as 0 rather than a negative or infinite ratio. */
    const double neg[] = { -1.0, -2.0, -3.0 };
    mb_stats_compute(neg, 3, &s);
    CHECK(s.mean == -2.0 && s.rse == 0.0 && near(s.stddev, 1.0, 1e-15));
}

void suite_stats(void)
{
    RUN(test_stats_odd);
    RUN(test_stats_even);
    RUN(test_stats_single_and_empty);
    RUN(test_stats_large_offset);
    RUN(test_stats_input_untouched);
}
