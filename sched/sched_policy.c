/* sched_policy.c — the policy table: names as the vendor configuration spells them. */
#include "sched/sched_internal.h"

#include <string.h>

static const struct sched_policy_ops *const policies[SCHED_POLICY_COUNT] = {
    [SCHED_POLICY_FAIR] = &sched_policy_fair_ops,
    [SCHED_POLICY_RR] = &sched_policy_rr_ops,
    [SCHED_POLICY_CREDIT] = &sched_policy_credit_ops,
    [SCHED_POLICY_LAS] = &sched_policy_las_ops,
};

const struct sched_policy_ops *sched_policy_ops_of(enum sched_policy p)
{
    return (unsigned)p < SCHED_POLICY_COUNT ? policies[p] : NULL;
}

const char *sched_policy_name(enum sched_policy p)
{
    const struct sched_policy_ops *ops = sched_policy_ops_of(p);
    return ops ? ops->name : NULL;
}

int sched_policy_from_name(const char *name, enum sched_policy *out)
{
    if (!name || !out)
        return SCHED_EINVAL;
    for (unsigned p = 0; p < SCHED_POLICY_COUNT; p++) {
        if (strcmp(name, policies[p]->name) == 0) {
            *out = (enum sched_policy)p;
            return SCHED_OK;
        }
    }
    return SCHED_EINVAL;
}

uint64_t sched_virtual_time(struct sched *s)
{
    return s && s->cfg.policy == SCHED_POLICY_FAIR ? sched_fair_gvt(s) : 0;
}
