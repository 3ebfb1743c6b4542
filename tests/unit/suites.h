/* One line a suite; each is defined in tests/unit/test_<name>.c. */
SUITE(suite_numeric)
SUITE(suite_config)
SUITE(suite_plan)
SUITE(suite_stats)
SUITE(suite_metrics)
SUITE(suite_sweep)
SUITE(suite_report)
SUITE(suite_cli)
