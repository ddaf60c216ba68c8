/* The MMIO instruction decoder (vmm/vcpu/mmio_decode.c): every supported MOV form with its bytes (as
 * an assembler emits them), every class of rejection, truncation at every length, and the
 * register-merge / store-value helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/vcpu/mmio_decode.h"

#define W true  /* store */
#define L false /* load */

struct want {
    const char *text; /* the instruction, for failure messages */
    uint8_t bytes[16];
    unsigned n; /* bytes given (== expected len) */
    bool is_write;
    unsigned size;
    enum mmio_src src;
    unsigned reg;
    bool high8;
    uint64_t imm;
    enum mmio_ext ext;
    unsigned dst_size;
};

#define MOFFS8 0x00, 0x10, 0xF0, 0xFE, 0x00, 0x00, 0x00, 0x00 /* 0xFEF01000 */

static const struct want good[] = {
    /* 88/89: store register */
    { "mov [rdi], eax",
      { 0x89, 0x07 },
      2,
      W,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov [rdi], rax",
      { 0x48, 0x89, 0x07 },
      3,
      W,
      8,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      8 },
    { "mov [rdi], ax",
      { 0x66, 0x89, 0x07 },
      3,
      W,
      2,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      2 },
    { "mov [rdi], r8",
      { 0x4C, 0x89, 0x07 },
      3,
      W,
      8,
      MMIO_SRC_REG,
      MMIO_R8,
      false,
      0,
      MMIO_EXT_NONE,
      8 },
    { "mov [rdi+0x10], r8d",
      { 0x44, 0x89, 0x47, 0x10 },
      4,
      W,
      4,
      MMIO_SRC_REG,
      MMIO_R8,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov [r12], esi",
      { 0x41, 0x89, 0x34, 0x24 },
      4,
      W,
      4,
      MMIO_SRC_REG,
      MMIO_RSI,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov [rbx+rcx*4+0x100], edx",
      { 0x89, 0x94, 0x8B, 0x00, 0x01, 0x00, 0x00 },
      7,
      W,
      4,
      MMIO_SRC_REG,
      MMIO_RDX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov [rip+0x1000], ecx",
      { 0x89, 0x0D, 0x00, 0x10, 0x00, 0x00 },
      6,
      W,
      4,
      MMIO_SRC_REG,
      MMIO_RCX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov [rdi], al",
      { 0x88, 0x07 },
      2,
      W,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    { "mov [rdi], ah", { 0x88, 0x27 }, 2, W, 1, MMIO_SRC_REG, MMIO_RAX, true, 0, MMIO_EXT_NONE, 1 },
    { "mov [rdi], bh", { 0x88, 0x3F }, 2, W, 1, MMIO_SRC_REG, MMIO_RBX, true, 0, MMIO_EXT_NONE, 1 },
    { "mov [rdi], spl",
      { 0x40, 0x88, 0x27 },
      3,
      W,
      1,
      MMIO_SRC_REG,
      MMIO_RSP,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    { "mov [rdi], r15b",
      { 0x44, 0x88, 0x3F },
      3,
      W,
      1,
      MMIO_SRC_REG,
      MMIO_R15,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    /* 8A/8B: load register */
    { "mov eax, [rdi+0x1000]",
      { 0x8B, 0x87, 0x00, 0x10, 0x00, 0x00 },
      6,
      L,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov eax, [disp32] (SIB, no base)",
      { 0x8B, 0x04, 0x25, 0x00, 0x00, 0xF0, 0xFE },
      7,
      L,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov eax, [rsp+8]",
      { 0x8B, 0x44, 0x24, 0x08 },
      4,
      L,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov eax, [rbp+rcx+8]",
      { 0x8B, 0x44, 0x0D, 0x08 },
      4,
      L,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov eax, [rbp+0]",
      { 0x8B, 0x45, 0x00 },
      3,
      L,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov edx, [rip-4]",
      { 0x8B, 0x15, 0xFC, 0xFF, 0xFF, 0xFF },
      6,
      L,
      4,
      MMIO_SRC_REG,
      MMIO_RDX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov rax, [rdi]",
      { 0x48, 0x8B, 0x07 },
      3,
      L,
      8,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      8 },
    { "mov r9w, [rdi]",
      { 0x66, 0x44, 0x8B, 0x0F },
      4,
      L,
      2,
      MMIO_SRC_REG,
      MMIO_R9,
      false,
      0,
      MMIO_EXT_NONE,
      2 },
    { "mov r13, [r13+rax*8+0x7f]",
      { 0x4D, 0x8B, 0x6C, 0xC5, 0x7F },
      5,
      L,
      8,
      MMIO_SRC_REG,
      MMIO_R13,
      false,
      0,
      MMIO_EXT_NONE,
      8 },
    { "mov al, [rdi]",
      { 0x8A, 0x07 },
      2,
      L,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    { "mov ch, [rdi]", { 0x8A, 0x2F }, 2, L, 1, MMIO_SRC_REG, MMIO_RCX, true, 0, MMIO_EXT_NONE, 1 },
    { "mov dil, [rsi]",
      { 0x40, 0x8A, 0x3E },
      3,
      L,
      1,
      MMIO_SRC_REG,
      MMIO_RDI,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    { "mov al, [r15]",
      { 0x41, 0x8A, 0x07 },
      3,
      L,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    /* C6/C7 /0: store immediate */
    { "mov byte [rdi], 0x5a",
      { 0xC6, 0x07, 0x5A },
      3,
      W,
      1,
      MMIO_SRC_IMM,
      0,
      false,
      0x5A,
      MMIO_EXT_NONE,
      1 },
    { "mov dword [rdi], 0x12345678",
      { 0xC7, 0x07, 0x78, 0x56, 0x34, 0x12 },
      6,
      W,
      4,
      MMIO_SRC_IMM,
      0,
      false,
      0x12345678,
      MMIO_EXT_NONE,
      4 },
    { "mov word [rdi], 0x1234",
      { 0x66, 0xC7, 0x07, 0x34, 0x12 },
      5,
      W,
      2,
      MMIO_SRC_IMM,
      0,
      false,
      0x1234,
      MMIO_EXT_NONE,
      2 },
    { "mov qword [rdi], -1",
      { 0x48, 0xC7, 0x07, 0xFF, 0xFF, 0xFF, 0xFF },
      7,
      W,
      8,
      MMIO_SRC_IMM,
      0,
      false,
      0xFFFFFFFFFFFFFFFFULL,
      MMIO_EXT_NONE,
      8 },
    { "mov qword [rdi], 0x80000000 (sx)",
      { 0x48, 0xC7, 0x07, 0x00, 0x00, 0x00, 0x80 },
      7,
      W,
      8,
      MMIO_SRC_IMM,
      0,
      false,
      0xFFFFFFFF80000000ULL,
      MMIO_EXT_NONE,
      8 },
    { "mov qword [rdi], 0x7fffffff",
      { 0x48, 0xC7, 0x07, 0xFF, 0xFF, 0xFF, 0x7F },
      7,
      W,
      8,
      MMIO_SRC_IMM,
      0,
      false,
      0x7FFFFFFFULL,
      MMIO_EXT_NONE,
      8 },
    { "mov dword [rax+0x100], 1",
      { 0xC7, 0x80, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 },
      10,
      W,
      4,
      MMIO_SRC_IMM,
      0,
      false,
      1,
      MMIO_EXT_NONE,
      4 },
    { "mov dword [rip+0x10], 2",
      { 0xC7, 0x05, 0x10, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00 },
      10,
      W,
      4,
      MMIO_SRC_IMM,
      0,
      false,
      2,
      MMIO_EXT_NONE,
      4 },
    { "mov byte [rsp+rax+1], 0x80",
      { 0xC6, 0x44, 0x04, 0x01, 0x80 },
      5,
      W,
      1,
      MMIO_SRC_IMM,
      0,
      false,
      0x80,
      MMIO_EXT_NONE,
      1 },
    /* 0F B6/B7/BE/BF: MOVZX / MOVSX */
    { "movzx eax, byte [rdi]",
      { 0x0F, 0xB6, 0x07 },
      3,
      L,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_ZERO,
      4 },
    { "movzx rax, byte [rdi]",
      { 0x48, 0x0F, 0xB6, 0x07 },
      4,
      L,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_ZERO,
      8 },
    { "movzx ax, byte [rdi]",
      { 0x66, 0x0F, 0xB6, 0x07 },
      4,
      L,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_ZERO,
      2 },
    { "movzx ecx, word [rdi]",
      { 0x0F, 0xB7, 0x0F },
      3,
      L,
      2,
      MMIO_SRC_REG,
      MMIO_RCX,
      false,
      0,
      MMIO_EXT_ZERO,
      4 },
    { "movzx ax, word [rdi]",
      { 0x66, 0x0F, 0xB7, 0x07 },
      4,
      L,
      2,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_ZERO,
      2 },
    { "movsx eax, byte [rdi]",
      { 0x0F, 0xBE, 0x07 },
      3,
      L,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_SIGN,
      4 },
    { "movsx rax, word [rdi]",
      { 0x48, 0x0F, 0xBF, 0x07 },
      4,
      L,
      2,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_SIGN,
      8 },
    { "movsx r8, word [rdi+8]",
      { 0x4C, 0x0F, 0xBF, 0x47, 0x08 },
      5,
      L,
      2,
      MMIO_SRC_REG,
      MMIO_R8,
      false,
      0,
      MMIO_EXT_SIGN,
      8 },
    /* A0-A3: moffs with a 64-bit address */
    { "mov al, [moffs64]",
      { 0xA0, MOFFS8 },
      9,
      L,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    { "mov eax, [moffs64]",
      { 0xA1, MOFFS8 },
      9,
      L,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov rax, [moffs64]",
      { 0x48, 0xA1, MOFFS8 },
      10,
      L,
      8,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      8 },
    { "mov ax, [moffs64]",
      { 0x66, 0xA1, MOFFS8 },
      10,
      L,
      2,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      2 },
    { "mov [moffs64], al",
      { 0xA2, MOFFS8 },
      9,
      W,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    { "mov [moffs64], eax",
      { 0xA3, MOFFS8 },
      9,
      W,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov [moffs64], al (REX)",
      { 0x41, 0xA2, MOFFS8 },
      10,
      W,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      1 },
    /* prefixes */
    { "mov eax, fs:[rdi]",
      { 0x64, 0x8B, 0x07 },
      3,
      L,
      4,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      4 },
    { "mov [rdi], rax (gs, ds)",
      { 0x65, 0x3E, 0x48, 0x89, 0x07 },
      5,
      W,
      8,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      8 },
    { "66 REX.W: 64-bit wins",
      { 0x66, 0x48, 0x89, 0x07 },
      4,
      W,
      8,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      8 },
    { "REX then 66: REX ignored",
      { 0x48, 0x66, 0x89, 0x07 },
      4,
      W,
      2,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      2 },
    { "REX then seg: ah again",
      { 0x40, 0x2E, 0x88, 0x27 },
      4,
      W,
      1,
      MMIO_SRC_REG,
      MMIO_RAX,
      true,
      0,
      MMIO_EXT_NONE,
      1 },
    { "two REX: last counts",
      { 0x44, 0x48, 0x89, 0x07 },
      4,
      W,
      8,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      8 },
    { "13 x 66 + mov: 15 bytes",
      { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x89, 0x07 },
      15,
      W,
      2,
      MMIO_SRC_REG,
      MMIO_RAX,
      false,
      0,
      MMIO_EXT_NONE,
      2 },
};

/* Compares every field; on a mismatch names the instruction and what was decoded. */
static void check_decode(const struct want *w, const struct mmio_insn *d)
{
    bool ok = d->len == w->n && d->is_write == w->is_write && d->size == w->size &&
              d->src == w->src && d->ext == w->ext && d->dst_size == w->dst_size;
    if (w->src == MMIO_SRC_REG)
        ok = ok && d->reg == w->reg && d->reg_high8 == w->high8;
    else
        ok = ok && d->imm == w->imm;
    if (!ok)
        fail_msg("%s: len %u write %d size %u src %d reg %u high8 %d imm %#llx ext %d dst %u",
                 w->text, d->len, d->is_write, d->size, d->src, d->reg, d->reg_high8,
                 (unsigned long long)d->imm, d->ext, d->dst_size);
}

static void test_supported_encodings(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        const struct want *w = &good[k];
        struct mmio_insn d;
        /* exact length, and with trailing bytes that must not be consumed */
        assert_int_equal(mmio_decode(w->bytes, w->n, &d), 0);
        check_decode(w, &d);
        uint8_t more[32];
        memset(more, 0x90, sizeof more);
        memcpy(more, w->bytes, w->n);
        assert_int_equal(mmio_decode(more, sizeof more, &d), 0);
        check_decode(w, &d);
    }
}

/* Cut anywhere before its end, every supported instruction reports truncation (and, under
 * ASan, the copy of exactly `cut` heap bytes proves nothing beyond is read). */
static void test_truncated(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        for (unsigned cut = 0; cut < good[k].n; cut++) {
            uint8_t *buf = test_malloc(cut ? cut : 1);
            memcpy(buf, good[k].bytes, cut);
            struct mmio_insn d;
            memset(&d, 0xA5, sizeof d);
            struct mmio_insn before = d;
            assert_int_equal(mmio_decode(buf, cut, &d), MMIO_ETRUNCATED);
            assert_memory_equal(&d, &before, sizeof d); /* out untouched on error */
            test_free(buf);
        }
    }
}

struct bad {
    const char *text;
    uint8_t bytes[20];
    unsigned n;
};

static const struct bad rejected[] = {
    { "lock mov [rdi], eax", { 0xF0, 0x89, 0x07 }, 3 },
    { "rep movsd", { 0xF3, 0xA5 }, 2 },
    { "movsb", { 0xA4 }, 1 },
    { "stosd", { 0xAB }, 1 },
    { "repne mov", { 0xF2, 0x8B, 0x07 }, 3 },
    { "addr32 mov eax, [edi]", { 0x67, 0x8B, 0x07 }, 3 },
    { "vmovdqu ymm0, [rdi] (VEX)", { 0xC5, 0xFE, 0x6F, 0x07 }, 4 },
    { "vmovdqu (VEX3)", { 0xC4, 0xE1, 0x7E, 0x6F, 0x07 }, 5 },
    { "EVEX", { 0x62, 0xF1, 0x7E, 0x48, 0x6F, 0x07 }, 6 },
    { "movups xmm0, [rdi]", { 0x0F, 0x10, 0x07 }, 3 },
    { "movnti [rdi], eax", { 0x0F, 0xC3, 0x07 }, 3 },
    { "ud2", { 0x0F, 0x0B }, 2 },
    { "mov eax, ecx (mod=3)", { 0x89, 0xC8 }, 2 },
    { "mov al, cl (mod=3)", { 0x8A, 0xC1 }, 2 },
    { "movzx eax, cl (mod=3)", { 0x0F, 0xB6, 0xC1 }, 3 },
    { "mov eax, 1 (C7 mod=3)", { 0xC7, 0xC0, 0x01, 0x00, 0x00, 0x00 }, 6 },
    { "C7 /1 (not MOV)", { 0xC7, 0x0F, 0x01, 0x00, 0x00, 0x00 }, 6 },
    { "C6 /7 (xabort form)", { 0xC6, 0xF8, 0x00 }, 3 },
    { "xchg [rdi], eax", { 0x87, 0x07 }, 2 },
    { "add [rdi], eax", { 0x01, 0x07 }, 2 },
    { "inc dword [rdi]", { 0xFF, 0x07 }, 2 },
    { "movsxd rax, [rdi]", { 0x48, 0x63, 0x07 }, 3 },
    { "mov eax, imm32 (B8)", { 0xB8, 0x01, 0x00, 0x00, 0x00 }, 5 },
    { "mov eax, cr0", { 0x0F, 0x20, 0xC0 }, 3 },
    { "hlt", { 0xF4 }, 1 },
    { "14 x 66 + mov: 16 bytes",
      { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x89,
        0x07 },
      16 },
    { "15 prefixes then opcode",
      { 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E, 0x2E,
        0x8B, 0x07 },
      17 },
    { "long: C7 disp32+SIB+imm, 9 prefixes",
      { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x48, 0xC7,
        0x84, 0x24, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 },
      20 },
};

static void test_rejections(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof rejected / sizeof rejected[0]; k++) {
        struct mmio_insn d;
        int rc = mmio_decode(rejected[k].bytes, rejected[k].n, &d);
        if (rc != MMIO_EUNSUPPORTED)
            fail_msg("%s: got %d, want MMIO_EUNSUPPORTED", rejected[k].text, rc);
    }
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct mmio_insn d;
    const uint8_t b[2] = { 0x89, 0x07 };
    assert_int_equal(mmio_decode(NULL, 2, &d), MMIO_EINVAL);
    assert_int_equal(mmio_decode(b, 2, NULL), MMIO_EINVAL);
    assert_int_equal(mmio_decode(b, 0, &d), MMIO_ETRUNCATED);
    assert_string_equal(mmio_strerror(MMIO_EUNSUPPORTED),
                        "unsupported instruction for MMIO emulation");
    assert_string_equal(mmio_strerror(MMIO_ETRUNCATED), "instruction bytes truncated");
    assert_string_equal(mmio_strerror(0), "ok");
    assert_string_equal(mmio_strerror(-99), "unknown MMIO decode error");
}

static struct mmio_insn decode_ok(const uint8_t *b, unsigned n)
{
    struct mmio_insn d;
    assert_int_equal(mmio_decode(b, n, &d), 0);
    return d;
}

static void test_load_result(void **state)
{
    (void)state;
    const uint64_t old = 0x1122334455667788ULL;
    struct mmio_insn d;

    d = decode_ok((const uint8_t[]){ 0x48, 0x8B, 0x07 }, 3); /* mov rax, [rdi] */
    assert_true(mmio_load_result(&d, old, 0xCAFEBABEDEADBEEFULL) == 0xCAFEBABEDEADBEEFULL);
    d = decode_ok((const uint8_t[]){ 0x8B, 0x07 }, 2); /* mov eax: zeroes 63:32 */
    assert_true(mmio_load_result(&d, old, 0xFFFFFFFF80000001ULL) == 0x80000001ULL);
    d = decode_ok((const uint8_t[]){ 0x66, 0x8B, 0x07 }, 3); /* mov ax: keeps 63:16 */
    assert_true(mmio_load_result(&d, old, 0xABCD) == 0x112233445566ABCDULL);
    d = decode_ok((const uint8_t[]){ 0x8A, 0x07 }, 2); /* mov al */
    assert_true(mmio_load_result(&d, old, 0x1EF) == 0x11223344556677EFULL);
    d = decode_ok((const uint8_t[]){ 0x8A, 0x27 }, 2); /* mov ah */
    assert_true(mmio_load_result(&d, old, 0xEF) == 0x112233445566EF88ULL);
    d = decode_ok((const uint8_t[]){ 0x0F, 0xB6, 0x07 }, 3); /* movzx eax, byte */
    assert_true(mmio_load_result(&d, old, 0xF0F0F0F0F0F0F0F0ULL) == 0xF0ULL);
    d = decode_ok((const uint8_t[]){ 0x66, 0x0F, 0xB6, 0x07 }, 4); /* movzx ax, byte */
    assert_true(mmio_load_result(&d, old, 0x80) == 0x1122334455660080ULL);
    d = decode_ok((const uint8_t[]){ 0x0F, 0xBE, 0x07 }, 3); /* movsx eax, byte */
    assert_true(mmio_load_result(&d, old, 0x80) == 0xFFFFFF80ULL);
    assert_true(mmio_load_result(&d, old, 0x7F) == 0x7FULL);
    d = decode_ok((const uint8_t[]){ 0x48, 0x0F, 0xBF, 0x07 }, 4); /* movsx rax, word */
    assert_true(mmio_load_result(&d, old, 0x12348000) == 0xFFFFFFFFFFFF8000ULL);
    d = decode_ok((const uint8_t[]){ 0x48, 0x0F, 0xBE, 0x07 }, 4); /* movsx rax, byte */
    assert_true(mmio_load_result(&d, old, 0xFF) == 0xFFFFFFFFFFFFFFFFULL);
    d = decode_ok((const uint8_t[]){ 0x66, 0x0F, 0xBE, 0x07 }, 4); /* movsx ax, byte */
    assert_true(mmio_load_result(&d, old, 0x81) == 0x112233445566FF81ULL);
    d = decode_ok((const uint8_t[]){ 0x0F, 0xB7, 0x07 }, 3); /* movzx eax, word */
    assert_true(mmio_load_result(&d, old, 0xFFFF8001) == 0x8001ULL);
}

static void test_store_value(void **state)
{
    (void)state;
    const uint64_t reg = 0x1122334455667788ULL;
    struct mmio_insn d;
    d = decode_ok((const uint8_t[]){ 0x48, 0x89, 0x07 }, 3);
    assert_true(mmio_store_value(&d, reg) == reg);
    d = decode_ok((const uint8_t[]){ 0x89, 0x07 }, 2);
    assert_true(mmio_store_value(&d, reg) == 0x55667788ULL);
    d = decode_ok((const uint8_t[]){ 0x66, 0x89, 0x07 }, 3);
    assert_true(mmio_store_value(&d, reg) == 0x7788ULL);
    d = decode_ok((const uint8_t[]){ 0x88, 0x07 }, 2); /* al */
    assert_true(mmio_store_value(&d, reg) == 0x88ULL);
    d = decode_ok((const uint8_t[]){ 0x88, 0x27 }, 2); /* ah */
    assert_true(mmio_store_value(&d, reg) == 0x77ULL);
    d = decode_ok((const uint8_t[]){ 0xC6, 0x07, 0xA5 }, 3);
    assert_true(mmio_store_value(&d, reg) == 0xA5ULL);
    d = decode_ok((const uint8_t[]){ 0x66, 0xC7, 0x07, 0x34, 0x12 }, 5);
    assert_true(mmio_store_value(&d, reg) == 0x1234ULL);
    d = decode_ok((const uint8_t[]){ 0xC7, 0x07, 0x00, 0x00, 0x00, 0x80 }, 6);
    assert_true(mmio_store_value(&d, reg) == 0x80000000ULL);
    d = decode_ok((const uint8_t[]){ 0x48, 0xC7, 0x07, 0x00, 0x00, 0x00, 0x80 }, 7);
    assert_true(mmio_store_value(&d, reg) == 0xFFFFFFFF80000000ULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_supported_encodings), cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_rejections),          cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_load_result),         cmocka_unit_test(test_store_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
