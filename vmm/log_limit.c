/* Per-guest rate limits for the log (log_limit.h). */
#include "vmm/log_limit.h"

#include <string.h>

static void refill(struct log_limit *l, uint64_t now_ns)
{
    if (!l->started) {
        l->started = true;
        l->tokens = LOG_LIMIT_BURST;
        l->refilled_ns = now_ns;
        return;
    }
    if (now_ns <= l->refilled_ns)
        return;
    uint64_t n = (now_ns - l->refilled_ns) / LOG_LIMIT_EVERY_NS;
    if (n == 0)
        return;
    l->tokens = n >= LOG_LIMIT_BURST - l->tokens ? LOG_LIMIT_BURST : l->tokens + (uint32_t)n;
    l->refilled_ns += n * LOG_LIMIT_EVERY_NS;
}

bool log_limit_take(struct log_limit *l, uint64_t now_ns, uint32_t *report, uint64_t *since_ns)
{
    refill(l, now_ns);
    *report = 0;
    *since_ns = 0;
    if (l->tokens == 0) {
        if (l->suppressed++ == 0)
            l->first_dropped_ns = now_ns;
        l->last_dropped_ns = now_ns;
        return false;
    }
    l->tokens--;
    if (l->suppressed && (!l->reported || now_ns >= l->last_report_ns + LOG_LIMIT_REPORT_NS)) {
        *report = l->suppressed;
        *since_ns = l->first_dropped_ns;
        l->suppressed = 0;
        l->reported = true;
        l->last_report_ns = now_ns;
    }
    return true;
}

uint32_t log_limit_flush(struct log_limit *l, uint64_t now_ns, uint64_t *since_ns)
{
    if (!l->suppressed || now_ns < l->last_dropped_ns + LOG_LIMIT_EVERY_NS)
        return 0;
    /* A slow storm (a line every refill period or so) looks quiet between its lines: it still
     * gets one summary every LOG_LIMIT_REPORT_NS, like a fast one. */
    if (l->reported && now_ns < l->last_report_ns + LOG_LIMIT_REPORT_NS)
        return 0;
    uint32_t n = l->suppressed;
    *since_ns = l->first_dropped_ns;
    l->suppressed = 0;
    l->reported = true;
    l->last_report_ns = now_ns;
    return n;
}

int log_source_of(const char *msg)
{
    static const char *const prefixes[] = { "guest ", "vgpu " };
    for (unsigned k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
        size_t n = strlen(prefixes[k]);
        if (strncmp(msg, prefixes[k], n) != 0)
            continue;
        const char *p = msg + n;
        int id = 0, digits = 0;
        for (; *p >= '0' && *p <= '9' && digits < 4; p++, digits++)
            id = id * 10 + (*p - '0');
        if (digits && (*p == ' ' || *p == ':'))
            return id;
    }
    return -1;
}
