/* The single-producer single-consumer ring (vmm/smp/spsc_ring.c), on one thread: order, full and
 * empty, wrapping of the free-running indices, when the consumer needs waking, bad set-ups.
 * tests/host/test_smp_race.c runs it across threads under ThreadSanitizer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmm/smp/spsc_ring.h"

struct msg {
    uint64_t seq, check;
};

static void fifo_order_full_and_empty(void **state)
{
    (void)state;
    struct msg mem[4], m;
    struct spsc_ring r;
    bool was_empty;
    assert_true(spsc_init(&r, mem, 4, sizeof m));
    assert_false(spsc_pop(&r, &m));
    for (uint64_t i = 0; i < 4; i++) {
        assert_true(spsc_push(&r, &(struct msg){ i, ~i }, &was_empty));
        assert_int_equal(was_empty, i == 0); /* only the first of a burst wakes */
    }
    assert_int_equal(spsc_count(&r), 4);
    assert_false(spsc_push(&r, &(struct msg){ 9, 9 }, NULL)); /* full: nothing written */
    for (uint64_t i = 0; i < 4; i++) {
        assert_true(spsc_pop(&r, &m));
        assert_int_equal(m.seq, i);
        assert_int_equal(m.check, ~i);
    }
    assert_false(spsc_pop(&r, &m));
    assert_int_equal(spsc_count(&r), 0);
}

/* The indices run freely through 2^32: a ring started just below the wrap keeps its order and
 * its full/empty answers across it. */
static void indices_wrap(void **state)
{
    (void)state;
    uint32_t mem[8], v;
    struct spsc_ring r;
    assert_true(spsc_init(&r, mem, 8, sizeof v));
    r.head = r.tail = UINT32_MAX - 3;
    uint32_t next = 0, expect = 0;
    for (int round = 0; round < 5; round++) {
        while (spsc_push(&r, &next, NULL))
            next++;
        assert_int_equal(spsc_count(&r), 8);
        for (int k = 0; k < 5; k++) {
            assert_true(spsc_pop(&r, &v));
            assert_int_equal(v, expect++);
        }
    }
    while (spsc_pop(&r, &v))
        assert_int_equal(v, expect++);
    assert_int_equal(expect, next);
}

/* A message pushed after the consumer drained the ring needs a wake-up; one pushed while an
 * earlier one is still unread does not. */
static void wake_only_an_emptied_consumer(void **state)
{
    (void)state;
    uint64_t mem[4], v = 1;
    struct spsc_ring r;
    bool was_empty;
    assert_true(spsc_init(&r, mem, 4, sizeof v));
    assert_true(spsc_push(&r, &v, &was_empty) && was_empty);
    assert_true(spsc_push(&r, &v, &was_empty) && !was_empty);
    assert_true(spsc_pop(&r, &v) && spsc_pop(&r, &v));
    assert_true(spsc_push(&r, &v, &was_empty) && was_empty);
}

static void bad_setups_refused(void **state)
{
    (void)state;
    uint8_t mem[64];
    struct spsc_ring r;
    assert_false(spsc_init(&r, mem, 3, 4)); /* not a power of two */
    assert_false(spsc_init(&r, mem, 1, 4)); /* one slot */
    assert_false(spsc_init(&r, mem, 4, 0)); /* empty messages */
    assert_false(spsc_init(&r, NULL, 4, 4));
    assert_false(spsc_init(&r, mem, 1u << 31, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fifo_order_full_and_empty),
        cmocka_unit_test(indices_wrap),
        cmocka_unit_test(wake_only_an_emptied_consumer),
        cmocka_unit_test(bad_setups_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
