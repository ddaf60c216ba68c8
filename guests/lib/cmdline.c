/* The guest command line (the vendor configuration's `cmdline`), as words separated by spaces
 * or tabs: `key=value` or a bare `key`.  No quoting, as in the configuration itself.  The last
 * word with a key wins, so settings appended after defaults override them. */
#include "guests/lib/guest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

int guest_cmdline_get(const struct tessera_boot_info *boot, const char *key, char *buf, size_t len)
{
    if (!boot || !key)
        return -1;
    size_t key_len = strlen(key);
    if (key_len == 0 || strpbrk(key, "= \t"))
        return -1; /* no word can have that key */
    /* Never trust the terminator: stop at the end of the field whatever it holds. */
    const char *s = boot->cmdline;
    const char *end = s + strnlen(s, sizeof(boot->cmdline));
    const char *value = NULL;
    size_t value_len = 0;

    while (s < end) {
        while (s < end && is_space(*s))
            s++;
        const char *word = s;
        while (s < end && !is_space(*s))
            s++;
        size_t word_len = (size_t)(s - word);
        if (word_len < key_len || memcmp(word, key, key_len) != 0)
            continue;
        if (word_len == key_len) { /* bare key */
            value = word + key_len;
            value_len = 0;
        } else if (word[key_len] == '=') {
            value = word + key_len + 1;
            value_len = word_len - key_len - 1;
        }
    }
    if (!value)
        return -1;
    if (buf && len > 0) {
        size_t n = value_len < len - 1 ? value_len : len - 1;
        memcpy(buf, value, n);
        buf[n] = '\0';
    }
    return (int)value_len;
}

bool guest_cmdline_u64(const struct tessera_boot_info *boot, const char *key, uint64_t *out)
{
    char buf[TESSERA_GUEST_CMDLINE_MAX];
    int n = guest_cmdline_get(boot, key, buf, sizeof(buf));
    if (n <= 0 || (size_t)n >= sizeof(buf) || buf[0] == '-' || buf[0] == '+')
        return false;
    char *rest;
    errno = 0;
    unsigned long long v = strtoull(buf, &rest, 0);
    if (*rest != '\0' || errno == ERANGE)
        return false;
    *out = v;
    return true;
}
