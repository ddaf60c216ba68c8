#include "vmm/log.h"

#include "arch/x86/timer.h"
#include "tessera/limits.h"
#include "vmm/console.h"
#include "vmm/log_limit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LOG_RING_BYTES 16384

static enum log_level level = LOG_INFO;
static char ring[LOG_RING_BYTES];
static size_t ring_head; /* next write position */
static bool ring_wrapped;

static const char *const names[LOG_LEVELS] = { "error", "warn", "info", "debug" };

/* Lines about one guest are rate-limited per guest (log_limit.h); the most severe level among
 * those dropped is the level their summary is printed at. */
static struct log_limit limits[TESSERA_MAX_GUESTS];
static enum log_level dropped_level[TESSERA_MAX_GUESTS];

static void ring_put(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        ring[ring_head++] = s[i];
        if (ring_head == LOG_RING_BYTES) {
            ring_head = 0;
            ring_wrapped = true;
        }
    }
}

static const char *level_prefix(enum log_level lvl)
{
    return lvl == LOG_ERROR ? "error: " : lvl == LOG_WARN ? "warning: " : "";
}

static void emit(enum log_level lvl, char *line, size_t len)
{
    line[len++] = '\n';
    ring_put(line, len);
    if (lvl <= level)
        console_write(line, len);
}

static void say_suppressed(int src, uint32_t n, uint64_t since_us, uint64_t us)
{
    char line[160];
    uint64_t d = us - since_us;
    int len = snprintf(line, sizeof line - 1,
                       "[%5llu.%06llu] %sguest %d: %u similar lines "
                       "suppressed in %llu.%01llu s",
                       (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000),
                       level_prefix(dropped_level[src]), src, n, (unsigned long long)(d / 1000000),
                       (unsigned long long)(d % 1000000 / 100000));
    emit(dropped_level[src], line, (size_t)len);
    dropped_level[src] = LOG_DEBUG;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
    char line[320];
    uint64_t us = timer_uptime_us();
    int n = snprintf(line, sizeof line, "[%5llu.%06llu] %s", (unsigned long long)(us / 1000000),
                     (unsigned long long)(us % 1000000), level_prefix(lvl));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    int src = log_source_of(line + n);
    if (src >= 0 && src < (int)TESSERA_MAX_GUESTS) {
        uint32_t dropped;
        uint64_t since_ns;
        if (!log_limit_take(&limits[src], us * 1000u, &dropped, &since_ns)) {
            if (lvl < dropped_level[src] || limits[src].suppressed == 1)
                dropped_level[src] = lvl;
            return;
        }
        if (dropped)
            say_suppressed(src, dropped, since_ns / 1000u, us);
    }
    emit(lvl, line, strlen(line));
}

void log_poll(void)
{
    uint64_t us = timer_uptime_us();
    for (int i = 0; i < (int)TESSERA_MAX_GUESTS; i++) {
        uint64_t since_ns;
        uint32_t n = log_limit_flush(&limits[i], us * 1000u, &since_ns);
        if (n)
            say_suppressed(i, n, since_ns / 1000u, us);
    }
}

enum log_level log_get_level(void)
{
    return level;
}
void log_set_level(enum log_level l)
{
    level = l;
}
const char *log_level_name(enum log_level l)
{
    return l < LOG_LEVELS ? names[l] : "?";
}

int log_level_from_name(const char *name)
{
    for (int i = 0; i < LOG_LEVELS; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

void log_replay(void (*line)(const char *text, void *ctx), void *ctx)
{
    char buf[322];
    size_t n = 0;
    size_t start = ring_wrapped ? ring_head : 0;
    size_t total = ring_wrapped ? LOG_RING_BYTES : ring_head;
    bool skip_partial = ring_wrapped; /* the oldest line was cut by the wrap */
    for (size_t i = 0; i < total; i++) {
        char c = ring[(start + i) % LOG_RING_BYTES];
        if (c == '\n') {
            buf[n] = 0;
            if (!skip_partial)
                line(buf, ctx);
            skip_partial = false;
            n = 0;
        } else if (n < sizeof buf - 1) {
            buf[n++] = c;
        }
    }
}
