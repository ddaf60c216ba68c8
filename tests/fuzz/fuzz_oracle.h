/* Marks a fuzz target's oracle (the checks it runs after each operation).  The oracle's own
 * branches are not the code under test: left uninstrumented they neither steer the fuzzer nor
 * pay the per-comparison coverage callbacks, which otherwise take most of the time of targets
 * whose oracle walks every table after every operation (no_sanitize("coverage"): clang >= 13).
 *
 * FUZZ_ORACLE marks an oracle the fuzz entry point calls.  It is also noinline: clang 14
 * inlines a static function called once into its caller, and the inlined body is instrumented
 * as the caller is, so an oracle inlined into the instrumented entry point paid a callback per
 * comparison again (perf: most of fuzz_gtt_ops's samples).  FUZZ_ORACLE_PART marks a helper
 * that only oracles call: inlined into them it stays uninstrumented, and its calls stay cheap
 * (fuzz_vmx_ept's walk, once per page). */
#ifndef TESTS_FUZZ_FUZZ_ORACLE_H
#define TESTS_FUZZ_FUZZ_ORACLE_H

#define FUZZ_ORACLE_PART __attribute__((no_sanitize("coverage")))
#define FUZZ_ORACLE      __attribute__((no_sanitize("coverage"), noinline))

#endif /* TESTS_FUZZ_FUZZ_ORACLE_H */
