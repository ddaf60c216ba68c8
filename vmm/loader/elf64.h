/* The ELF-64 structures the guest loader reads (System V ABI, "ELF-64 Object File Format"
 * version 1.5: §3 file header, §5 program header). */
#ifndef TESSERA_VMM_ELF64_H
#define TESSERA_VMM_ELF64_H

#include <stdint.h>

#define ELF_MAGIC   "\177ELF"
#define ELFCLASS64  2
#define ELFDATA2LSB 1
#define ET_EXEC     2
#define EM_X86_64   62
#define PT_LOAD     1

struct elf64_ehdr {
    unsigned char e_ident[16];
    uint16_t e_type, e_machine;
    uint32_t e_version;
    uint64_t e_entry, e_phoff, e_shoff;
    uint32_t e_flags;
    uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
};

struct elf64_phdr {
    uint32_t p_type, p_flags;
    uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

#endif
