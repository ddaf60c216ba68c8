#include "vmm/log.h"

#include "arch/x86/timer.h"
#include "vmm/console.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LOG_RING_BYTES 16384

static enum log_level level = LOG_INFO;
static char ring[LOG_RING_BYTES];
static size_t ring_head;        /* next write position */
static bool ring_wrapped;

static const char *const names[LOG_LEVELS] = { "error", "warn", "info", "debug" };

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

void log_msg(enum log_level lvl, const char *fmt, ...)
{
    char line[320];
    uint64_t us = timer_uptime_us();
    int n = snprintf(line, sizeof line, "[%5llu.%06llu] %s", (unsigned long long)(us / 1000000),
                     (unsigned long long)(us % 1000000),
                     lvl == LOG_ERROR ? "error: " : lvl == LOG_WARN ? "warning: " : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    ring_put(line, len);
    if (lvl <= level)
        console_write(line, len);
}

enum log_level log_get_level(void) { return level; }
void log_set_level(enum log_level l) { level = l; }
const char *log_level_name(enum log_level l) { return l < LOG_LEVELS ? names[l] : "?"; }

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
    bool skip_partial = ring_wrapped;   /* the oldest line was cut by the wrap */
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
