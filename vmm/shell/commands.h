/* Handlers of the shell's commands, grouped by topic in cmd_*.c; the table is commands.c. */
#ifndef TESSERA_VMM_SHELL_COMMANDS_H
#define TESSERA_VMM_SHELL_COMMANDS_H

#include "vmm/shell/shell.h"

enum shell_status cmd_help(int argc, char **argv);
enum shell_status cmd_version(int argc, char **argv);
enum shell_status cmd_uptime(int argc, char **argv);
enum shell_status cmd_log(int argc, char **argv);
enum shell_status cmd_reboot(int argc, char **argv);
enum shell_status cmd_mem(int argc, char **argv);
enum shell_status cmd_pci(int argc, char **argv);
enum shell_status cmd_cpus(int argc, char **argv);
enum shell_status cmd_cpuid(int argc, char **argv);
enum shell_status cmd_rdmsr(int argc, char **argv);
enum shell_status cmd_vmx(int argc, char **argv);
enum shell_status cmd_config(int argc, char **argv);
enum shell_status cmd_vms(int argc, char **argv);
enum shell_status cmd_vm(int argc, char **argv);
enum shell_status cmd_console(int argc, char **argv);
enum shell_status cmd_vcpu(int argc, char **argv);
enum shell_status cmd_exits(int argc, char **argv);
enum shell_status cmd_devices(int argc, char **argv);
enum shell_status cmd_gtt(int argc, char **argv);
enum shell_status cmd_screenshot(int argc, char **argv);
enum shell_status cmd_vgpu(int argc, char **argv);
enum shell_status cmd_sched(int argc, char **argv);
enum shell_status cmd_weight(int argc, char **argv);
enum shell_status cmd_balloon(int argc, char **argv);
enum shell_status cmd_fences(int argc, char **argv);
enum shell_status cmd_stats(int argc, char **argv);
enum shell_status cmd_monitor(int argc, char **argv);

#endif
