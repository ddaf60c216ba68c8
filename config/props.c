/* The table-driven property reader: one place that knows how a device-tree property is encoded
 * (big-endian cells, NUL-terminated strings, empty booleans) and how to say what is wrong with it.
 * The tables themselves (which properties, which limits) live with the nodes in parse.c. */
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "config/internal.h"

int cfg_fail_raw(char *err, size_t errlen, int rc, const char *msg)
{
    if (err && errlen > 0)
        snprintf(err, errlen, "%s", msg);
    return rc;
}

int cfg_fail(struct cfg_ctx *x, const char *node, const char *prop, const char *what)
{
    if (x->err && x->errlen > 0) {
        if (prop)
            snprintf(x->err, x->errlen, "%s: %s: %s", node, prop, what);
        else
            snprintf(x->err, x->errlen, "%s: %s", node, what);
    }
    return CFG_EINVALID;
}

/* A name from the blob made safe to print: printable ASCII only, at most 40 characters. */
static const char *printable(const char *s, size_t len, char buf[48])
{
    size_t i, n = 0;
    for (i = 0; i < len && s[i] != '\0' && n < 40; i++)
        buf[n++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (i < len && s[i] != '\0' && n == 40) {
        buf[n++] = '.';
        buf[n++] = '.';
        buf[n++] = '.';
    }
    buf[n] = '\0';
    return buf;
}

/* Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, so "weigth" is
 * one edit from "weight"), for strings of at most 32 characters; longer ones return a big
 * number.  Three rolling rows keep it small on the hypervisor's boot stack. */
static unsigned edit_distance(const char *a, const char *b)
{
    enum { M = 33 };
    size_t la = strlen(a), lb = strlen(b);
    unsigned rows[3][M];
    unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    if (la >= M || lb >= M)
        return 1000;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned cost = a[i - 1] != b[j - 1];
            unsigned best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (prev[j - 1] + cost < best)
                best = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        unsigned *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

const char *cfg_suggest(const char *name, const char *const *known, unsigned n_known)
{
    const char *best = NULL;
    unsigned best_d = 3; /* at most two edits away */
    size_t ln = strlen(name);
    for (unsigned i = 0; i < n_known; i++) {
        unsigned d = edit_distance(name, known[i]);
        /* A name without its unit ("ram" for "ram-mib") is a typo too. */
        if (ln >= 3 && strncmp(known[i], name, ln) == 0 && known[i][ln] == '-')
            d = 1;
        if (d < best_d && !(d >= ln)) {
            best_d = d;
            best = known[i];
        }
    }
    return best;
}

static uint32_t be32(const void *p)
{
    const uint8_t *b = p;
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The value must be exactly one NUL-terminated string.  Returns its length or -1. */
static int one_string(const char *v, int len)
{
    if (len < 1 || v[len - 1] != '\0')
        return -1;
    const char *nul = memchr(v, '\0', (size_t)len);
    return nul == v + len - 1 ? len - 1 : -1;
}

static bool char_ok(char c, uint8_t charset)
{
    if (charset == CFG_CS_TAG)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
    return c >= 0x20 && c < 0x7f;
}

/* True if the value is one printable string: `weight = "100";` is four bytes, like a cell,
 * and deserves "you wrote a string" rather than "expected 1..1000, got 825241600". */
static bool looks_like_string(const char *v, int len)
{
    if (len < 2 || v[len - 1] != '\0')
        return false;
    for (int i = 0; i < len - 1; i++)
        if (v[i] < 0x20 || v[i] >= 0x7f)
            return false;
    return true;
}

static int read_u32(struct cfg_ctx *x, const char *path, const struct cfg_prop *p, const void *v,
                    int len, uint32_t *dst)
{
    char what[200], shown[48];
    if (looks_like_string(v, len)) {
        snprintf(what, sizeof what,
                 "expected one 32-bit cell (%s), e.g. %s = <%u>; got the string \"%s\"", p->what,
                 p->name, p->min, printable(v, (size_t)len, shown));
        return cfg_fail(x, path, p->name, what);
    }
    if (len != 4) {
        snprintf(what, sizeof what, "expected one 32-bit cell (%s), e.g. %s = <%u>; got %d bytes",
                 p->what, p->name, p->min, len);
        return cfg_fail(x, path, p->name, what);
    }
    uint32_t u = be32(v);
    if (u < p->min || u > p->max) {
        snprintf(what, sizeof what, "expected %u..%u (%s), got %u", p->min, p->max, p->what, u);
        return cfg_fail(x, path, p->name, what);
    }
    if (p->multiple_of && u % p->multiple_of != 0) {
        snprintf(what, sizeof what, "expected a multiple of %u (%s), got %u", p->multiple_of,
                 p->what, u);
        return cfg_fail(x, path, p->name, what);
    }
    if (p->pow2 && (u & (u - 1)) != 0) {
        snprintf(what, sizeof what, "expected a power of two (%s), got %u", p->what, u);
        return cfg_fail(x, path, p->name, what);
    }
    *dst = u;
    return CFG_OK;
}

static int read_string(struct cfg_ctx *x, const char *path, const struct cfg_prop *p, const char *v,
                       int len, char *dst, size_t cap)
{
    char what[200], shown[48];
    int n = one_string(v, len);
    if (n < 0) {
        snprintf(what, sizeof what, "expected one string (%s), e.g. %s = \"...\"; got %d bytes%s",
                 p->what, p->name, len,
                 len > 0 && v[len - 1] == '\0' ? " holding several strings" : "");
        return cfg_fail(x, path, p->name, what);
    }
    if (p->kind == CFG_K_STRING) {
        if ((uint32_t)n < p->min || (uint32_t)n > p->max) {
            snprintf(what, sizeof what, "expected %u..%u characters (%s), got %d", p->min, p->max,
                     p->what, n);
            return cfg_fail(x, path, p->name, what);
        }
        for (int i = 0; i < n; i++) {
            if (!char_ok(v[i], p->charset)) {
                snprintf(what, sizeof what, "character %d (0x%02x) not allowed in \"%s\" (%s%s)", i,
                         (unsigned char)v[i], printable(v, (size_t)n, shown), p->what,
                         p->charset == CFG_CS_TAG ? ": letters, digits, '.', '_' and '-'"
                                                  : ": printable ASCII");
                return cfg_fail(x, path, p->name, what);
            }
        }
        if ((size_t)n >= cap) /* the tables keep max below the buffer; belt and braces */
            return cfg_fail(x, path, p->name, "string too long");
        memcpy(dst, v, (size_t)n + 1);
    }
    return n;
}

static int read_enum(struct cfg_ctx *x, const char *path, const struct cfg_prop *p, const char *v,
                     int len, uint32_t *dst)
{
    char what[240], shown[48];
    int n = read_string(x, path, p, v, len, NULL, 0);
    if (n < 0)
        return n;
    size_t used = 0;
    for (uint32_t i = 0; p->choices[i]; i++) {
        if (strcmp(v, p->choices[i]) == 0) {
            *dst = i;
            return CFG_OK;
        }
    }
    used += (size_t)snprintf(what, sizeof what, "expected one of");
    for (uint32_t i = 0; p->choices[i] && used < sizeof what; i++)
        used += (size_t)snprintf(what + used, sizeof what - used, "%s \"%s\"", i ? "," : "",
                                 p->choices[i]);
    if (used < sizeof what)
        snprintf(what + used, sizeof what - used, " (%s), got \"%s\"", p->what,
                 printable(v, (size_t)n, shown));
    return cfg_fail(x, path, p->name, what);
}

/* One cell per vCPU, each a CPU index named once: two vCPUs of a guest on one core would only
 * take turns (folding at boot may still put them together on a smaller machine). */
static int read_cpus(struct cfg_ctx *x, const char *path, const struct cfg_prop *p, const void *v,
                     int len, struct cfg_cpus *dst)
{
    char what[200];
    if (len <= 0 || len % 4 || len / 4 > (int)CFG_VCPUS_MAX) {
        snprintf(what, sizeof what,
                 "expected 1..%u cells, one CPU per vCPU (%s), e.g. %s = <2 3>; got %d bytes",
                 CFG_VCPUS_MAX, p->what, p->name, len);
        return cfg_fail(x, path, p->name, what);
    }
    struct cfg_cpus c = { .n = (uint32_t)len / 4 };
    for (uint32_t i = 0; i < c.n; i++) {
        c.cpu[i] = be32((const char *)v + 4 * i);
        if (c.cpu[i] < p->min || c.cpu[i] > p->max) {
            char which[24] = "";
            if (c.n > 1)
                snprintf(which, sizeof which, "vCPU %u: ", i);
            snprintf(what, sizeof what, "%sexpected %u..%u (%s), got %u", which, p->min, p->max,
                     p->what, c.cpu[i]);
            return cfg_fail(x, path, p->name, what);
        }
        for (uint32_t j = 0; j < i; j++) {
            if (c.cpu[j] == c.cpu[i]) {
                snprintf(what, sizeof what,
                         "CPU %u named for vCPUs %u and %u: each vCPU gets a CPU of its own",
                         c.cpu[i], j, i);
                return cfg_fail(x, path, p->name, what);
            }
        }
    }
    *dst = c;
    return CFG_OK;
}

static int read_one(struct cfg_ctx *x, const char *path, const struct cfg_prop *p, const void *v,
                    int len, void *dst)
{
    char what[200];
    char *at = (char *)dst + p->offset;
    switch (p->kind) {
    case CFG_K_U32: {
        uint32_t u = 0;
        int rc = read_u32(x, path, p, v, len, &u);
        if (rc == CFG_OK)
            memcpy(at, &u, sizeof u);
        return rc;
    }
    case CFG_K_BOOL: {
        if (len != 0) {
            snprintf(what, sizeof what,
                     "expected an empty property (%s: write `%s;` for on, leave it out for off), "
                     "got %d bytes",
                     p->what, p->name, len);
            return cfg_fail(x, path, p->name, what);
        }
        bool on = true;
        memcpy(at, &on, sizeof on);
        return CFG_OK;
    }
    case CFG_K_STRING: {
        int rc = read_string(x, path, p, v, len, at, p->max + 1u);
        return rc < 0 ? rc : CFG_OK;
    }
    case CFG_K_ENUM: {
        uint32_t u = 0;
        int rc = read_enum(x, path, p, v, len, &u);
        if (rc == CFG_OK)
            memcpy(at, &u, sizeof u);
        return rc;
    }
    case CFG_K_TILE: {
        if (len != 16) {
            snprintf(what, sizeof what, "expected four cells <x y width height> (%s), got %d bytes",
                     p->what, len);
            return cfg_fail(x, path, p->name, what);
        }
        struct cfg_tile t = { be32(v), be32((const char *)v + 4), be32((const char *)v + 8),
                              be32((const char *)v + 12) };
        memcpy(at, &t, sizeof t);
        return CFG_OK;
    }
    case CFG_K_SIZE: {
        if (len != 8) {
            snprintf(what, sizeof what,
                     "expected two cells <width height> (%s), e.g. %s = <1024 768>; got %d bytes",
                     p->what, p->name, len);
            return cfg_fail(x, path, p->name, what);
        }
        uint32_t wh[2] = { be32(v), be32((const char *)v + 4) };
        for (int i = 0; i < 2; i++) {
            if (wh[i] < CFG_TILE_MIN_PX || wh[i] > CFG_WALL_MAX_PX) {
                snprintf(what, sizeof what, "%s %u: expected %u..%u pixels (%s)",
                         i ? "height" : "width", wh[i], CFG_TILE_MIN_PX, CFG_WALL_MAX_PX, p->what);
                return cfg_fail(x, path, p->name, what);
            }
        }
        memcpy(at, wh, sizeof wh);
        return CFG_OK;
    }
    case CFG_K_CPUS:
        return read_cpus(x, path, p, v, len, (struct cfg_cpus *)at);
    }
    return cfg_fail(x, path, p->name, "internal error: unknown property kind");
}

int cfg_read_props(struct cfg_ctx *x, int node, const char *path, const struct cfg_prop *props,
                   unsigned n_props, void *dst, uint64_t *seen)
{
    char what[400], shown[48];
    const char *known[64];
    uint64_t found = 0;
    int off;

    for (unsigned i = 0; i < n_props && i < 64; i++)
        known[i] = props[i].name;

    fdt_for_each_property_offset(off, x->fdt, node) {
        const char *name;
        int len;
        const void *v = fdt_getprop_by_offset(x->fdt, off, &name, &len);
        if (!v || !name)
            return cfg_fail(x, path, NULL, "unreadable property (corrupt DTB)");
        unsigned i;
        for (i = 0; i < n_props; i++)
            if (strcmp(name, props[i].name) == 0)
                break;
        if (i == n_props) {
            const char *s = cfg_suggest(name, known, n_props);
            size_t used;
            if (s) {
                snprintf(what, sizeof what, "unknown property (did you mean \"%s\"?)", s);
            } else if (n_props == 0) {
                snprintf(what, sizeof what, "unknown property (%s takes none)", path);
            } else {
                used = (size_t)snprintf(what, sizeof what, "unknown property (%s takes:", path);
                for (unsigned k = 0; k < n_props && used < sizeof what; k++)
                    used += (size_t)snprintf(what + used, sizeof what - used, " %s", props[k].name);
                if (used < sizeof what)
                    snprintf(what + used, sizeof what - used, ")");
            }
            return cfg_fail(x, path, printable(name, 64, shown), what);
        }
        if (found & (1ull << i))
            return cfg_fail(x, path, props[i].name, "property appears twice in this node");
        found |= 1ull << i;
        int rc = read_one(x, path, &props[i], v, len, dst);
        if (rc != CFG_OK)
            return rc;
    }
    /* fdt_for_each_property_offset ends on -FDT_ERR_NOTFOUND; anything else is corruption. */
    if (off != -FDT_ERR_NOTFOUND)
        return cfg_fail(x, path, NULL, "corrupt property list");

    for (unsigned i = 0; i < n_props; i++) {
        if (props[i].required && !(found & (1ull << i))) {
            snprintf(what, sizeof what, "missing (required: %s)", props[i].what);
            return cfg_fail(x, path, props[i].name, what);
        }
    }
    if (seen)
        *seen = found;
    return CFG_OK;
}
