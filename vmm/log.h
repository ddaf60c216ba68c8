/* The hypervisor log: timestamped lines on the console at or above the current level, and the
 * last 16 KiB of all lines kept for the shell's `log` command (so an operator who plugs in late
 * still sees why something happened).  A line about a guest starts "guest N ..." or "vgpu N:";
 * those are rate-limited per guest (log_limit.h), with a "guest N: K similar lines suppressed in
 * T s" line for what was dropped. */
#ifndef TESSERA_VMM_LOG_H
#define TESSERA_VMM_LOG_H

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG, LOG_LEVELS };

__attribute__((format(printf, 2, 3))) void log_msg(enum log_level lvl, const char *fmt, ...);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* Says what the rate limits dropped from guests that have gone quiet (the main loop calls it). */
void log_poll(void);
enum log_level log_get_level(void);
void log_set_level(enum log_level level);
const char *log_level_name(enum log_level level);
/* Level by name ("error", "warn", "info", "debug"); -1 when the name is not one. */
int log_level_from_name(const char *name);
/* Calls `line` for each kept line, oldest first. */
void log_replay(void (*line)(const char *text, void *ctx), void *ctx);

#endif
