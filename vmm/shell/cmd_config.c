/* Shell command `config`: the active vendor configuration, or why it was refused. */
#include "vmm/shell/commands.h"

#include "vmm/config_boot.h"

#include <stdio.h>

static void print_line(void *ctx, const char *line)
{
    printf("%s\n", line);
}

enum shell_status cmd_config(int argc, char **argv)
{
    const struct active_config *a = &active_config;
    if (!a->valid) {
        printf("configuration (%s): REFUSED\n  %s\nguests are not started\n", a->source, a->error);
        return SHELL_OK;
    }
    cfg_format(&a->cfg, a->source, print_line, NULL);
    return SHELL_OK;
}
