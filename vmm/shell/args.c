#include "vmm/shell/args.h"

#include <stddef.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

int args_split(char *line, char **argv, int max)
{
    int argc = 0;
    char *p = line;
    for (;;) {
        while (is_space(*p))
            *p++ = 0;
        if (!*p)
            return argc;
        if (argc == max)
            return -1;
        argv[argc++] = p;
        while (*p && !is_space(*p))
            p++;
    }
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

bool args_parse_u64(const char *s, uint64_t *out)
{
    unsigned base = 10;
    if (!s || !*s)
        return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (!*s)
            return false;
    }
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d = (unsigned)digit_value(*s);
        if (d >= base || v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

bool args_parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!args_parse_u64(s, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}
