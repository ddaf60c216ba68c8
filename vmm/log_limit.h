/* Rate limits for the hypervisor log, one per guest: a guest that provokes a refusal
 * a thousand times a second must not fill the console, push the shell's answers back behind
 * minutes of queued lines, or flush the log ring of everything else.  A token bucket per
 * source: LOG_LIMIT_BURST lines at once, then one every LOG_LIMIT_EVERY_NS; what is dropped is
 * counted and said in one line ("N similar lines suppressed"): with the next line that gets
 * through, at most once every LOG_LIMIT_REPORT_NS while the storm goes on, and when the guest
 * has been quiet for a refill period.  Pure: time comes from the caller. */
#ifndef TESSERA_VMM_LOG_LIMIT_H
#define TESSERA_VMM_LOG_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define LOG_LIMIT_BURST     20u
#define LOG_LIMIT_EVERY_NS  500000000ull   /* then 2 lines a second */
#define LOG_LIMIT_REPORT_NS 10000000000ull /* a summary at most every 10 s */

struct log_limit {
    uint32_t tokens;
    bool started;
    uint64_t refilled_ns; /* time the tokens were last topped up to */
    uint32_t suppressed;  /* lines dropped since the last one printed or reported */
    uint64_t first_dropped_ns;
    uint64_t last_dropped_ns;
    bool reported; /* a summary was given, at last_report_ns */
    uint64_t last_report_ns;
};

/* A line from this source at now_ns: true to print it.  When lines dropped before it are to be
 * reported now, *report is their number (print the summary first) and *since_ns when the first
 * was; else 0. */
bool log_limit_take(struct log_limit *l, uint64_t now_ns, uint32_t *report, uint64_t *since_ns);
/* Lines dropped and not yet reported, once the source has been quiet for LOG_LIMIT_EVERY_NS
 * and no summary was given in the last LOG_LIMIT_REPORT_NS: their number (and *since_ns), to be
 * said now; 0 otherwise. */
uint32_t log_limit_flush(struct log_limit *l, uint64_t now_ns, uint64_t *since_ns);

/* The guest a log line is about, from the prefix every such line has ("guest 3 (kiosk3): ...",
 * "vgpu 3: ..."), or -1. */
int log_source_of(const char *msg);

#endif
