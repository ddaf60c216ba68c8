/* Marks a fuzz target's oracle (the checks it runs after each operation).  The oracle's own
 * branches are not the code under test: left uninstrumented they neither steer the fuzzer nor
 * pay the per-comparison coverage callbacks, which otherwise take most of the time of targets
 * whose oracle walks every table after every operation (no_sanitize("coverage"): clang >= 13). */
#ifndef TESTS_FUZZ_FUZZ_ORACLE_H
#define TESTS_FUZZ_FUZZ_ORACLE_H

#define FUZZ_ORACLE __attribute__((no_sanitize("coverage")))

#endif /* TESTS_FUZZ_FUZZ_ORACLE_H */
