/* Private to config/: the checker's working state and the table-driven property reader. */
#ifndef CONFIG_INTERNAL_H
#define CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* The DTB format version accepted: 17, the current one (Devicetree Specification v0.3,
 * section 5.2), which dtc and libfdt's sequential-write API produce. */
#define CFG_DTB_VERSION 17u

/* Longest node path we build: "/guests/" plus a node name (libfdt caps names at 31 bytes). */
#define CFG_PATH_MAX 64u

struct cfg_ctx {
    const void *fdt; /* 8-byte aligned, fdt_check_full passed */
    struct cfg *out;
    char *err;
    size_t errlen;
    /* Optional properties whose default depends on other values (set in check.c). */
    bool slice_given;
    bool max_slots_given;
    uint64_t fb_given;      /* bit i: guest i sets framebuffer-px */
    uint64_t display_given; /* bit i: guest i sets display-px or display-hz */
};

/* Writes "<node>: <prop>: <what>" (or "<node>: <what>" when prop is NULL) into the error
 * buffer and returns CFG_EINVALID, so callers can `return cfg_fail(...)`. */
int cfg_fail(struct cfg_ctx *x, const char *node, const char *prop, const char *what);

/* Writes msg as is; returns rc. */
int cfg_fail_raw(char *err, size_t errlen, int rc, const char *msg);

enum cfg_kind {
    CFG_K_U32,    /* one 32-bit cell, <N> */
    CFG_K_BOOL,   /* empty property: present = on, absent = off */
    CFG_K_STRING, /* one string, no string lists */
    CFG_K_ENUM,   /* one string from choices[], the index is stored as uint32_t */
    CFG_K_TILE,   /* four cells <x y width height>, stored as struct cfg_tile */
    CFG_K_SIZE,   /* two cells <width height>, each 16..8192 px, two uint32_t */
    CFG_K_CPUS,   /* 1..CFG_VCPUS_MAX cells, each a CPU 0..max named once, as struct cfg_cpus */
};

enum cfg_charset {
    CFG_CS_TAG,       /* [A-Za-z0-9._-]: image tags (GRUB module2 command line word) */
    CFG_CS_PRINTABLE, /* printable ASCII 0x20..0x7e */
};

/* One property a node may carry: the policy (limits) for the generic reader. */
struct cfg_prop {
    const char *name;
    uint8_t kind; /* enum cfg_kind */
    bool required;
    uint8_t charset;            /* CFG_K_STRING */
    bool pow2;                  /* CFG_K_U32: must be a power of two */
    uint32_t min, max;          /* CFG_K_U32, CFG_K_CPUS: value range; CFG_K_STRING: length */
    uint32_t multiple_of;       /* CFG_K_U32: 0 or the granularity */
    const char *const *choices; /* CFG_K_ENUM: NULL-terminated */
    const char *what;           /* what the value means, with its unit, for messages */
    size_t offset;              /* where the value goes in the destination struct */
};

/* Reads every property of `node` (path for messages) against the table: unknown or repeated
 * properties, missing required ones, wrong sizes or types and out-of-range values are errors.
 * Values are stored at dst + props[i].offset; bit i of *seen is set for each property found.
 * Table order is the order required properties are reported in. */
int cfg_read_props(struct cfg_ctx *x, int node, const char *path, const struct cfg_prop *props,
                   unsigned n_props, void *dst, uint64_t *seen);

/* The known name closest to `name` (a likely typo), or NULL if none is close. */
const char *cfg_suggest(const char *name, const char *const *known, unsigned n_known);

/* Cross-node rules, after every node was read: names, RAM budget, tiles, graphics memory,
 * balloon bounds. */
int cfg_check_semantics(struct cfg_ctx *x);

/* The rules that depend on what a guest boots (check_kind.c): Linux-only properties, the Linux
 * RAM floor, command-line lengths, the framebuffer's default and size.  Run by
 * cfg_check_semantics before the RAM budget. */
int cfg_check_guest_kinds(struct cfg_ctx *x);

/* "/guests/<name>" of guest i, for messages. */
void cfg_guest_path(const struct cfg *c, unsigned i, char buf[CFG_PATH_MAX]);

#endif
