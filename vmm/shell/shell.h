/* The operator's shell on the serial console.  Every command is one row of the table in
 * commands.c: {name, arguments, one-line help, argument counts, handler}.  `help` prints the
 * table; a wrong argument count prints the usage line from the same row. */
#ifndef TESSERA_VMM_SHELL_SHELL_H
#define TESSERA_VMM_SHELL_SHELL_H

#include <stdbool.h>
#include <stdint.h>

#define SHELL_PROMPT "tessera> "

enum shell_status {
    SHELL_OK = 0,
    SHELL_FAILED, /* the handler printed an "error: ..." line */
    SHELL_USAGE,  /* the arguments were wrong: print the usage line */
};

struct shell_command {
    const char *name;
    const char *args; /* "<leaf> [subleaf]" */
    const char *help;
    unsigned min_args, max_args;
    enum shell_status (*run)(int argc, char **argv); /* argv[0] is the command name */
};

extern const struct shell_command shell_commands[];
extern const unsigned shell_command_count;

void shell_init(void);
/* Reads whatever the operator typed and runs finished lines; never blocks. */
void shell_poll(void);
/* Runs one command line (modified in place). */
enum shell_status shell_execute(char *line);

__attribute__((format(printf, 1, 2))) void shell_error(const char *fmt, ...);

/* How promptly the shell gets its turns on its CPU's loop, which it shares with guests' slices
 * and (on one CPU) the render loop: a byte the operator typed waits up to one gap for the shell
 * to see it.  Counted over a window from the last shell_turns_take() (boot, if never called),
 * which starts the next one. */
struct shell_turns {
    uint64_t turns;           /* shell_poll() calls in the window */
    uint64_t window_ns;       /* the window's length */
    uint64_t longest_gap_ns;  /* the longest time between two of them in the window */
    uint64_t longest_ever_ns; /* and since boot */
    uint64_t last_ran_ns;     /* the last command's run, its answer queued for the UART */
};
void shell_turns_take(struct shell_turns *out);

/* Sends what the operator types to `byte` instead of the line editor (e.g. a guest's console)
 * until it returns false; then the prompt comes back. */
void shell_divert(bool (*byte)(unsigned char c, void *ctx), void *ctx);

#endif
