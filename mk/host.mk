# Hosted builds: unit tests (tests/unit), host integration tests (tests/host) and benchmarks
# (bench/).  Every test_*.c / bench_*.c file is one program linked against the pure code.

HOST_CC     ?= gcc
HOST_CFLAGS := -std=gnu11 -g -O1 $(WARN) $(INCS) -DTESSERA_HOSTED \
               -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
HOST_LIBS   := -lcmocka -lfdt
BENCH_CFLAGS := -std=gnu11 -O2 -g $(WARN) $(INCS) -DTESSERA_HOSTED

H := $(BUILD)/host
HOST_PURE_OBJS  := $(PURE_SRCS:%.c=$(H)/t/%.o)
BENCH_PURE_OBJS := $(PURE_SRCS:%.c=$(H)/b/%.o)

UNIT_TESTS  := $(patsubst %.c,$(H)/%,$(sort $(wildcard tests/unit/test_*.c tests/host/test_*.c)))
BENCHES     := $(patsubst %.c,$(H)/%,$(sort $(wildcard bench/bench_*.c)))

$(H)/t/%.o: %.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
$(H)/b/%.o: %.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -MMD -MP -c $< -o $@

$(H)/libpure-test.a: $(HOST_PURE_OBJS)
	rm -f $@ && ar rcs $@ $^
$(H)/libpure-bench.a: $(BENCH_PURE_OBJS)
	rm -f $@ && ar rcs $@ $^

$(H)/tests/%: tests/%.c $(H)/libpure-test.a
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -MMD -MP $< $(H)/libpure-test.a $(HOST_LIBS) -o $@
$(H)/bench/%: bench/%.c $(H)/libpure-bench.a
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -MMD -MP $< $(H)/libpure-bench.a -lfdt -o $@

.PHONY: unit-build
unit-build: $(UNIT_TESTS)

# Runs every unit and host test program; tests/run-unit sums cmocka's results into one line.
unit: $(UNIT_TESTS)
	tests/run-unit $(UNIT_TESTS)

bench: $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done

-include $(shell find $(H) -name '*.d' 2>/dev/null)
