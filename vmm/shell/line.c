#include "vmm/shell/line.h"

#include <stdio.h>
#include <string.h>

/* VT100/ANSI key and cursor sequences (ECMA-48): ESC [ A/B/C/D arrows, ESC [ H/F and
 * ESC [ 1~/4~ home/end, ESC [ 3~ delete; ESC [ n D moves left n, ESC [ K clears to the end. */
#define KEY_CTRL(c) ((c)&0x1F)
#define KEY_ESC     0x1B
#define KEY_DEL     0x7F
#define KEY_BS      0x08

enum { ESC_NONE, ESC_GOT_ESC, ESC_GOT_CSI, ESC_GOT_PARAM };

static void emit(struct line_editor *ed, const char *s, size_t n)
{
    ed->out(s, n, ed->ctx);
}
static void emits(struct line_editor *ed, const char *s)
{
    emit(ed, s, strlen(s));
}

static void cursor_left(struct line_editor *ed, unsigned n)
{
    if (!n)
        return;
    char seq[16];
    snprintf(seq, sizeof seq, "\x1b[%uD", n);
    emits(ed, seq);
}

/* Reprints from the cursor to the end (plus `erase` blanks), then puts the cursor back. */
static void redraw_tail(struct line_editor *ed, unsigned erase)
{
    emit(ed, ed->buf + ed->cursor, ed->len - ed->cursor);
    for (unsigned i = 0; i < erase; i++)
        emit(ed, " ", 1);
    cursor_left(ed, ed->len - ed->cursor + erase);
}

/* Replaces the whole line (history browsing). */
static void replace_line(struct line_editor *ed, const char *text)
{
    cursor_left(ed, ed->cursor);
    emits(ed, "\x1b[K");
    snprintf(ed->buf, sizeof ed->buf, "%s", text);
    ed->len = ed->cursor = (unsigned)strlen(ed->buf);
    emit(ed, ed->buf, ed->len);
}

static void insert(struct line_editor *ed, char c)
{
    if (ed->len == LINE_MAX_LEN) {
        emits(ed, "\a");
        return;
    }
    memmove(ed->buf + ed->cursor + 1, ed->buf + ed->cursor, ed->len - ed->cursor);
    ed->buf[ed->cursor] = c;
    ed->len++;
    ed->buf[ed->len] = 0;
    emit(ed, &c, 1);
    ed->cursor++;
    redraw_tail(ed, 0);
}

static void delete_at_cursor(struct line_editor *ed)
{
    if (ed->cursor == ed->len)
        return;
    memmove(ed->buf + ed->cursor, ed->buf + ed->cursor + 1, ed->len - ed->cursor);
    ed->len--;
    redraw_tail(ed, 1);
}

static void backspace(struct line_editor *ed)
{
    if (!ed->cursor)
        return;
    ed->cursor--;
    cursor_left(ed, 1);
    delete_at_cursor(ed);
}

static void move_to(struct line_editor *ed, unsigned pos)
{
    if (pos < ed->cursor)
        cursor_left(ed, ed->cursor - pos);
    else
        emit(ed, ed->buf + ed->cursor, pos - ed->cursor);
    ed->cursor = pos;
}

static const char *history_at(const struct line_editor *ed, unsigned back)
{
    return ed->history[(ed->hist_newest + LINE_HISTORY - back) % LINE_HISTORY];
}

static void history_step(struct line_editor *ed, int dir)
{
    int pos = ed->hist_pos + dir;
    if (pos < -1 || pos >= (int)ed->hist_count)
        return;
    if (ed->hist_pos == -1)
        memcpy(ed->draft, ed->buf, sizeof ed->draft);
    ed->hist_pos = pos;
    replace_line(ed, pos == -1 ? ed->draft : history_at(ed, (unsigned)pos));
}

static void remember(struct line_editor *ed)
{
    if (!ed->len || (ed->hist_count && !strcmp(history_at(ed, 0), ed->buf)))
        return;
    ed->hist_newest = (ed->hist_newest + 1) % LINE_HISTORY;
    memcpy(ed->history[ed->hist_newest], ed->buf, sizeof ed->buf);
    if (ed->hist_count < LINE_HISTORY)
        ed->hist_count++;
}

void line_init(struct line_editor *ed, const char *prompt, line_output out, void *ctx)
{
    memset(ed, 0, sizeof *ed);
    ed->prompt = prompt;
    ed->out = out;
    ed->ctx = ctx;
    ed->hist_newest = LINE_HISTORY - 1;
    ed->hist_pos = -1;
}

void line_start(struct line_editor *ed)
{
    ed->len = ed->cursor = 0;
    ed->buf[0] = 0;
    ed->hist_pos = -1;
    ed->esc_state = ESC_NONE;
    emits(ed, ed->prompt);
}

/* A CSI sequence's final byte.  Only the plain forms of the keys we know act; anything with a
 * modifier (ESC [ 1 ; 5 C) or another number (F6 is ESC [ 17 ~) is swallowed, never typed. */
static void escape_final(struct line_editor *ed, unsigned char c)
{
    unsigned p = ed->esc_num;
    ed->esc_state = ESC_NONE;
    if (ed->esc_extra || (c != '~' && p != 0))
        return;
    switch (c) {
    case 'A':
        history_step(ed, +1);
        break;
    case 'B':
        history_step(ed, -1);
        break;
    case 'C':
        if (ed->cursor < ed->len)
            move_to(ed, ed->cursor + 1);
        break;
    case 'D':
        if (ed->cursor)
            move_to(ed, ed->cursor - 1);
        break;
    case 'H':
        move_to(ed, 0);
        break;
    case 'F':
        move_to(ed, ed->len);
        break;
    case '~':
        if (p == 1 || p == 7)
            move_to(ed, 0);
        else if (p == 4 || p == 8)
            move_to(ed, ed->len);
        else if (p == 3)
            delete_at_cursor(ed);
        break;
    default:
        break; /* sequences we do not know are swallowed whole, not inserted */
    }
}

enum line_result line_feed(struct line_editor *ed, unsigned char byte)
{
    char last = ed->last;
    ed->last = (char)byte;
    switch (ed->esc_state) {
    case ESC_GOT_ESC:
        ed->esc_state = (byte == '[' || byte == 'O') ? ESC_GOT_CSI : ESC_NONE;
        ed->esc_num = 0;
        ed->esc_extra = 0;
        return LINE_PENDING;
    case ESC_GOT_CSI:
    case ESC_GOT_PARAM:
        /* ECMA-48 §5.4: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E. */
        if (byte >= '0' && byte <= '9' && !ed->esc_extra) {
            ed->esc_num = ed->esc_num < 1000 ? ed->esc_num * 10 + (byte - '0') : ed->esc_num;
            ed->esc_state = ESC_GOT_PARAM;
        } else if (byte >= 0x20 && byte <= 0x3F) {
            ed->esc_extra = 1;
            ed->esc_state = ESC_GOT_PARAM;
        } else if (byte >= 0x40 && byte <= 0x7E) {
            escape_final(ed, byte);
        } else {
            ed->esc_state = ESC_NONE; /* a control byte ends a broken sequence */
        }
        return LINE_PENDING;
    }

    switch (byte) {
    case '\n':
        if (last == '\r')
            return LINE_PENDING;
        /* fall through */
    case '\r':
        emits(ed, "\r\n");
        ed->buf[ed->len] = 0;
        remember(ed);
        return LINE_READY;
    case KEY_ESC:
        ed->esc_state = ESC_GOT_ESC;
        return LINE_PENDING;
    case KEY_DEL:
    case KEY_BS:
        backspace(ed);
        return LINE_PENDING;
    case KEY_CTRL('a'):
        move_to(ed, 0);
        return LINE_PENDING;
    case KEY_CTRL('e'):
        move_to(ed, ed->len);
        return LINE_PENDING;
    case KEY_CTRL('u'):
        replace_line(ed, "");
        return LINE_PENDING;
    case KEY_CTRL('c'):
        emits(ed, "^C\r\n");
        ed->len = ed->cursor = 0;
        ed->buf[0] = 0;
        return LINE_CANCELLED;
    default:
        if (byte >= 0x20 && byte < 0x7F)
            insert(ed, (char)byte);
        return LINE_PENDING; /* other control bytes are ignored */
    }
}
