/* accept() and REJECT() for the config checker's tests: a configuration built with the fixture
 * (test_config_fixture.h) is accepted, or rejected as invalid with a message holding every given
 * part.  Include after cmocka.h and the fixture. */
#ifndef TEST_CONFIG_EXPECT_H
#define TEST_CONFIG_EXPECT_H

/* Checks that a check returned CFG_EINVALID and that its message holds every given part. */
static inline void expect_refusal(int rc, const char *msg, const char *const *parts)
{
    if (rc != CFG_EINVALID)
        print_message("rc %d, message \"%s\"\n", rc, msg);
    assert_int_equal(rc, CFG_EINVALID);
    for (int i = 0; parts[i]; i++) {
        if (!strstr(msg, parts[i])) {
            print_message("message \"%s\"\n  lacks \"%s\"\n", msg, parts[i]);
            fail();
        }
    }
}

/* Checks that t is rejected as invalid and that the message holds every given part. */
static inline void reject(const struct t_cfg *t, const char *const *parts)
{
    expect_refusal(t_check(t), t_err, parts);
}
#define REJECT(t, ...) reject((t), (const char *const[]){ __VA_ARGS__, NULL })

static inline void accept(const struct t_cfg *t)
{
    int rc = t_check(t);
    if (rc != CFG_OK)
        print_message("rejected: %s\n", t_err);
    assert_int_equal(rc, CFG_OK);
}

#endif
