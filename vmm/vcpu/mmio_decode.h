/* A small x86-64 instruction decoder for the MOV forms guests use on MMIO, so an EPT violation
 * on an emulated region can be completed: which register or immediate, how wide, load or
 * store, and how long the instruction is (to advance RIP).  Pure: the caller fetches the guest
 * bytes at RIP and applies the result.
 *
 * Encodings: Intel SDM Vol. 2A §2.1 "Instruction Format" (prefixes, ModR/M, SIB, displacement,
 * immediate; at most 15 bytes), §2.1.5 Tables 2-2 "32-Bit Addressing Forms with the ModR/M
 * Byte" and 2-3 "... with the SIB Byte", §2.2.1 "REX Prefixes" (and §2.2.1.2 "More on REX
 * Prefix Fields": without REX, 8-bit register numbers 4-7 are AH, CH, DH, BH), §2.2.1.6
 * "RIP-Relative Addressing"; Vol. 2B "MOV" (88, 89, 8A, 8B, A0-A3, C6 /0, C7 /0), Vol. 2B
 * "MOVZX" (0F B6, 0F B7) and "MOVSX" (0F BE, 0F BF).  64-bit mode only. */
#ifndef TESSERA_VMM_MMIO_DECODE_H
#define TESSERA_VMM_MMIO_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* Architectural limit on the length of one instruction (Vol. 2A §2.1). */
#define MMIO_INSN_MAX_LEN 15u

/* Prefix and opcode bytes (Vol. 2A §2.1.1, §2.2.1; Vol. 2B MOV/MOVZX/MOVSX). */
#define X86_PREFIX_OPSIZE   0x66u /* operand-size override: 16-bit operands */
#define X86_PREFIX_ADDRSIZE 0x67u /* address-size override (rejected) */
#define X86_PREFIX_LOCK     0xF0u /* rejected */
#define X86_PREFIX_REPNE    0xF2u /* rejected */
#define X86_PREFIX_REP      0xF3u /* rejected */
#define X86_PREFIX_SEG_ES   0x26u /* segment overrides: ignored (flat in 64-bit mode; FS/GS */
#define X86_PREFIX_SEG_CS   0x2Eu /*  bases are the caller's business, the GPA is already */
#define X86_PREFIX_SEG_SS   0x36u /*  known from the EPT violation) */
#define X86_PREFIX_SEG_DS   0x3Eu
#define X86_PREFIX_SEG_FS   0x64u
#define X86_PREFIX_SEG_GS   0x65u
#define X86_REX_BASE        0x40u /* 0100WRXB */
#define X86_REX_W           0x08u /* 64-bit operand size */
#define X86_REX_R           0x04u /* extends ModRM.reg */
#define X86_REX_X           0x02u /* extends SIB.index */
#define X86_REX_B           0x01u /* extends ModRM.rm / SIB.base */
#define X86_OP_TWO_BYTE     0x0Fu
#define X86_OP_MOV_RM8_R8   0x88u /* MOV r/m8, r8      (store) */
#define X86_OP_MOV_RM_R     0x89u /* MOV r/m16/32/64, r */
#define X86_OP_MOV_R8_RM8   0x8Au /* MOV r8, r/m8      (load) */
#define X86_OP_MOV_R_RM     0x8Bu /* MOV r16/32/64, r/m */
#define X86_OP_MOV_AL_MOFFS 0xA0u /* MOV AL, moffs8    (load, 8-byte address) */
#define X86_OP_MOV_AX_MOFFS 0xA1u /* MOV rAX, moffs */
#define X86_OP_MOV_MOFFS_AL 0xA2u /* MOV moffs8, AL    (store) */
#define X86_OP_MOV_MOFFS_AX 0xA3u /* MOV moffs, rAX */
#define X86_OP_MOV_RM8_IMM8 0xC6u /* MOV r/m8, imm8    (/0) */
#define X86_OP_MOV_RM_IMM   0xC7u /* MOV r/m, imm16/32 (/0; imm32 sign-extended with REX.W) */
#define X86_OP2_MOVZX_8     0xB6u /* 0F B6: MOVZX r, r/m8 */
#define X86_OP2_MOVZX_16    0xB7u /* 0F B7: MOVZX r, r/m16 */
#define X86_OP2_MOVSX_8     0xBEu /* 0F BE: MOVSX r, r/m8 */
#define X86_OP2_MOVSX_16    0xBFu /* 0F BF: MOVSX r, r/m16 */
/* ModR/M and SIB fields (Vol. 2A §2.1.3, §2.1.5) */
#define X86_MODRM_MOD(b)  (((b) >> 6) & 3u)
#define X86_MODRM_REG(b)  (((b) >> 3) & 7u)
#define X86_MODRM_RM(b)   ((b)&7u)
#define X86_MOD_REG       3u /* register operand: not a memory access, rejected */
#define X86_RM_SIB        4u /* rm=100b: a SIB byte follows */
#define X86_RM_DISP32     5u /* mod=00, rm=101b: RIP-relative disp32 in 64-bit mode */
#define X86_SIB_BASE(b)   ((b)&7u)
#define X86_SIB_BASE_NONE 5u /* mod=00 and base=101b: disp32, no base */
#define X86_MOFFS_BYTES   8u /* moffs forms carry a 64-bit address in 64-bit mode */

/* GPR numbers as encoded in ModRM.reg + REX.R (Vol. 2A §3.1.1.1 Table 3-1 "Register Codes
 * Associated With +rb, +rw, +rd, +ro"). */
enum mmio_gpr {
    MMIO_RAX,
    MMIO_RCX,
    MMIO_RDX,
    MMIO_RBX,
    MMIO_RSP,
    MMIO_RBP,
    MMIO_RSI,
    MMIO_RDI,
    MMIO_R8,
    MMIO_R9,
    MMIO_R10,
    MMIO_R11,
    MMIO_R12,
    MMIO_R13,
    MMIO_R14,
    MMIO_R15,
};

struct mmio_insn {
    unsigned len;  /* instruction length in bytes (add to RIP) */
    bool is_write; /* store to memory (true) or load from it */
    unsigned size; /* memory access size: 1, 2, 4 or 8 */
    enum mmio_src {
        MMIO_SRC_REG,
        MMIO_SRC_IMM
    } src;          /* stores: where the value comes from;
                                                          loads: always MMIO_SRC_REG */
    unsigned reg;   /* GPR 0..15 (enum mmio_gpr) read by a store or written by a load.
                             * For AH/CH/DH/BH this is the register that holds them (RAX, RCX,
                             * RDX, RBX = 0..3) and reg_high8 is set. */
    bool reg_high8; /* the 8-bit operand is bits 15:8 of `reg` (no REX, reg field 4..7) */
    uint64_t imm;   /* immediate of C6/C7 (C7 with REX.W: already sign-extended to 64) */
    enum mmio_ext { MMIO_EXT_NONE, MMIO_EXT_ZERO, MMIO_EXT_SIGN } ext; /* MOVZX / MOVSX */
    unsigned dst_size; /* loads: bytes of the destination register written (1, 2, 4, 8;
                             * differs from size for MOVZX/MOVSX); stores: equal to size */
};

/* Errors. */
#define MMIO_EUNSUPPORTED (-1) /* not one of the MOV forms above, or longer than 15 bytes */
#define MMIO_ETRUNCATED   (-2) /* the instruction runs past the `avail` bytes supplied */
#define MMIO_EINVAL       (-3) /* NULL bytes or out */

/* Decodes one instruction from bytes[0..avail).  Never reads at or beyond bytes[avail] (nor
 * beyond 15 bytes).  Returns 0 with *out filled (len <= avail, len <= 15), or an error. */
int mmio_decode(const uint8_t *bytes, unsigned avail, struct mmio_insn *out);
const char *mmio_strerror(int err);

/* The new value of the destination register after a load of `value` (only its low i->size
 * bytes count) into a register that held old_reg: 64- and 32-bit writes replace the whole
 * register (32-bit ones zero bits 63:32), 16- and 8-bit writes keep the other bits (AH..BH
 * replace bits 15:8); MOVZX/MOVSX extend to dst_size first. */
uint64_t mmio_load_result(const struct mmio_insn *i, uint64_t old_reg, uint64_t value);

/* The value a store writes (its low i->size bytes; upper bits zero): the immediate, or the
 * source register's low bytes (bits 15:8 for AH..BH). */
uint64_t mmio_store_value(const struct mmio_insn *i, uint64_t reg_value);

#endif
