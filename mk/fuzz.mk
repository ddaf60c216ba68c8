# libFuzzer targets (tests/fuzz/fuzz_<module>_*.c), built with clang, ASan and UBSan over the
# sources of their module.  `make fuzz` runs each for FUZZ_TIME seconds; `make test` runs each
# for FUZZ_SHORT seconds.

FUZZ_CC     ?= clang
FUZZ_SHORT  ?= 10
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(WARN) $(INCS) -DTESSERA_HOSTED \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
F := $(BUILD)/fuzz
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZERS   := $(patsubst tests/fuzz/%.c,$(F)/%,$(FUZZ_SRCS))
ifneq ($(MODULE),)
FUZZERS := $(foreach t,$(FUZZERS),$(if $(filter $(MODULE),$(call module_of,$(t))),$(t)))
endif

define fuzz_program
$(F)/$(basename $(notdir $(1))): $(1) $(foreach m,$(call modules_of,$(1)),$(call pure_srcs,$(m)))
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $$(filter %.c,$$^) -lfdt -o $$@
endef
$(foreach s,$(FUZZ_SRCS),$(eval $(call fuzz_program,$(s))))

# Each fuzzer keeps its corpus under build/fuzz/corpus/<name> so later runs start where the
# last one stopped; seeds in tests/fuzz/seeds/<name> (if any) are read first.
fuzz: $(FUZZERS)
	tests/run-fuzz $(FUZZ_TIME) $(FUZZERS)
