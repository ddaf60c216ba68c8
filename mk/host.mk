# Hosted builds: unit tests (tests/unit), host integration tests (tests/host) and benchmarks
# (bench/).  Every test_*.c / bench_*.c file is one program.

HOST_CC      ?= gcc
HOST_CFLAGS  := -std=gnu11 -g -O1 $(WARN) $(INCS) -DTESSERA_HOSTED \
                -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
BENCH_CFLAGS := -std=gnu11 -O2 -g $(WARN) $(INCS) -DTESSERA_HOSTED
# Host tests of code that CPUs run at once (tests/host/test_*_race.c) are built with clang's
# ThreadSanitizer (compiler-rt, which make check installs), on threads of their own.
RACE_CC      ?= clang
RACE_CFLAGS  := -std=gnu11 -g -O1 $(WARN) $(INCS) -DTESSERA_HOSTED -pthread \
                -fsanitize=thread -fno-omit-frame-pointer
HOST_LIBS    := -lcmocka -lfdt

H := $(BUILD)/host

$(H)/t/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"
	@$(HOST_CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
$(H)/b/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  BENCHCC $<"
	@$(HOST_CC) $(BENCH_CFLAGS) -MMD -MP -c $< -o $@
$(H)/r/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  RACECC  $<"
	@$(RACE_CC) $(RACE_CFLAGS) -MMD -MP -c $< -o $@

# One archive per pure module and flavour (t = tests with sanitizers, b = optimised benchmarks).
define module_archives
$(H)/t/lib$(1).a: $(patsubst %.c,$(H)/t/%.o,$(call pure_srcs,$(1)))
	mkdir -p $$(dir $$@) && rm -f $$@ && printf '!<arch>\n' >$$@ $$(if $$^,&& ar rs $$@ $$^)
$(H)/b/lib$(1).a: $(patsubst %.c,$(H)/b/%.o,$(call pure_srcs,$(1)))
	mkdir -p $$(dir $$@) && rm -f $$@ && printf '!<arch>\n' >$$@ $$(if $$^,&& ar rs $$@ $$^)
$(H)/r/lib$(1).a: $(patsubst %.c,$(H)/r/%.o,$(call pure_srcs,$(1)))
	mkdir -p $$(dir $$@) && rm -f $$@ && printf '!<arch>\n' >$$@ $$(if $$^,&& ar rs $$@ $$^)
endef
$(foreach m,$(PURE_MODULES),$(eval $(call module_archives,$(m))))

# A program links the archives of its module(s); -Wl,--start-group lets modules call each other.
define host_program
$(H)/$(basename $(1)): $(1) $(foreach m,$(call modules_of,$(1)),$(H)/$(2)/lib$(m).a)
	@mkdir -p $$(dir $$@)
	@echo "  LINK    $$@"
	@$(4) $(3) -MMD -MP $$< -Wl,--start-group $$(filter %.a,$$^) -Wl,--end-group $(HOST_LIBS) -o $$@
endef
TEST_SRCS  := $(sort $(wildcard tests/unit/test_*.c tests/host/test_*.c))
RACE_SRCS  := $(filter %_race.c,$(TEST_SRCS))
BENCH_SRCS := $(sort $(wildcard bench/bench_*.c))
$(foreach s,$(filter-out $(RACE_SRCS),$(TEST_SRCS)),$(eval $(call host_program,$(s),t,$(HOST_CFLAGS),$(HOST_CC))))
$(foreach s,$(RACE_SRCS),$(eval $(call host_program,$(s),r,$(RACE_CFLAGS),$(RACE_CC))))
$(foreach s,$(BENCH_SRCS),$(eval $(call host_program,$(s),b,$(BENCH_CFLAGS),$(HOST_CC))))
UNIT_TESTS := $(patsubst %.c,$(H)/%,$(TEST_SRCS))
BENCHES    := $(patsubst %.c,$(H)/%,$(BENCH_SRCS))

# Runs every unit and host test program; tests/run-unit sums cmocka's results into one line.
# `make unit MODULE=gtt` runs only one module's tests.
ifneq ($(MODULE),)
UNIT_TESTS := $(foreach t,$(UNIT_TESTS),$(if $(filter $(MODULE),$(call module_of,$(t))),$(t)))
BENCHES    := $(foreach t,$(BENCHES),$(if $(filter $(MODULE),$(call module_of,$(t))),$(t)))
endif
unit: $(UNIT_TESTS)
	tests/run-unit $(UNIT_TESTS)

bench: $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done

-include $(shell find $(H) -name '*.d' 2>/dev/null)
