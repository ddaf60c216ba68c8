/* Test fixture for the config checker: a configuration held as a flat list of (node, property,
 * value) entries that tests edit (set, drop, add nodes), then turn into a DTB with libfdt's
 * sequential-write API, so no test needs dtc at run time.  Included by test_config_*.c only;
 * everything is static so each test program gets its own copy. */
#ifndef TEST_CONFIG_FIXTURE_H
#define TEST_CONFIG_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "config/config.h"

#define T_MAX_ENTRIES 1024
#define T_DTB_BYTES   (256 * 1024)

enum { T_NODE, T_U32, T_STR, T_EMPTY, T_CELLS, T_RAW };

struct t_entry {
    char node[64]; /* "" = root, "guests/kiosk0" */
    char name[40]; /* property name ("" for a T_NODE marker) */
    int kind;
    uint32_t cells[4];
    int ncells;
    char str[CFG_CMDLINE_MAX + 64]; /* long enough for a command line past the limit */
    unsigned char raw[64];
    int rawlen;
};

struct t_cfg {
    struct t_entry e[T_MAX_ENTRIES];
    int n;
};

static struct t_cfg t_cfg_storage;
static unsigned char t_dtb[T_DTB_BYTES];
static struct cfg t_out;
static char t_err[512];

static inline struct t_entry *t_find(struct t_cfg *t, const char *node, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (t->e[i].kind != T_NODE && strcmp(t->e[i].node, node) == 0 &&
            strcmp(t->e[i].name, name) == 0)
            return &t->e[i];
    return NULL;
}

/* Replaces the property if present, else appends it. */
static inline struct t_entry *t_slot(struct t_cfg *t, const char *node, const char *name)
{
    struct t_entry *e = t_find(t, node, name);
    if (!e) {
        if (t->n >= T_MAX_ENTRIES) {
            fprintf(stderr, "fixture: too many entries\n");
            abort();
        }
        e = &t->e[t->n++];
    }
    memset(e, 0, sizeof *e);
    snprintf(e->node, sizeof e->node, "%s", node);
    snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

/* Appends even if the property exists (for duplicate-property tests). */
static inline struct t_entry *t_append(struct t_cfg *t, const char *node, const char *name)
{
    struct t_entry *e = &t->e[t->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->node, sizeof e->node, "%s", node);
    snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

static inline void t_u32(struct t_cfg *t, const char *node, const char *name, uint32_t v)
{
    struct t_entry *e = t_slot(t, node, name);
    e->kind = T_U32;
    e->cells[0] = v;
}

static inline void t_str(struct t_cfg *t, const char *node, const char *name, const char *s)
{
    struct t_entry *e = t_slot(t, node, name);
    e->kind = T_STR;
    snprintf(e->str, sizeof e->str, "%s", s);
}

static inline void t_empty(struct t_cfg *t, const char *node, const char *name)
{
    t_slot(t, node, name)->kind = T_EMPTY;
}

static inline void t_cells(struct t_cfg *t, const char *node, const char *name, int n, uint32_t a,
                           uint32_t b, uint32_t c, uint32_t d)
{
    struct t_entry *e = t_slot(t, node, name);
    e->kind = T_CELLS;
    e->ncells = n;
    e->cells[0] = a, e->cells[1] = b, e->cells[2] = c, e->cells[3] = d;
}

static inline void t_raw(struct t_cfg *t, const char *node, const char *name, const void *v,
                         int len)
{
    struct t_entry *e = t_slot(t, node, name);
    e->kind = T_RAW;
    memcpy(e->raw, v, (size_t)len);
    e->rawlen = len;
}

static inline void t_node(struct t_cfg *t, const char *node)
{
    struct t_entry *e = &t->e[t->n++];
    memset(e, 0, sizeof *e);
    e->kind = T_NODE;
    snprintf(e->node, sizeof e->node, "%s", node);
}

static inline void t_drop(struct t_cfg *t, const char *node, const char *name)
{
    struct t_entry *e = t_find(t, node, name);
    if (e) {
        /* keep the order: shift the rest down */
        memmove(e, e + 1, (size_t)(&t->e[t->n] - (e + 1)) * sizeof *e);
        t->n--;
    }
}

/* Drops a node with everything under it. */
static inline void t_drop_node(struct t_cfg *t, const char *node)
{
    size_t len = strlen(node);
    int k = 0;
    for (int i = 0; i < t->n; i++) {
        const char *p = t->e[i].node;
        bool under = strncmp(p, node, len) == 0 && (p[len] == '\0' || p[len] == '/');
        if (!under)
            t->e[k++] = t->e[i];
    }
    t->n = k;
}

/* Renames a node; a "#suffix" is left out of the emitted name, so renaming "guests/kiosk2" to
 * "guests/kiosk0#2" makes a second node called kiosk0 (dtc would refuse to). */
static inline void t_rename_node(struct t_cfg *t, const char *from, const char *to)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->e[i].node, from) == 0)
            snprintf(t->e[i].node, sizeof t->e[i].node, "%s", to);
}

static inline void t_guest(struct t_cfg *t, unsigned i, unsigned cols, uint32_t tw, uint32_t th)
{
    char node[64];
    snprintf(node, sizeof node, "guests/kiosk%u", i);
    t_node(t, node);
    t_str(t, node, "image", "hello");
    t_u32(t, node, "ram-mib", 32);
    t_u32(t, node, "low-gm-mib", 64);
    t_u32(t, node, "high-gm-mib", 128);
    t_u32(t, node, "weight", 100);
    t_cells(t, node, "tile-px", 4, (i % cols) * tw, (i / cols) * th, tw, th);
    t_empty(t, node, "console");
    t_empty(t, node, "autostart");
}

/* A valid configuration: n guests (up to 4 on a 2x2 grid of a 1024x768 wall, more on an 8x8
 * grid of 128x96 tiles), 16 MiB of RAM each for many guests so the budget holds. */
static inline struct t_cfg *t_base(unsigned n)
{
    struct t_cfg *t = &t_cfg_storage;
    memset(t, 0, sizeof *t);
    t_str(t, "", "compatible", CFG_COMPATIBLE);
    t_str(t, "appliance", "model", "test box");
    t_u32(t, "appliance", "ram-mib", 1024);
    t_u32(t, "appliance", "reserved-mib", 64);
    t_u32(t, "appliance", "aperture-mib", 256);
    t_str(t, "graphics", "sharing", "all");
    t_u32(t, "display", "width-px", 1024);
    t_u32(t, "display", "height-px", 768);
    t_str(t, "scheduler", "policy", "fair");
    t_u32(t, "scheduler", "slice-us", 6000);
    t_empty(t, "balloon", "enabled");
    t_u32(t, "balloon", "period-ms", 500);
    t_u32(t, "balloon", "low-threshold-pct", 25);
    t_u32(t, "balloon", "high-threshold-pct", 50);
    t_u32(t, "balloon", "min-slots", 1);
    t_u32(t, "balloon", "max-slots", 8);
    t_node(t, "guests");
    for (unsigned i = 0; i < n; i++) {
        if (n <= 4)
            t_guest(t, i, 2, 512, 384);
        else
            t_guest(t, i, 8, 128, 96);
        if (n > 4) {
            char node[64];
            snprintf(node, sizeof node, "guests/kiosk%u", i);
            t_u32(t, node, "ram-mib", 8);
            t_u32(t, node, "low-gm-mib", 16);
            t_u32(t, node, "high-gm-mib", 64);
        }
    }
    return t;
}

static inline bool t_is_child(const char *parent, const char *path)
{
    size_t lp = strlen(parent);
    if (parent[0] == '\0')
        return path[0] != '\0' && strchr(path, '/') == NULL;
    return strncmp(path, parent, lp) == 0 && path[lp] == '/' && strchr(path + lp + 1, '/') == NULL;
}

static inline int t_emit(const struct t_cfg *t, void *fdt, const char *path)
{
    int rc = 0;
    for (int i = 0; i < t->n && rc == 0; i++) {
        const struct t_entry *e = &t->e[i];
        if (e->kind == T_NODE || strcmp(e->node, path) != 0)
            continue;
        switch (e->kind) {
        case T_U32:
            rc = fdt_property_u32(fdt, e->name, e->cells[0]);
            break;
        case T_STR:
            rc = fdt_property_string(fdt, e->name, e->str);
            break;
        case T_EMPTY:
            rc = fdt_property(fdt, e->name, NULL, 0);
            break;
        case T_CELLS: {
            fdt32_t v[4];
            for (int k = 0; k < e->ncells; k++)
                v[k] = cpu_to_fdt32(e->cells[k]);
            rc = fdt_property(fdt, e->name, v, e->ncells * 4);
            break;
        }
        case T_RAW:
            rc = fdt_property(fdt, e->name, e->raw, e->rawlen);
            break;
        }
    }
    /* Children in order of first appearance; a path seen twice as a T_NODE marker (a
     * deliberate duplicate) is emitted twice. */
    for (int i = 0; i < t->n && rc == 0; i++) {
        const char *p = t->e[i].node;
        if (!t_is_child(path, p))
            continue;
        bool first = t->e[i].kind == T_NODE;
        if (!first) {
            first = true;
            for (int j = 0; j < i; j++)
                if (strcmp(t->e[j].node, p) == 0)
                    first = false;
        }
        if (!first)
            continue;
        /* "kiosk0#2" is a second node named kiosk0 with its own entries. */
        char leaf[64];
        snprintf(leaf, sizeof leaf, "%s", strrchr(p, '/') ? strrchr(p, '/') + 1 : p);
        leaf[strcspn(leaf, "#")] = '\0';
        rc = fdt_begin_node(fdt, leaf);
        if (rc == 0)
            rc = t_emit(t, fdt, p);
        if (rc == 0)
            rc = fdt_end_node(fdt);
    }
    return rc;
}

/* Builds the DTB into t_dtb; returns its size. */
static inline size_t t_build(const struct t_cfg *t)
{
    void *fdt = t_dtb;
    int rc = fdt_create(fdt, sizeof t_dtb);
    if (rc == 0)
        rc = fdt_finish_reservemap(fdt);
    if (rc == 0)
        rc = fdt_begin_node(fdt, "");
    if (rc == 0)
        rc = t_emit(t, fdt, "");
    if (rc == 0)
        rc = fdt_end_node(fdt);
    if (rc == 0)
        rc = fdt_finish(fdt);
    if (rc != 0) {
        fprintf(stderr, "fixture: building the DTB failed: %s\n", fdt_strerror(rc));
        abort();
    }
    return fdt_totalsize(fdt);
}

/* Builds and checks; the message is left in t_err. */
static inline int t_check(const struct t_cfg *t)
{
    size_t len = t_build(t);
    t_err[0] = '\0';
    return cfg_check_dtb(t_dtb, len, &t_out, t_err, sizeof t_err);
}

#endif
