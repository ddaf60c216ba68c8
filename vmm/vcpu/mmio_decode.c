/* Decoder for the MOV forms guests use on MMIO (see mmio_decode.h for the SDM references).
 * Bytes are fetched through one bounds-checked reader, so a short buffer gives
 * MMIO_ETRUNCATED and an over-long instruction MMIO_EUNSUPPORTED, never an out-of-bounds
 * read. */
#include "vmm/vcpu/mmio_decode.h"

#include <stddef.h>
#include <string.h>

struct reader {
    const uint8_t *bytes;
    unsigned avail;
    unsigned pos;
};

/* Reads the next byte: the 15-byte architectural limit is checked first (an instruction that
 * needs a 16th byte is invalid however many bytes the caller had), then the caller's bound. */
static int next_byte(struct reader *r, uint8_t *b)
{
    if (r->pos >= MMIO_INSN_MAX_LEN)
        return MMIO_EUNSUPPORTED;
    if (r->pos >= r->avail)
        return MMIO_ETRUNCATED;
    *b = r->bytes[r->pos++];
    return 0;
}

/* Little-endian immediate or displacement of n bytes. */
static int next_le(struct reader *r, unsigned n, uint64_t *v)
{
    uint64_t acc = 0;
    for (unsigned k = 0; k < n; k++) {
        uint8_t b;
        int rc = next_byte(r, &b);
        if (rc)
            return rc;
        acc |= (uint64_t)b << (8 * k);
    }
    *v = acc;
    return 0;
}

/* Skips the SIB byte and displacement a memory ModR/M needs (only the length matters: the
 * GPA comes from the EPT violation).  Register operands (mod=3) are rejected. */
static int skip_modrm_memory(struct reader *r, uint8_t modrm)
{
    unsigned mod = X86_MODRM_MOD(modrm), rm = X86_MODRM_RM(modrm), disp = 0;
    uint64_t ignored;

    if (mod == X86_MOD_REG)
        return MMIO_EUNSUPPORTED;
    if (rm == X86_RM_SIB) {
        uint8_t sib;
        int rc = next_byte(r, &sib);
        if (rc)
            return rc;
        if (mod == 0 && X86_SIB_BASE(sib) == X86_SIB_BASE_NONE)
            disp = 4;
    } else if (mod == 0 && rm == X86_RM_DISP32) {
        disp = 4; /* RIP-relative */
    }
    if (mod == 1)
        disp = 1;
    else if (mod == 2)
        disp = 4;
    return next_le(r, disp, &ignored);
}

static bool is_segment_prefix(uint8_t b)
{
    return b == X86_PREFIX_SEG_ES || b == X86_PREFIX_SEG_CS || b == X86_PREFIX_SEG_SS ||
           b == X86_PREFIX_SEG_DS || b == X86_PREFIX_SEG_FS || b == X86_PREFIX_SEG_GS;
}

/* The GPR an 8-bit register field names: without any REX prefix, 4..7 are AH, CH, DH, BH —
 * bits 15:8 of RAX..RBX; with one they are SPL, BPL, SIL, DIL (Vol. 2A §2.2.1.2). */
static void set_reg8(struct mmio_insn *o, unsigned regnum, bool have_rex)
{
    if (!have_rex && regnum >= 4 && regnum <= 7) {
        o->reg = regnum - 4;
        o->reg_high8 = true;
    } else {
        o->reg = regnum;
        o->reg_high8 = false;
    }
}

int mmio_decode(const uint8_t *bytes, unsigned avail, struct mmio_insn *out)
{
    if (!bytes || !out)
        return MMIO_EINVAL;

    struct reader r = { bytes, avail, 0 };
    struct mmio_insn o;
    memset(&o, 0, sizeof(o));
    bool opsize16 = false, have_rex = false;
    uint8_t rex = 0, b;
    int rc;

    /* Legacy prefixes in any order, then at most one REX directly before the opcode.  A REX
     * followed by a legacy prefix is ignored by the processor (Vol. 2A §2.2.1), so a legacy
     * prefix forgets an earlier REX. */
    for (;;) {
        rc = next_byte(&r, &b);
        if (rc)
            return rc;
        if (b == X86_PREFIX_OPSIZE) {
            opsize16 = true;
            have_rex = false;
            rex = 0;
        } else if (is_segment_prefix(b)) {
            have_rex = false;
            rex = 0;
        } else if ((b & 0xF0u) == X86_REX_BASE) {
            have_rex = true;
            rex = b;
        } else {
            break;
        }
    }
    /* LOCK, REP/REPNE, address-size (0x67) and every other byte end up here as the "opcode"
     * and are rejected below with everything that is not one of our MOVs. */
    unsigned opsize = (rex & X86_REX_W) ? 8 : opsize16 ? 2 : 4;
    unsigned reg_ext = (rex & X86_REX_R) ? 8 : 0;
    uint8_t modrm;

    switch (b) {
    case X86_OP_MOV_RM8_R8:
    case X86_OP_MOV_R8_RM8:
    case X86_OP_MOV_RM_R:
    case X86_OP_MOV_R_RM: {
        bool byte_op = b == X86_OP_MOV_RM8_R8 || b == X86_OP_MOV_R8_RM8;
        if ((rc = next_byte(&r, &modrm)) || (rc = skip_modrm_memory(&r, modrm)))
            return rc;
        o.is_write = b == X86_OP_MOV_RM8_R8 || b == X86_OP_MOV_RM_R;
        o.size = byte_op ? 1 : opsize;
        o.dst_size = o.size;
        o.src = MMIO_SRC_REG;
        if (byte_op)
            set_reg8(&o, X86_MODRM_REG(modrm) | reg_ext, have_rex);
        else
            o.reg = X86_MODRM_REG(modrm) | reg_ext;
        break;
    }
    case X86_OP_MOV_RM8_IMM8:
    case X86_OP_MOV_RM_IMM: {
        if ((rc = next_byte(&r, &modrm)))
            return rc;
        if (X86_MODRM_REG(modrm) != 0) /* C6/C7 with reg != 0 are other instructions */
            return MMIO_EUNSUPPORTED;
        if ((rc = skip_modrm_memory(&r, modrm)))
            return rc;
        o.is_write = true;
        o.src = MMIO_SRC_IMM;
        o.size = b == X86_OP_MOV_RM8_IMM8 ? 1 : opsize;
        o.dst_size = o.size;
        unsigned imm_bytes = o.size == 8 ? 4 : o.size;
        uint64_t imm;
        if ((rc = next_le(&r, imm_bytes, &imm)))
            return rc;
        if (o.size == 8) /* imm32 sign-extended to 64 bits */
            imm = (uint64_t)(int64_t)(int32_t)(uint32_t)imm;
        o.imm = imm;
        break;
    }
    case X86_OP_MOV_AL_MOFFS:
    case X86_OP_MOV_AX_MOFFS:
    case X86_OP_MOV_MOFFS_AL:
    case X86_OP_MOV_MOFFS_AX: {
        uint64_t addr;
        if ((rc = next_le(&r, X86_MOFFS_BYTES, &addr)))
            return rc;
        bool byte_op = b == X86_OP_MOV_AL_MOFFS || b == X86_OP_MOV_MOFFS_AL;
        o.is_write = b == X86_OP_MOV_MOFFS_AL || b == X86_OP_MOV_MOFFS_AX;
        o.size = byte_op ? 1 : opsize;
        o.dst_size = o.size;
        o.src = MMIO_SRC_REG;
        o.reg = MMIO_RAX; /* always AL/AX/EAX/RAX; REX.B does not apply */
        break;
    }
    case X86_OP_TWO_BYTE: {
        uint8_t op2;
        if ((rc = next_byte(&r, &op2)))
            return rc;
        if (op2 != X86_OP2_MOVZX_8 && op2 != X86_OP2_MOVZX_16 && op2 != X86_OP2_MOVSX_8 &&
            op2 != X86_OP2_MOVSX_16)
            return MMIO_EUNSUPPORTED;
        if ((rc = next_byte(&r, &modrm)) || (rc = skip_modrm_memory(&r, modrm)))
            return rc;
        o.is_write = false;
        o.src = MMIO_SRC_REG;
        o.size = (op2 == X86_OP2_MOVZX_8 || op2 == X86_OP2_MOVSX_8) ? 1 : 2;
        o.dst_size = opsize;
        o.ext = (op2 == X86_OP2_MOVZX_8 || op2 == X86_OP2_MOVZX_16) ? MMIO_EXT_ZERO : MMIO_EXT_SIGN;
        o.reg = X86_MODRM_REG(modrm) | reg_ext;
        break;
    }
    default:
        return MMIO_EUNSUPPORTED;
    }

    o.len = r.pos;
    *out = o;
    return 0;
}

const char *mmio_strerror(int err)
{
    switch (err) {
    case 0:
        return "ok";
    case MMIO_EUNSUPPORTED:
        return "unsupported instruction for MMIO emulation";
    case MMIO_ETRUNCATED:
        return "instruction bytes truncated";
    case MMIO_EINVAL:
        return "invalid argument";
    default:
        return "unknown MMIO decode error";
    }
}

static uint64_t low_mask(unsigned size)
{
    return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

uint64_t mmio_load_result(const struct mmio_insn *i, uint64_t old_reg, uint64_t value)
{
    uint64_t v = value & low_mask(i->size);
    if (i->ext == MMIO_EXT_SIGN && i->size < 8) {
        uint64_t sign = 1ULL << (8 * i->size - 1);
        v = (v ^ sign) - sign; /* sign-extend from size bytes to 64 bits */
    }
    switch (i->dst_size) {
    case 8:
        return v;
    case 4:
        return v & 0xFFFFFFFFULL; /* 32-bit destinations zero bits 63:32 */
    case 2:
        return (old_reg & ~0xFFFFULL) | (v & 0xFFFFULL);
    case 1:
        if (i->reg_high8)
            return (old_reg & ~0xFF00ULL) | ((v & 0xFFULL) << 8);
        return (old_reg & ~0xFFULL) | (v & 0xFFULL);
    default:
        return old_reg; /* not a decoded instruction: leave the register alone */
    }
}

uint64_t mmio_store_value(const struct mmio_insn *i, uint64_t reg_value)
{
    if (i->src == MMIO_SRC_IMM)
        return i->imm & low_mask(i->size);
    if (i->reg_high8)
        return (reg_value >> 8) & 0xFFULL;
    return reg_value & low_mask(i->size);
}
