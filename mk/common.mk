# Flags and source lists shared by the hosted and freestanding builds.

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-unused-parameter
INCS := -I. -Iinclude

# Pure code: no hardware access, no inline assembly, state passed in by pointer.  It is built
# twice, freestanding into the image and hosted into tests, fuzzers and benchmarks.
PURE_DIRS := gtt sched drivers/igpu config
PURE_SRCS := $(sort $(foreach d,$(PURE_DIRS),$(shell find $(d) -name '*.c' 2>/dev/null))) \
             boot/mb2_parse.c vmm/shell/line.c vmm/shell/args.c arch/x86/page_alloc.c
PURE_SRCS := $(sort $(wildcard $(PURE_SRCS)))
