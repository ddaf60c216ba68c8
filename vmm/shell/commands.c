/* The command table: the one place a command is named, described and bound to its handler.
 * Output formats are documented in docs/operator-guide.md; tests and tools read them. */
#include "vmm/shell/commands.h"

const struct shell_command shell_commands[] = {
    { "help",    "",                "list the commands",                          0, 0, cmd_help },
    { "version", "",                "Tessera version and build",                  0, 0, cmd_version },
    { "uptime",  "",                "time since boot and the clock source",       0, 0, cmd_uptime },
    { "mem",     "",                "memory map and page allocator use",          0, 0, cmd_mem },
    { "pci",     "",                "PCI functions with ids, class and BARs",     0, 0, cmd_pci },
    { "cpus",    "",                "processors: index, APIC id, state, what runs there", 0, 0, cmd_cpus },
    { "cpuid",   "<leaf> [subleaf]", "run CPUID and print EAX..EDX",              1, 2, cmd_cpuid },
    { "rdmsr",   "<msr>",           "read a model-specific register",             1, 1, cmd_rdmsr },
    { "vmx",     "",                "VT-x capabilities read at boot",             0, 0, cmd_vmx },
    { "vms",     "",                "guests: id, name, state, RAM, exits, last exit, uptime", 0, 0, cmd_vms },
    { "vm",      "start|stop|reset <vm>", "start, stop or restart a guest (id or name)", 2, 2, cmd_vm },
    { "console", "<vm> [time]",     "attach to a guest's console (Ctrl-] returns); time: stamp its lines", 1, 2, cmd_console },
    { "vcpu",    "<vm>",            "a guest's registers and key VMCS fields",     1, 1, cmd_vcpu },
    { "exits",   "[vm]",            "VM exits by reason: one guest's, or every guest's one line per reason", 0, 1, cmd_exits },
    { "devices", "[vm]",            "a guest's I/O bus: ports, MMIO regions and where they are, each device's counters", 0, 1, cmd_devices },
    { "gtt",     "",                "the graphics-memory map: host area, fence pool, guest windows, slots", 0, 0, cmd_gtt },
    { "vgpu",    "[vm]",            "vGPUs: ranges, workloads, rejections with reasons, resets", 0, 1, cmd_vgpu },
    { "sched",   "[reset]",         "render scheduler: policy, weights, GPU shares vs ideal, MMR, switches, copying", 0, 1, cmd_sched },
    { "stats",   "",                "where the CPU went since boot: guests, rendering, copying, composing", 0, 0, cmd_stats },
    { "weight",  "<vm> <w>",        "change a guest's render weight (1..1000)",   2, 2, cmd_weight },
    { "balloon", "[<vm> +N|-N]",    "high-GM slots per guest and the balloon controller; grow or shrink one", 0, 2, cmd_balloon },
    { "fences",  "",                "the fence pool and which guest fences use it", 0, 0, cmd_fences },
    { "monitor", "<vm> on|off|<w>x<h>[@<hz>]", "plug in, unplug or re-mode a guest's virtual monitor (a hotplug it sees)", 2, 2, cmd_monitor },
    { "screenshot", "[vm] [crc]",   "the kiosk wall, or a guest's own framebuffer, as text (docs/display.md)", 0, 2, cmd_screenshot },
    { "config",  "",                "the active vendor configuration, or why it was refused", 0, 0, cmd_config },
    { "log",     "[error|warn|info|debug]", "show recent log lines, or set the console level", 0, 1, cmd_log },
    { "reboot",  "",                "reset the machine",                          0, 0, cmd_reboot },
};

const unsigned shell_command_count = sizeof shell_commands / sizeof shell_commands[0];
