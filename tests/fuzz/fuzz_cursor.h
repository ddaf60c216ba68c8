/* Reading a fuzzer's input as a stream of big-endian numbers: take() returns the next `bytes`
 * bytes as one number, padding with zeros once the input is used up (so every input, however
 * short, drives a whole run).  Shared by the fuzz targets that interpret their input as
 * operations. */
#ifndef TESTS_FUZZ_FUZZ_CURSOR_H
#define TESTS_FUZZ_FUZZ_CURSOR_H

#include <stddef.h>
#include <stdint.h>

struct cursor {
    const uint8_t *p;
    size_t n;
};

static inline uint64_t take(struct cursor *c, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v <<= 8;
        if (c->n) {
            v |= *c->p++;
            c->n--;
        }
    }
    return v;
}

#endif /* TESTS_FUZZ_FUZZ_CURSOR_H */
