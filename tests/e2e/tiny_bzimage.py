"""Tiny bzImages for the Linux-platform scenario: a valid boot-protocol 2.15 setup header
(Linux Documentation/x86/boot.rst, the offsets boot/linux/bzimage.h names) around a few bytes of
64-bit code at the 64-bit entry (protected-mode code + 0x200), so the loader, reset, power-off
and empty-bus paths can be driven in seconds instead of booting a real kernel."""
import struct

SETUP_SECTS = 4
LOAD = 0x1000000            # pref_address: where the loader puts the protected-mode code
ENTRY = LOAD + 0x200
INIT_SIZE = 0x100000        # the guest needs RAM up to LOAD + INIT_SIZE = 17 MiB
COM1 = 0x3F8


def image(code, version=0x020F, pm_bytes=0x1000, init_size=INIT_SIZE):
    pm = bytearray(pm_bytes)
    pm[0x200:0x200 + len(code)] = code
    b = bytearray((SETUP_SECTS + 1) * 512) + pm

    def put(off, fmt, v):
        struct.pack_into("<" + fmt, b, off, v)
    put(0x1F1, "B", SETUP_SECTS)
    put(0x1F4, "I", pm_bytes // 16)         # syssize
    put(0x1FE, "H", 0xAA55)                 # boot_flag
    b[0x200], b[0x201] = 0xEB, 0x6A         # jump: the header ends at 0x26C
    put(0x202, "I", 0x53726448)             # "HdrS"
    put(0x206, "H", version)
    put(0x211, "B", 0x01)                   # loadflags: LOADED_HIGH
    put(0x22C, "I", 0x7FFFFFFF)             # initrd_addr_max
    put(0x230, "I", 0x200000)               # kernel_alignment
    put(0x234, "B", 1)                      # relocatable_kernel
    put(0x236, "H", 0x0001)                 # xloadflags: XLF_KERNEL_64
    put(0x238, "I", 2047)                   # cmdline_size
    put(0x248, "I", 0x100)                  # payload_offset
    put(0x24C, "I", 0x100)                  # payload_length
    put(0x258, "Q", LOAD)                   # pref_address
    put(0x260, "I", init_size)              # init_size
    return bytes(b)


def say(text):
    """mov dx, COM1; mov al, c; out dx, al for each byte."""
    return b"".join(b"\x66\xba" + struct.pack("<H", COM1) + b"\xb0" + bytes([c]) + b"\xee" for c in text)


CLI_HLT = b"\xfa\xf4"


def spin(n):
    """mov ecx, n; 1: dec ecx; jnz 1b -- about 2n instructions, a pause between boots."""
    return b"\xb9" + struct.pack("<I", n) + b"\xff\xc9\x75\xfc"


PAUSE = spin(40000000)          # about 1.6 s at Bochs's 50 M instructions per second
RESET_CF9 = b"\x66\xba\xf9\x0c\xb0\x06\xee\xf4"        # mov dx, 0xCF9; mov al, 6; out dx, al; hlt
RESET_KBD = b"\xb0\xfe\xe6\x64\xf4"                    # mov al, 0xFE; out 0x64, al; hlt
UD2 = b"\x0f\x0b"                                       # no IDT: #UD, #DF, triple fault
# mov rbx, 0xFED00000; mov eax, [rbx]; mov dx, COM1; out dx, al; mov [rbx], eax
UNCLAIMED_RW = b"\x48\xbb\x00\x00\xd0\xfe\x00\x00\x00\x00\x8b\x03\x66\xba\xf8\x03\xee\x89\x03"


def high_half_halt(prefix=b""):
    """prefix, then PML4[511] = PML4[0] (the identity tables at 0x3000 map the low 4 GiB again at
    0xFFFFFF8000000000) and a jump to cli; hlt through that alias: a halt where a kernel halts."""
    alias = 0xFFFFFF8000000000
    body = prefix + b"\x48\x8b\x04\x25\x00\x30\x00\x00"     # mov rax, [0x3000]
    body += b"\x48\x89\x04\x25\xf8\x3f\x00\x00"            # mov [0x3FF8], rax
    target = ENTRY + len(body) + 10 + 2                     # after mov rax, imm64 and jmp rax
    body += b"\x48\xb8" + struct.pack("<Q", alias + target) + b"\xff\xe0"
    return body + CLI_HLT, alias + target + 1              # RIP of the HLT


# The guest's own KERNEL_GS_BASE and SYSCALL MSRs survive the other guests' time slices
# (vmm/vcpu/guest_msr.c): it sets KERNEL_GS_BASE, spins through many slices, SWAPGS, checks
# GS_BASE ("gs ok" / "gs bad"), then sets EFER.SCE, LSTAR and STAR, spins again and executes
# SYSCALL, whose target prints "syscall ok"; both end in cli; hlt.  Assembled with GNU as
# (`as --64`, `objcopy -O binary -j .text`) from:
#   .intel_syntax noprefix
#   .code64
#   .macro say s
#       lea rsi, [rip + \s]
#       call puts
#   .endm
#   start:
#       mov ecx, 0xC0000102        # KERNEL_GS_BASE
#       mov eax, 0x12345678
#       xor edx, edx
#       wrmsr
#       mov ecx, 40000000          # pause: many time slices of the other guests
#   1:  dec ecx
#       jnz 1b
#       swapgs
#       mov ecx, 0xC0000101        # GS_BASE
#       rdmsr
#       cmp eax, 0x12345678
#       jne bad
#       say gsok
#       mov ecx, 0xC0000080        # EFER.SCE
#       rdmsr
#       or eax, 1
#       wrmsr
#       mov ecx, 0xC0000082        # LSTAR
#       lea rax, [rip + handler]
#       xor edx, edx
#       wrmsr
#       mov ecx, 0xC0000081        # STAR: SYSCALL CS = 0x10, SS = 0x18
#       xor eax, eax
#       mov edx, 0x10
#       wrmsr
#       mov ecx, 40000000
#   2:  dec ecx
#       jnz 2b
#       syscall
#   bad:
#       say gsbad
#       cli
#       hlt
#   handler:
#       say sysok
#       cli
#       hlt
#   puts:                          # rsi: NUL-terminated string to COM1
#       mov dx, 0x3F8
#   3:  lodsb
#       test al, al
#       jz 4f
#       out dx, al
#       jmp 3b
#   4:  ret
#   gsok:  .asciz "gs ok\n"
#   gsbad: .asciz "gs bad\n"
#   sysok: .asciz "syscall ok\n"
SWAPGS_SYSCALL = bytes.fromhex(
    "b9020100c0b87856341231d20f30b9005a6202ffc975fc0f01f8b9010100c00f323d785634127541488d3563000000e8"
    "51000000b9800000c00f3283c8010f30b9820000c0488d052b00000031d20f30b9810000c031c0ba100000000f30b900"
    "5a6202ffc975fc0f05488d3529000000e810000000faf4488d3523000000e802000000faf466baf803ac84c07403eeeb"
    "f8c36773206f6b0a006773206261640a0073797363616c6c206f6b0a00"
)
