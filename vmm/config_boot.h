/* The active vendor configuration: found (GRUB module tagged tessera-config, else the one built
 * into the image), checked with the same checker the build ran (config/), and kept for the rest
 * of the hypervisor and the shell's `config` command. */
#ifndef TESSERA_VMM_CONFIG_BOOT_H
#define TESSERA_VMM_CONFIG_BOOT_H

#include <stdbool.h>

#include "boot/boot_info.h"
#include "config/config.h"

struct active_config {
    struct cfg cfg;
    bool valid;      /* false: guests are not started, `error` says why */
    char source[96]; /* "built-in" or "module tessera-config at 0x..." */
    char error[240];
};

extern struct active_config active_config;

/* Loads and checks the configuration, logging one line per guest or the reason it was refused.
 * Returns active_config.valid. */
bool config_boot(const struct boot_info *bi);

#endif
