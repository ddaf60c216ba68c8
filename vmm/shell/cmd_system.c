/* Shell commands about the hypervisor itself: help, version, uptime, log, reboot. */
#include "vmm/shell/commands.h"

#include "arch/x86/reboot.h"
#include "arch/x86/timer.h"
#include "vmm/console.h"
#include "vmm/log.h"
#include "vmm/platform.h"
#include "vmm/version.h"

#include <stdio.h>

enum shell_status cmd_help(int argc, char **argv)
{
    for (unsigned i = 0; i < shell_command_count; i++) {
        const struct shell_command *c = &shell_commands[i];
        printf("  %-8s %-26s %s\n", c->name, c->args, c->help);
    }
    return SHELL_OK;
}

enum shell_status cmd_version(int argc, char **argv)
{
    printf("Tessera %s (built %s with gcc %s)\n", TESSERA_VERSION, TESSERA_BUILD_DATE, __VERSION__);
    return SHELL_OK;
}

enum shell_status cmd_uptime(int argc, char **argv)
{
    uint64_t us = timer_uptime_us();
    printf(
        "up %llu.%03llu s; TSC %llu.%03llu MHz (from %s); %llu ticks at %u Hz; boot to prompt %llu.%03llu s\n",
        (unsigned long long)(us / 1000000), (unsigned long long)(us / 1000 % 1000),
        (unsigned long long)(timer_tsc_hz() / 1000000),
        (unsigned long long)(timer_tsc_hz() / 1000 % 1000), timer_tsc_source(),
        (unsigned long long)timer_ticks(), (unsigned)TIMER_TICK_HZ,
        (unsigned long long)(platform.boot_done_us / 1000000),
        (unsigned long long)(platform.boot_done_us / 1000 % 1000));
    return SHELL_OK;
}

static void print_line(const char *text, void *ctx)
{
    printf("%s\n", text);
}

enum shell_status cmd_log(int argc, char **argv)
{
    if (argc == 2) {
        int lvl = log_level_from_name(argv[1]);
        if (lvl < 0)
            return SHELL_USAGE;
        log_set_level((enum log_level)lvl);
        printf("console log level: %s\n", log_level_name((enum log_level)lvl));
        return SHELL_OK;
    }
    log_replay(print_line, NULL);
    printf("console log level: %s\n", log_level_name(log_get_level()));
    return SHELL_OK;
}

enum shell_status cmd_reboot(int argc, char **argv)
{
    printf("rebooting\n");
    fflush(stdout);
    console_flush();
    machine_reboot();
}
