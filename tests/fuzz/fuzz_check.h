/* A fuzz target's property check: a failure names the property and its line before aborting,
 * so a crash report (and a reproducer run by hand) says which promise was broken. */
#ifndef TESTS_FUZZ_FUZZ_CHECK_H
#define TESTS_FUZZ_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_fail(const char *what, const char *file, int line)
{
    fprintf(stderr, "%s:%d: property broken: %s\n", file, line, what);
    abort();
}

#define check(cond) ((cond) ? (void)0 : fuzz_fail(#cond, __FILE__, __LINE__))

#endif /* TESTS_FUZZ_FUZZ_CHECK_H */
