/* The vGPU as a guest sees it (docs/vgpu-abi.md).
 *
 * The PV info page at BAR0 + 0x78000 is laid out exactly as Linux's i915_pvinfo.h
 * ("struct vgt_if", version 1.0), so an unmodified i915 guest recognises a mediated GPU, reads
 * which graphics memory it owns (avail_rs) and balloons out the rest.  Tessera's own protocol
 * (graphics-memory balloon requests) lives in the second half page's reserved area and uses
 * g2v_notify values above i915's; no i915 field is ever moved.  Field offsets are checked
 * against i915_pvinfo.h by tests/unit/test_core_vgpu_abi.c. */
#ifndef TESSERA_ABI_VGPU_H
#define TESSERA_ABI_VGPU_H

#include <stdint.h>

#define VGT_PVINFO_PAGE   0x78000 /* offset in BAR0 */
#define VGT_PVINFO_SIZE   0x1000
#define VGT_MAGIC         0x4776544776544776ULL /* "vGTvGTvG" */
#define VGT_VERSION_MAJOR 1
#define VGT_VERSION_MINOR 0

/* g2v_notify values i915 defines (enum vgt_g2v_type). */
#define VGT_G2V_PPGTT_L3_PAGE_TABLE_CREATE  2
#define VGT_G2V_PPGTT_L3_PAGE_TABLE_DESTROY 3
#define VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE  4
#define VGT_G2V_PPGTT_L4_PAGE_TABLE_DESTROY 5
#define VGT_G2V_EXECLIST_CONTEXT_CREATE     6
#define VGT_G2V_EXECLIST_CONTEXT_DESTROY    7

/* vgt_caps bits (i915_pvinfo.h). */
#define VGT_CAPS_FULL_PPGTT     (1u << 2)
#define VGT_CAPS_HWSP_EMULATION (1u << 3)
#define VGT_CAPS_HUGE_GTT       (1u << 4)

#define VGT_DRV_DISPLAY_NOT_READY 0
#define VGT_DRV_DISPLAY_READY     1

/* Tessera's extension: a guest asks for more or fewer 64 MiB high-GM slots by writing
 * `request` (signed slot delta) and then TESSERA_G2V_BALLOON to g2v_notify; the hypervisor
 * answers in `status`, updates avail_rs and bumps `generation`. */
#define TESSERA_G2V_BALLOON     0x100
#define TESSERA_BALLOON_MAGIC   0x4E4C4254u /* "TBLN" */
#define TESSERA_BALLOON_IDLE    0
#define TESSERA_BALLOON_GRANTED 1
#define TESSERA_BALLOON_REFUSED 2

/* Tessera's re-placement extension (docs/vgpu-abi.md "Re-placement"): the hypervisor may move a
 * guest's low and high ranges elsewhere in the GGTT, carrying its GGTT entries with them, so
 * that busy guests stop sharing (and copying) graphics memory.  Only guests that write
 * TESSERA_MOVE_CAP_FOLLOW to `caps` are ever moved.  When `request` changes, the guest waits
 * for its work to finish, then writes TESSERA_G2V_MOVE_READY to g2v_notify; the move happens
 * during that write, and the guest reads `status` and the new avail_rs and adds the distance
 * each range moved to every graphics address it holds. */
#define TESSERA_G2V_MOVE_READY  0x101
#define TESSERA_MOVE_MAGIC      0x564F4D54u /* "TMOV" */
#define TESSERA_MOVE_CAP_FOLLOW 1u
#define TESSERA_MOVE_NONE       0 /* nothing answered yet */
#define TESSERA_MOVE_MOVED      1 /* the ranges moved: read avail_rs */
#define TESSERA_MOVE_NOT_NEEDED 2 /* the request was withdrawn: nothing moved */
#define TESSERA_MOVE_BUSY       3 /* work was still queued: nothing moved, ask again */
#define TESSERA_MOVE_REFUSED \
    4 /* the move could not be made (a fence pins the
                                             * window): nothing moved */

struct tessera_move_if {
    uint32_t magic;    /* TESSERA_MOVE_MAGIC when the extension is present */
    uint32_t caps;     /* written by the guest: TESSERA_MOVE_CAP_* */
    uint32_t request;  /* +1 whenever the hypervisor wants to move the guest */
    uint32_t done;     /* the request the last answer was for */
    uint32_t status;   /* TESSERA_MOVE_* for it */
    uint32_t moves;    /* moves applied */
    uint32_t low_used; /* written by the guest: bytes of its low range it uses, from the
                                 * start (0: not said).  The hypervisor may then shrink the range
                                 * to that and some room in a move, and grows it back (up to the
                                 * configured size) when the guest says it uses more */
    uint32_t reserved[1];
};

/* The vGPU's word on the guest's own work, so a guest waiting for a workload can tell a GPU
 * that is busy with others' work from one that is stuck (docs/vgpu-abi.md "Waiting for work").
 * Read-only for the guest; it says nothing about other guests. */
#define TESSERA_WORK_MAGIC 0x4B525754u /* "TWRK" */

struct tessera_work_if {
    uint32_t magic;   /* TESSERA_WORK_MAGIC when the extension is present */
    uint32_t waiting; /* its workloads queued and not on the GPU now: they wait for
                                 * their turn behind other guests' work (or a preemption left
                                 * them there) */
    uint32_t gpu_us;  /* GPU time its work has used, in us (wraps), counting the
                                 * workload on the GPU now */
    uint32_t reserved[1];
};

struct vgt_if_range {
    uint32_t base;
    uint32_t size;
};

struct tessera_balloon_if {
    uint32_t magic;      /* TESSERA_BALLOON_MAGIC when the extension is present */
    int32_t request;     /* slots wanted: +N grow, -N shrink */
    uint32_t status;     /* TESSERA_BALLOON_* for the last request */
    uint32_t generation; /* +1 whenever avail_rs changes */
    uint32_t slots;      /* high-GM slots held now */
    uint32_t slot_mib;   /* slot size */
    /* Workload accounting, read-only for the guest (docs/vgpu-abi.md "Submitting work"). */
    uint32_t submitted;     /* ELSP submissions seen */
    uint32_t completed;     /* ... that ran to completion */
    uint32_t rejected;      /* ... refused by the command scanner or the vGPU */
    uint32_t last_reject;   /* TESSERA_REJECT_* of the last refusal */
    uint32_t resets;        /* engine resets of this vGPU (watchdog or operator) */
    uint32_t ggtt_refused;  /* GGTT writes refused */
    uint32_t fence_refused; /* fence writes refused */
    uint32_t fence_pending; /* fence writes whose work is not done yet (docs/vgpu-abi.md) */
};

/* last_reject: 1..99 are the command scanner's reasons (enum igpu_scan_err, same numbers);
 * the vGPU's own start at 100. */
#define TESSERA_REJECT_NONE        0
#define TESSERA_REJECT_BAD_CONTEXT 100 /* descriptor, context image or ring unusable */
#define TESSERA_REJECT_QUEUE_FULL  101 /* too many workloads queued */
#define TESSERA_REJECT_ENGINE      102 /* engine other than the blitter */
#define TESSERA_REJECT_RESET       103 /* dropped by an engine reset (watchdog) */
#define TESSERA_REJECT_SHRUNK      104 /* its graphics memory was ballooned away */
#define TESSERA_REJECT_GPU_FAULT   105 /* the GPU faulted while running it */

struct vgt_if {
    uint64_t magic;         /* 0x000: VGT_MAGIC */
    uint16_t version_major; /* 0x008 */
    uint16_t version_minor; /* 0x00a */
    uint32_t vgt_id;        /* 0x00c: the vGPU's id */
    uint32_t vgt_caps;      /* 0x010 */
    uint32_t rsv1[11];      /* pad to 0x040 */
    struct {
        struct vgt_if_range mappable_gmadr;    /* 0x040: low GM (aperture) */
        struct vgt_if_range nonmappable_gmadr; /* 0x048: high GM */
        uint32_t fence_num;                    /* 0x050 */
        uint32_t rsv2[3];
    } avail_rs;
    uint32_t rsv3[0x200 - 24]; /* pad to half page */
    uint32_t rsv4;             /* 0x800 */
    uint32_t display_ready;    /* 0x804 */
    uint32_t rsv5[4];
    uint32_t g2v_notify; /* 0x818 */
    uint32_t rsv6[5];
    uint32_t cursor_x_hot; /* 0x830 */
    uint32_t cursor_y_hot; /* 0x834 */
    struct {
        uint32_t lo, hi;
    } pdp[4];                                /* 0x838 */
    uint32_t execlist_context_descriptor_lo; /* 0x858 */
    uint32_t execlist_context_descriptor_hi; /* 0x85c */
    /* i915's rsv7 pads to one page; Tessera's extensions sit at its end. */
    uint32_t rsv7[0x200 - 24 - sizeof(struct tessera_balloon_if) / 4 -
                  sizeof(struct tessera_move_if) / 4 - sizeof(struct tessera_work_if) / 4];
    struct tessera_work_if tessera_work;
    struct tessera_move_if tessera_move;
    struct tessera_balloon_if tessera_balloon;
} __attribute__((packed));

#define TESSERA_BALLOON_OFFSET (VGT_PVINFO_SIZE - sizeof(struct tessera_balloon_if))
#define TESSERA_MOVE_OFFSET    (TESSERA_BALLOON_OFFSET - sizeof(struct tessera_move_if))
#define TESSERA_WORK_OFFSET    (TESSERA_MOVE_OFFSET - sizeof(struct tessera_work_if))

#endif
