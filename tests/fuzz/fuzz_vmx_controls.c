/* libFuzzer target for control negotiation and messages (arch/x86/vmx/pure/controls.c): any
 * capability MSR and request gives a value the MSR allows (or -1 with exactly the impossible
 * bits), and the message builder never overruns a buffer of any size. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/vmx/pure/controls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t in[26] = { 0 };
    memcpy(in, data, size < sizeof in ? size : sizeof in);
    uint64_t cap, f0, f1;
    uint32_t req, opt;
    memcpy(&cap, in, 8);
    memcpy(&req, in + 8, 4);
    memcpy(&opt, in + 12, 4);
    memcpy(&f0, in + 16, 8);
    f1 = ~f0 ^ cap;
    enum vmx_ctl_kind kind = (enum vmx_ctl_kind)(in[24] % 7); /* includes invalid kinds */
    size_t buflen = in[25] % 200;

    uint32_t must1 = (uint32_t)cap, may1 = (uint32_t)(cap >> 32), out, missing;
    int rc = vmx_ctl_negotiate(cap, req, opt, &out, &missing);
    if (must1 & ~may1) {
        check(rc == -1 && missing == (must1 & ~may1));
    } else {
        check(rc == ((req & ~may1) ? -1 : 0));
        check(missing == (req & ~may1));
        check(vmx_ctl_value_ok(cap, out));
        check((out & ~(must1 | req | opt)) == 0);
        check((out & (req | opt)) == ((req | opt) & may1));
    }

    uint64_t v = vmx_fixed_bits_apply(cap, f0, f1);
    check(vmx_fixed_bits_ok(v, f0, f1) == ((f0 & ~f1) == 0));

    for (unsigned bit = 0; bit < 34; bit++)
        check(vmx_ctl_bit_name(kind, bit) != NULL);
    check(vmx_ctl_kind_name(kind) != NULL);

    char *buf = malloc(buflen ? buflen : 1);
    if (!buf)
        abort();
    int want = vmx_ctl_describe_missing(kind, missing ^ req, buflen ? buf : NULL, buflen);
    check(want > 0);
    if (buflen)
        check(strlen(buf) == ((size_t)want < buflen ? (size_t)want : buflen - 1));
    free(buf);
    return 0;
}
