#include "vmm/config_boot.h"

#include "config/blob.h"
#include "vmm/log.h"

#include <stdio.h>
#include <string.h>

extern const unsigned char builtin_config_blob[], builtin_config_blob_end[];

struct active_config active_config;

static const struct boot_module *config_module(const struct boot_info *bi)
{
    for (unsigned i = 0; i < bi->n_modules; i++)
        if (!strcmp(bi->modules[i].tag, CFG_RESERVED_IMAGE_TAG))
            return &bi->modules[i];
    return NULL;
}

bool config_boot(const struct boot_info *bi)
{
    struct active_config *a = &active_config;
    const void *blob = builtin_config_blob;
    /* Two linker symbols are two objects to C: their distance is taken as addresses. */
    size_t len = (size_t)((uintptr_t)builtin_config_blob_end - (uintptr_t)builtin_config_blob);
    const struct boot_module *m = config_module(bi);
    if (m) {
        blob = (const void *)(uintptr_t)m->start;
        len = (size_t)(m->end - m->start);
        snprintf(a->source, sizeof a->source, "module %s at %#llx, %zu bytes",
                 CFG_RESERVED_IMAGE_TAG, (unsigned long long)m->start, len);
    } else {
        snprintf(a->source, sizeof a->source, "built-in, %zu bytes", len);
    }

    int rc = cfg_blob_load(blob, len, &a->cfg, a->error, sizeof a->error);
    a->valid = rc == CFG_OK;
    if (!a->valid) {
        log_error("config (%s) refused: %s", a->source, a->error);
        log_error("guests not started: the configuration is not valid (shell 'config' shows why)");
        return false;
    }
    log_info("config (%s): %u guests, scheduler %s, CRC-32 %08x", a->source, a->cfg.n_guests,
             cfg_sched_policy_name(a->cfg.scheduler.policy), a->cfg.dtb_crc32);
    for (unsigned i = 0; i < a->cfg.n_guests; i++) {
        char line[CFG_CMDLINE_MAX + 200]; /* a guest line holds its whole command line */
        cfg_guest_summary(&a->cfg, i, line, sizeof line);
        log_info("%s", line);
    }
    return true;
}
