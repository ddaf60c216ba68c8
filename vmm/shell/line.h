/* The shell's line editor: bytes from a terminal in, an edited line out.  Pure (it writes its
 * echo through a callback), so every key sequence is unit-tested.  Keys: printable characters,
 * Backspace, Delete, Left/Right, Home/End (and Ctrl-A/Ctrl-E), Up/Down through the history,
 * Ctrl-U clears the line, Ctrl-C abandons it, Enter finishes it. */
#ifndef TESSERA_VMM_SHELL_LINE_H
#define TESSERA_VMM_SHELL_LINE_H

#include <stddef.h>

#define LINE_MAX_LEN 200
#define LINE_HISTORY 16

typedef void (*line_output)(const char *s, size_t len, void *ctx);

enum line_result { LINE_PENDING, LINE_READY, LINE_CANCELLED };

struct line_editor {
    char buf[LINE_MAX_LEN + 1];
    unsigned len, cursor;
    char history[LINE_HISTORY][LINE_MAX_LEN + 1];
    unsigned hist_count;          /* entries kept (<= LINE_HISTORY) */
    unsigned hist_newest;         /* index of the newest entry */
    int hist_pos;                 /* -1: editing a new line; else how far back we are */
    char draft[LINE_MAX_LEN + 1]; /* the new line, kept while browsing history */
    int esc_state;                /* escape-sequence parser state */
    unsigned esc_num;             /* the first numeric parameter of a CSI sequence (0: none) */
    unsigned char esc_extra;      /* the sequence had more than one parameter or a modifier */
    char last;                    /* previous byte, to swallow the \n of a \r\n pair */
    const char *prompt;
    line_output out;
    void *ctx;
};

void line_init(struct line_editor *ed, const char *prompt, line_output out, void *ctx);
/* Prints the prompt for a fresh line. */
void line_start(struct line_editor *ed);
/* Feeds one received byte.  On LINE_READY the finished line is in ed->buf (NUL-terminated)
 * until the next line_start. */
enum line_result line_feed(struct line_editor *ed, unsigned char byte);

#endif
