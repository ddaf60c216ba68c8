#include "vmm/shell/shell.h"

#include "arch/x86/timer.h"
#include "vmm/console.h"
#include "vmm/shell/args.h"
#include "vmm/shell/line.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static struct line_editor editor;
static bool (*divert)(unsigned char c, void *ctx);
static void *divert_ctx;
static struct shell_turns turns;
static uint64_t window_start_ns, last_turn_ns;

void shell_divert(bool (*byte)(unsigned char c, void *ctx), void *ctx)
{
    divert = byte;
    divert_ctx = ctx;
}

static void to_console(const char *s, size_t len, void *ctx)
{
    console_write(s, len);
}

void shell_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stdout);
    vprintf(fmt, ap);
    fputs("\n", stdout);
    va_end(ap);
}

static const struct shell_command *find(const char *name)
{
    for (unsigned i = 0; i < shell_command_count; i++)
        if (!strcmp(shell_commands[i].name, name))
            return &shell_commands[i];
    return NULL;
}

static void usage(const struct shell_command *c)
{
    shell_error("usage: %s%s%s", c->name, c->args[0] ? " " : "", c->args);
}

enum shell_status shell_execute(char *line)
{
    char *argv[SHELL_MAX_ARGS + 1];
    int argc = args_split(line, argv, SHELL_MAX_ARGS + 1);
    if (argc == 0)
        return SHELL_OK;
    const struct shell_command *c = find(argv[0]);
    if (!c) {
        if (argc < 0)
            shell_error("too many words (at most %d)", SHELL_MAX_ARGS);
        else
            shell_error("unknown command '%s' (type 'help' for the list)", argv[0]);
        return SHELL_FAILED;
    }
    if (argc < 0 || (unsigned)argc - 1 < c->min_args || (unsigned)argc - 1 > c->max_args) {
        usage(c);
        return SHELL_USAGE;
    }
    enum shell_status st = c->run(argc, argv);
    if (st == SHELL_USAGE)
        usage(c);
    return st;
}

void shell_init(void)
{
    line_init(&editor, SHELL_PROMPT, to_console, NULL);
    line_start(&editor);
}

void shell_turns_take(struct shell_turns *out)
{
    uint64_t now = timer_now_ns();
    *out = turns;
    out->window_ns = now - window_start_ns;
    window_start_ns = now;
    turns.turns = 0;
    turns.longest_gap_ns = 0;
}

static void count_turn(uint64_t now)
{
    if (last_turn_ns) {
        uint64_t gap = now - last_turn_ns;
        if (gap > turns.longest_gap_ns)
            turns.longest_gap_ns = gap;
        if (gap > turns.longest_ever_ns)
            turns.longest_ever_ns = gap;
    }
    last_turn_ns = now;
    turns.turns++;
}

void shell_poll(void)
{
    int c;
    count_turn(timer_now_ns());
    while ((c = console_getc()) >= 0) {
        if (divert) {
            if (!divert((unsigned char)c, divert_ctx)) {
                divert = NULL;
                line_start(&editor);
            }
            continue;
        }
        enum line_result r = line_feed(&editor, (unsigned char)c);
        if (r == LINE_PENDING)
            continue;
        uint64_t t0 = timer_now_ns();
        if (r == LINE_READY)
            shell_execute(editor.buf);
        fflush(stdout);
        if (r == LINE_READY)
            turns.last_ran_ns = timer_now_ns() - t0;
        if (!divert) /* a command that diverted input (console) prompts when it ends */
            line_start(&editor);
    }
}
