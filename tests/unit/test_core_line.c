/* The shell's line editor (vmm/shell/line.c): every key it knows, the keys it must ignore, the
 * length limit, the history ring, and the exact echo for a few edits.  Bytes go in through
 * line_feed; the echo is captured through the output callback. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "vmm/shell/line.h"

#define PROMPT "tessera> "

/* Key sequences as a VT100/xterm terminal sends them. */
#define LEFT    "\x1b[D"
#define RIGHT   "\x1b[C"
#define UP      "\x1b[A"
#define DOWN    "\x1b[B"
#define HOME    "\x1b[H"
#define END     "\x1b[F"
#define DEL     "\x1b[3~"
#define CTRL(c) ((c)&0x1F)

/* ---- fixture: an editor whose echo goes into a buffer ------------------------------------- */

static struct capture {
    char buf[16384];
    size_t len;
    unsigned calls;
} cap;

static void capture_out(const char *s, size_t len, void *ctx)
{
    struct capture *c = ctx;
    assert_ptr_equal(c, &cap);
    assert_true(c->len + len < sizeof c->buf);
    memcpy(c->buf + c->len, s, len);
    c->len += len;
    c->buf[c->len] = 0;
    c->calls++;
}

static void cap_clear(void)
{
    cap.len = 0;
    cap.buf[0] = 0;
}

static struct line_editor ed;

static int setup(void **state)
{
    (void)state;
    cap_clear();
    line_init(&ed, PROMPT, capture_out, &cap);
    line_start(&ed);
    return 0;
}

/* Feeds every byte of `s`; every byte but the last must leave the line pending. */
static enum line_result feed(const char *s)
{
    enum line_result r = LINE_PENDING;
    for (size_t i = 0; s[i]; i++) {
        assert_int_equal(r, LINE_PENDING);
        r = line_feed(&ed, (unsigned char)s[i]);
    }
    return r;
}

/* Feeds `s` (no Enter), then Enter, and checks the finished line. */
static void finish_expect(const char *s, const char *want)
{
    assert_int_equal(feed(s), LINE_PENDING);
    assert_int_equal(line_feed(&ed, '\r'), LINE_READY);
    assert_string_equal(ed.buf, want);
    assert_int_equal(ed.len, strlen(want));
}

/* Enters a whole line and starts the next one. */
static void enter_line(const char *s)
{
    assert_int_equal(feed(s), LINE_PENDING);
    assert_int_equal(line_feed(&ed, '\r'), LINE_READY);
    line_start(&ed);
}

/* ---- typing and Enter --------------------------------------------------------------------- */

/* Printable characters are inserted and echoed; Enter finishes the line and echoes CR LF. */
static void test_type_and_enter(void **state)
{
    (void)state;
    assert_string_equal(cap.buf, PROMPT);
    assert_int_equal(feed("help me"), LINE_PENDING);
    assert_int_equal(ed.len, 7);
    assert_int_equal(ed.cursor, 7);
    assert_int_equal(line_feed(&ed, '\r'), LINE_READY);
    assert_string_equal(ed.buf, "help me");
    assert_string_equal(cap.buf, PROMPT "help me\r\n");
}

/* "\r\n" is one Enter; a lone "\n" is an Enter of its own. */
static void test_crlf_is_one_enter(void **state)
{
    (void)state;
    assert_int_equal(feed("ab\r"), LINE_READY);
    assert_string_equal(ed.buf, "ab");
    line_start(&ed);
    assert_int_equal(line_feed(&ed, '\n'), LINE_PENDING); /* the LF of the pair */
    assert_int_equal(feed("cd\n"), LINE_READY);
    assert_string_equal(ed.buf, "cd");
    line_start(&ed);
    assert_int_equal(line_feed(&ed, '\n'), LINE_READY); /* LF after LF: an empty line */
    assert_string_equal(ed.buf, "");
}

/* The first line of all: an Enter on an empty line is still LINE_READY with "". */
static void test_empty_enter(void **state)
{
    (void)state;
    finish_expect("", "");
}

/* ---- deleting ----------------------------------------------------------------------------- */

/* Backspace (DEL 0x7F and BS 0x08) at the end removes the last character. */
static void test_backspace_at_end(void **state)
{
    (void)state;
    finish_expect("abc\x7f\x08"
                  "d",
                  "ad");
}

/* Backspace in the middle removes the character left of the cursor; the cursor stays in the
 * middle, so the next character goes there. */
static void test_backspace_in_middle(void **state)
{
    (void)state;
    assert_int_equal(feed("abcd" LEFT LEFT "\x7f"), LINE_PENDING);
    assert_string_equal(ed.buf, "acd");
    assert_int_equal(ed.cursor, 1);
    finish_expect("X", "aXcd");
}

/* Backspace at position 0 does nothing and prints nothing. */
static void test_backspace_at_start(void **state)
{
    (void)state;
    assert_int_equal(feed("ab" HOME), LINE_PENDING);
    cap_clear();
    assert_int_equal(feed("\x7f\x08"), LINE_PENDING);
    assert_int_equal(cap.len, 0);
    finish_expect("", "ab");
}

/* Delete removes the character under the cursor; at the end of the line it does nothing. */
static void test_delete_key(void **state)
{
    (void)state;
    assert_int_equal(feed("abc" HOME DEL), LINE_PENDING);
    assert_string_equal(ed.buf, "bc");
    assert_int_equal(ed.cursor, 0);
    assert_int_equal(feed(END DEL DEL), LINE_PENDING);
    assert_string_equal(ed.buf, "bc");
    finish_expect(LEFT DEL, "b");
}

/* Ctrl-U empties the line wherever the cursor is; typing goes on from an empty line. */
static void test_ctrl_u_clears(void **state)
{
    (void)state;
    char seq[] = "hello" LEFT LEFT "?";
    seq[sizeof seq - 2] = CTRL('u');
    assert_int_equal(feed(seq), LINE_PENDING);
    assert_int_equal(ed.len, 0);
    assert_int_equal(ed.cursor, 0);
    finish_expect("x", "x");
}

/* Ctrl-C abandons the line: LINE_CANCELLED, an empty buffer, "^C" echoed, nothing remembered. */
static void test_ctrl_c_cancels(void **state)
{
    (void)state;
    assert_int_equal(feed("reboot"), LINE_PENDING);
    cap_clear();
    assert_int_equal(line_feed(&ed, CTRL('c')), LINE_CANCELLED);
    assert_string_equal(ed.buf, "");
    assert_int_equal(ed.len, 0);
    assert_int_equal(ed.cursor, 0);
    assert_string_equal(cap.buf, "^C\r\n");
    line_start(&ed);
    finish_expect(UP, ""); /* no history entry was made */
}

/* ---- moving ------------------------------------------------------------------------------- */

/* Left/Right move the insertion point; they stop at either end of the line. */
static void test_left_right_insert(void **state)
{
    (void)state;
    assert_int_equal(feed("ac" LEFT "b"), LINE_PENDING);
    assert_string_equal(ed.buf, "abc");
    assert_int_equal(ed.cursor, 2);
    assert_int_equal(feed(RIGHT RIGHT RIGHT "d"), LINE_PENDING); /* Right stops at the end */
    assert_string_equal(ed.buf, "abcd");
    finish_expect(LEFT LEFT LEFT LEFT LEFT LEFT "_", "_abcd"); /* Left stops at 0 */
}

/* Every Home and End spelling: ESC [ H/F, ESC O H/F, ESC [ 1~/4~, ESC [ 7~/8~, Ctrl-A/Ctrl-E. */
static void test_home_end_variants(void **state)
{
    (void)state;
    static const char *const homes[] = { "\x1b[H", "\x1bOH", "\x1b[1~", "\x1b[7~", "\x01" };
    static const char *const ends[] = { "\x1b[F", "\x1bOF", "\x1b[4~", "\x1b[8~", "\x05" };
    for (unsigned i = 0; i < 5; i++) {
        line_start(&ed);
        char seq[64];
        snprintf(seq, sizeof seq, "bcd%sa%se", homes[i], ends[i]);
        assert_int_equal(feed(seq), LINE_PENDING);
        if (strcmp(ed.buf, "abcde"))
            fail_msg("home/end variant %u gave \"%s\"", i, ed.buf);
        assert_int_equal(ed.cursor, 5);
    }
}

/* ---- keys that must not change the line --------------------------------------------------- */

/* Escape sequences the editor does not know are swallowed whole: nothing is inserted and the
 * cursor stays where it was. */
static void test_unknown_escapes_swallowed(void **state)
{
    (void)state;
    static const char *const unknown[] = {
        "\x1b[Z",   /* Shift-Tab */
        "\x1b[2~",  /* Insert */
        "\x1b[5~",  /* Page Up */
        "\x1b[6~",  /* Page Down */
        "\x1bOP",   /* F1 (xterm) */
        "\x1bOS",   /* F4 (xterm) */
        "\x1b[E",   /* keypad 5 */
        "\x1bx",    /* Alt-x */
        "\x1b\x1b", /* Escape pressed twice */
    };
    assert_int_equal(feed("abcd" LEFT LEFT), LINE_PENDING);
    for (unsigned i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_int_equal(feed(unknown[i]), LINE_PENDING);
        if (strcmp(ed.buf, "abcd") || ed.cursor != 2)
            fail_msg("sequence %u changed the line to \"%s\", cursor %u", i, ed.buf, ed.cursor);
    }
    finish_expect("-", "ab-cd");
}

/* Function keys whose CSI parameter has two digits (xterm: F6 = ESC[17~, F7 = ESC[18~,
 * F10 = ESC[21~, F11 = ESC[23~, F12 = ESC[24~) are unknown keys too: they must not act as
 * Home (1, 7), End (4, 8) or Delete (3) because of their last digit. */
static void test_two_digit_function_keys_swallowed(void **state)
{
    (void)state;
    static const char *const fkeys[] = {
        "\x1b[17~", "\x1b[18~", "\x1b[21~", "\x1b[23~", "\x1b[24~", "\x1b[11~", "\x1b[13~",
    };
    char bad[512] = "";
    for (unsigned i = 0; i < sizeof fkeys / sizeof fkeys[0]; i++) {
        line_start(&ed);
        assert_int_equal(feed("abcd" LEFT LEFT), LINE_PENDING);
        assert_int_equal(feed(fkeys[i]), LINE_PENDING);
        if (strcmp(ed.buf, "abcd") || ed.cursor != 2)
            snprintf(bad + strlen(bad), sizeof bad - strlen(bad), " ESC%s->\"%s\",cursor %u;",
                     fkeys[i] + 1, ed.buf, ed.cursor);
    }
    if (bad[0])
        fail_msg("from \"abcd\" with the cursor at 2:%s", bad);
}

/* Keys with a modifier parameter (xterm: Ctrl-Right = ESC[1;5C, Shift-Up = ESC[1;2A) are one
 * sequence: the bytes after ';' must not be inserted as text. */
static void test_modifier_sequences_swallowed(void **state)
{
    (void)state;
    static const char *const seqs[] = { "\x1b[1;5C", "\x1b[1;5D", "\x1b[1;2A", "\x1b[3;5~" };
    char bad[512] = "";
    for (unsigned i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
        line_start(&ed);
        assert_int_equal(feed("ab"), LINE_PENDING);
        assert_int_equal(feed(seqs[i]), LINE_PENDING);
        if (strcmp(ed.buf, "ab"))
            snprintf(bad + strlen(bad), sizeof bad - strlen(bad), " ESC%s->\"%s\";", seqs[i] + 1,
                     ed.buf);
    }
    if (bad[0])
        fail_msg("after \"ab\":%s", bad);
}

/* Control bytes without a meaning and bytes >= 0x7F (other than DEL) are ignored silently. */
static void test_control_bytes_ignored(void **state)
{
    (void)state;
    static const unsigned char junk[] = {
        0x00, 0x02, 0x04, 0x06, 0x07, 0x09, 0x0B, 0x0C, 0x0E,
        0x10, 0x1A, 0x1C, 0x1F, 0x80, 0x9B, 0xC3, 0xA9, 0xFF,
    };
    assert_int_equal(feed("ab" LEFT), LINE_PENDING);
    cap_clear();
    for (unsigned i = 0; i < sizeof junk; i++)
        assert_int_equal(line_feed(&ed, junk[i]), LINE_PENDING);
    assert_int_equal(cap.len, 0);
    assert_string_equal(ed.buf, "ab");
    assert_int_equal(ed.cursor, 1);
}

/* line_start forgets a half-received escape sequence from the previous line. */
static void test_start_resets_escape(void **state)
{
    (void)state;
    assert_int_equal(feed("x\x1b["), LINE_PENDING);
    line_start(&ed);
    finish_expect("A", "A"); /* a letter, not the Up key */
}

/* ---- the length limit --------------------------------------------------------------------- */

/* A full line rings the bell for each extra character and keeps its text, at the end and in the
 * middle; Enter still returns the whole line. */
static void test_full_line_bell(void **state)
{
    (void)state;
    char full[LINE_MAX_LEN + 1];
    for (unsigned i = 0; i < LINE_MAX_LEN; i++)
        full[i] = (char)('a' + i % 26);
    full[LINE_MAX_LEN] = 0;
    assert_int_equal(feed(full), LINE_PENDING);
    assert_int_equal(ed.len, LINE_MAX_LEN);
    cap_clear();
    assert_int_equal(feed("Z"), LINE_PENDING);
    assert_string_equal(cap.buf, "\a");
    assert_string_equal(ed.buf, full);
    assert_int_equal(feed(LEFT LEFT), LINE_PENDING);
    cap_clear();
    assert_int_equal(feed("Y"), LINE_PENDING);
    assert_string_equal(cap.buf, "\a");
    assert_int_equal(ed.cursor, LINE_MAX_LEN - 2);
    /* Make room, and one more character fits again. */
    assert_int_equal(feed("\x7f"
                          "Q"),
                     LINE_PENDING);
    assert_int_equal(ed.len, LINE_MAX_LEN);
    full[LINE_MAX_LEN - 3] = 'Q';
    finish_expect("", full);
}

/* ---- history ------------------------------------------------------------------------------ */

/* Up recalls earlier lines newest first and stops at the oldest; Down walks back and ends on
 * the draft that was being typed. */
static void test_history_up_down(void **state)
{
    (void)state;
    enter_line("one");
    enter_line("two");
    enter_line("three");
    assert_int_equal(feed("dra"), LINE_PENDING);
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "three");
    assert_int_equal(ed.cursor, 5);
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "two");
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "one");
    cap_clear();
    assert_int_equal(feed(UP), LINE_PENDING); /* nothing older: no change, no output */
    assert_string_equal(ed.buf, "one");
    assert_int_equal(cap.len, 0);
    assert_int_equal(feed(DOWN), LINE_PENDING);
    assert_string_equal(ed.buf, "two");
    assert_int_equal(feed(DOWN DOWN), LINE_PENDING);
    assert_string_equal(ed.buf, "dra"); /* back to the draft */
    cap_clear();
    assert_int_equal(feed(DOWN), LINE_PENDING); /* nothing newer than the draft */
    assert_int_equal(cap.len, 0);
    finish_expect("ft", "draft");
}

/* A recalled line can be edited and entered; it then becomes the newest entry. */
static void test_history_recall_and_edit(void **state)
{
    (void)state;
    enter_line("cpuid 1");
    enter_line("mem");
    finish_expect(UP UP "\x7f"
                        "7",
                  "cpuid 7");
    line_start(&ed);
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "cpuid 7");
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "mem");
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "cpuid 1");
}

/* A line equal to the newest entry is not stored again (an older equal one does not count). */
static void test_history_no_duplicate_of_newest(void **state)
{
    (void)state;
    enter_line("a");
    enter_line("a");
    enter_line("b");
    enter_line("a");
    assert_int_equal(ed.hist_count, 3);
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "a");
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "b");
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "a");
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(ed.buf, "a"); /* only three entries */
}

/* Empty lines are not stored; Up on an empty history does nothing and prints nothing. */
static void test_history_skips_empty(void **state)
{
    (void)state;
    cap_clear();
    assert_int_equal(feed(UP DOWN), LINE_PENDING);
    assert_int_equal(cap.len, 0);
    enter_line("x");
    enter_line("");
    enter_line("");
    assert_int_equal(ed.hist_count, 1);
    finish_expect(UP UP, "x");
}

/* Only the LINE_HISTORY newest lines are kept. */
static void test_history_capacity(void **state)
{
    (void)state;
    const unsigned n = LINE_HISTORY + 4;
    for (unsigned i = 0; i < n; i++) {
        char s[16];
        snprintf(s, sizeof s, "cmd%u", i);
        enter_line(s);
    }
    assert_int_equal(ed.hist_count, LINE_HISTORY);
    for (unsigned k = 0; k < LINE_HISTORY; k++) {
        assert_int_equal(feed(UP), LINE_PENDING);
        char want[16];
        snprintf(want, sizeof want, "cmd%u", n - 1 - k);
        assert_string_equal(ed.buf, want);
    }
    assert_int_equal(feed(UP), LINE_PENDING);
    char oldest[16];
    snprintf(oldest, sizeof oldest, "cmd%u", n - LINE_HISTORY);
    assert_string_equal(ed.buf, oldest);
}

/* ---- exact echo --------------------------------------------------------------------------- */

/* Inserting in the middle prints the new character, redraws the tail and moves the cursor back
 * over it; Left is one "cursor left 1". */
static void test_echo_insert_middle(void **state)
{
    (void)state;
    assert_int_equal(feed("ac"), LINE_PENDING);
    cap_clear();
    assert_int_equal(feed(LEFT), LINE_PENDING);
    assert_string_equal(cap.buf, "\x1b[1D");
    cap_clear();
    assert_int_equal(feed("b"), LINE_PENDING);
    assert_string_equal(cap.buf, "bc\x1b[1D");
}

/* Backspace in the middle: cursor left, the tail, one blank over the old last character, and
 * the cursor back over tail and blank. */
static void test_echo_backspace_middle(void **state)
{
    (void)state;
    assert_int_equal(feed("abcd" LEFT LEFT), LINE_PENDING);
    cap_clear();
    assert_int_equal(feed("\x7f"), LINE_PENDING);
    assert_string_equal(cap.buf, "\x1b[1Dcd \x1b[3D");
}

/* Recalling history: back to the start of the line, clear to its end, print the entry. */
static void test_echo_history_recall(void **state)
{
    (void)state;
    enter_line("xyz");
    assert_int_equal(feed("ab"), LINE_PENDING);
    cap_clear();
    assert_int_equal(feed(UP), LINE_PENDING);
    assert_string_equal(cap.buf, "\x1b[2D\x1b[K"
                                 "xyz");
    cap_clear();
    assert_int_equal(feed(HOME), LINE_PENDING);
    assert_string_equal(cap.buf, "\x1b[3D");
    cap_clear();
    assert_int_equal(feed(END), LINE_PENDING);
    assert_string_equal(cap.buf, "xyz"); /* End reprints the characters it passes */
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_type_and_enter),
        T(test_crlf_is_one_enter),
        T(test_empty_enter),
        T(test_backspace_at_end),
        T(test_backspace_in_middle),
        T(test_backspace_at_start),
        T(test_delete_key),
        T(test_ctrl_u_clears),
        T(test_ctrl_c_cancels),
        T(test_left_right_insert),
        T(test_home_end_variants),
        T(test_unknown_escapes_swallowed),
        T(test_two_digit_function_keys_swallowed),
        T(test_modifier_sequences_swallowed),
        T(test_control_bytes_ignored),
        T(test_start_resets_escape),
        T(test_full_line_bell),
        T(test_history_up_down),
        T(test_history_recall_and_edit),
        T(test_history_no_duplicate_of_newest),
        T(test_history_skips_empty),
        T(test_history_capacity),
        T(test_echo_insert_middle),
        T(test_echo_backspace_middle),
        T(test_echo_history_recall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
