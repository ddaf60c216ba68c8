# libFuzzer targets (tests/fuzz/fuzz_<module>_*.c), built with clang, ASan and UBSan over the
# sources of their module.  `make fuzz` runs each for FUZZ_TIME seconds; `make test` runs each
# for FUZZ_SHORT seconds (7 s for each of the 15 targets: about the 110 s the short pass took
# with 11 targets of 10 s).  `make fuzz-long` runs each for FUZZ_RUNS executions, at the lowest
# CPU and I/O priority (FUZZ_NICE), one after the other: hours (docs/benchmarks.md, "Fuzzing").
# An input is a hang after FUZZ_LONG_TIMEOUT seconds of wall time there (at idle priority an
# input may wait long for the CPU).  FUZZ_LONG_CAP=<seconds> ends each target's long run earlier
# if it has not reached FUZZ_RUNS (the report says which limit ended it).
# MODULE=<module> or FUZZ_ONLY="<name> ..." picks some.

FUZZ_CC     ?= clang
FUZZ_SHORT  ?= 7
FUZZ_RUNS   ?= 10000000
FUZZ_LONG_CAP ?=
FUZZ_LONG_TIMEOUT ?= 600
FUZZ_NICE   ?= nice -n 19 $(if $(shell command -v ionice),ionice -c3)
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(WARN) $(INCS) -DTESSERA_HOSTED \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
F := $(BUILD)/fuzz
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZERS   := $(patsubst tests/fuzz/%.c,$(F)/%,$(FUZZ_SRCS))
ifneq ($(MODULE),)
FUZZERS := $(foreach t,$(FUZZERS),$(if $(filter $(MODULE),$(call module_of,$(t))),$(t)))
endif
ifneq ($(FUZZ_ONLY),)
FUZZERS := $(filter $(addprefix $(F)/,$(FUZZ_ONLY)),$(FUZZERS))
endif

# The harnesses' shared headers (tests/fuzz/*.h) are prerequisites too: a change to one (the
# oracle's attributes, the cursor) must rebuild every target, not leave old binaries in place.
define fuzz_program
$(F)/$(basename $(notdir $(1))): $(1) $(foreach m,$(call modules_of,$(1)),$(call pure_srcs,$(m))) $(wildcard tests/fuzz/*.h)
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $$(filter %.c,$$^) -lfdt -o $$@
endef
$(foreach s,$(FUZZ_SRCS),$(eval $(call fuzz_program,$(s))))

# Each fuzzer keeps its corpus under build/fuzz/corpus/<name> so later runs start where the
# last one stopped; its kept inputs in tests/fuzz/seeds/<name> (seeds, and the reproducers of
# what fuzzing found) are replayed first, every run.
fuzz: $(FUZZERS)
	tests/run-fuzz $(FUZZ_TIME) $(FUZZERS)

# What a hostile guest reaches first (its vGPU, the PPGTT shadow, the vgt blocks, the MMIO
# decoder, the command streamer and scanner, the I/O bus its BAR moves reach, the interrupt
# devices), then the rest.
FUZZ_FIRST := fuzz_vgpu_i915 fuzz_vgt_ppgtt fuzz_vgt_execlist fuzz_vgt_regs fuzz_vmx_mmio_decode \
              fuzz_igpu_cs fuzz_igpu_scanner fuzz_io_bus fuzz_vdev_guest_ops fuzz_vmx_ept fuzz_gtt_ops
FUZZ_ORDER := $(foreach n,$(FUZZ_FIRST),$(filter $(F)/$(n),$(FUZZERS)))
fuzz-long: $(FUZZERS)
	FUZZ_TIMEOUT=$(FUZZ_LONG_TIMEOUT) $(FUZZ_NICE) tests/run-fuzz --runs $(FUZZ_RUNS) $(if $(FUZZ_LONG_CAP),--max-time $(FUZZ_LONG_CAP)) $(FUZZ_ORDER) $(filter-out $(FUZZ_ORDER),$(FUZZERS))
