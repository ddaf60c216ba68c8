/* Helpers shared by the hardware backend's files (not for users of igpu_hw.h). */
#ifndef TESSERA_DRIVERS_IGPU_HW_IGPU_HW_INTERNAL_H
#define TESSERA_DRIVERS_IGPU_HW_IGPU_HW_INTERNAL_H

#include "drivers/igpu/hw/igpu_hw.h"

uint32_t igpu_hw_rd(struct igpu_hw *hw, uint32_t off);
void igpu_hw_wr(struct igpu_hw *hw, uint32_t off, uint32_t v);
void igpu_hw_delay(struct igpu_hw *hw, unsigned us);
/* Polls reg (1 us apart, at most us polls and hw->poll_limit) until (reg & mask) == want. */
int igpu_hw_wait(struct igpu_hw *hw, uint32_t reg, uint32_t mask, uint32_t want, unsigned us);
/* One line through mmio.log, if there is one. */
void igpu_hw_log(struct igpu_hw *hw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* i915 fw_domain_reset() on every domain. */
void igpu_hw_forcewake_reset(struct igpu_hw *hw);

#endif
