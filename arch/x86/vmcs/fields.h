/* All VMCS field encodings, one header per table of the Intel SDM Vol. 3C Appendix B, and the
 * name table the VMCS dump uses (names.c). */
#ifndef TESSERA_ARCH_X86_VMCS_FIELDS_H
#define TESSERA_ARCH_X86_VMCS_FIELDS_H

#include "arch/x86/vmcs/ctl16.h"
#include "arch/x86/vmcs/guest16.h"
#include "arch/x86/vmcs/host16.h"
#include "arch/x86/vmcs/ctl64.h"
#include "arch/x86/vmcs/ro64.h"
#include "arch/x86/vmcs/guest64.h"
#include "arch/x86/vmcs/host64.h"
#include "arch/x86/vmcs/ctl32.h"
#include "arch/x86/vmcs/ro32.h"
#include "arch/x86/vmcs/guest32.h"
#include "arch/x86/vmcs/host32.h"
#include "arch/x86/vmcs/ctlnat.h"
#include "arch/x86/vmcs/ronat.h"
#include "arch/x86/vmcs/guestnat.h"
#include "arch/x86/vmcs/hostnat.h"

struct vmcs_field_name {
    unsigned encoding;
    const char *name;
};
extern const struct vmcs_field_name vmcs_field_names[];
extern const unsigned vmcs_field_count;

#endif
