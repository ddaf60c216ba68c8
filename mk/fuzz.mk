# libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang, ASan and UBSan.  `make fuzz` runs
# each for FUZZ_TIME seconds; `make test` runs each for FUZZ_SHORT seconds.

FUZZ_CC     ?= clang
FUZZ_SHORT  ?= 10
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(WARN) $(INCS) -DTESSERA_HOSTED \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
F := $(BUILD)/fuzz
FUZZERS := $(patsubst tests/fuzz/%.c,$(F)/%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

$(F)/%: tests/fuzz/%.c $(PURE_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(PURE_SRCS) -lfdt -o $@

# Each fuzzer keeps its corpus under build/fuzz/corpus/<name> so later runs start where the
# last one stopped; seeds in tests/fuzz/seeds/<name> (if any) are read first.
fuzz: $(FUZZERS)
	tests/run-fuzz $(FUZZ_TIME) $(FUZZERS)
