/* Host unit tests (no GPU). Usage: unit-tests [NAME_FILTER]. Ends with "N passed, N failed". */
#include <string.h>
#include "unit.h"

int unit_failed_checks, unit_passed, unit_failed;
const char *unit_filter;

int unit_begin(const char *name)
{
    if (unit_filter && !strstr(name, unit_filter)) return 0;
    unit_failed_checks = 0;
    return 1;
}

void unit_end(const char *name)
{
    if (unit_failed_checks) { unit_failed++; printf("FAIL %s\n", name); }
    else { unit_passed++; printf("ok   %s\n", name); }
}

#define SUITE(s) void s(void);
#include "suites.h"
#undef SUITE

int main(int argc, char **argv)
{
    if (argc > 1) unit_filter = argv[1];
#define SUITE(s) s();
#include "suites.h"
#undef SUITE
    printf("%d passed, %d failed\n", unit_passed, unit_failed);
    return unit_failed ? 1 : 0;
}
