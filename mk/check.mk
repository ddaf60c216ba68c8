# The fast checks, `make check`: each step is also a target of its own (docs/architecture.md,
# "Checks").  They need no emulator and take a few minutes; `make test` runs them first.

CK := $(BUILD)/check

# --- Header self-containment: every header compiles on its own (included twice, so a missing
#     include guard shows too), with the flags of the build it belongs to.  Every header of the
#     hypervisor's folders goes into the image, so all of them are compiled with the image's
#     freestanding flags against newlib; the pure modules' headers are compiled hosted as well
#     (tests and benchmarks include them), the guests' with the guests' flags and the Linux
#     guest's programs' (guests/linux/) with the build machine's.  One stamp per header and
#     flavour; gcc's dependency lists re-check a header when anything it includes changes.
CHECK_HEADER_DIRS := arch boot config gtt sched drivers vmm include lib
check_headers_in   = $(if $(1),$(sort $(shell find $(1) -name '*.h' 2>/dev/null)))
CHECK_IMAGE_HEADERS  := $(call check_headers_in,$(CHECK_HEADER_DIRS))
CHECK_PURE_HEADERS   := $(sort $(foreach m,$(PURE_MODULES), \
                          $(filter-out $(patsubst %.c,%.h,$(pure_skip_$(m))), \
                                       $(call check_headers_in,$(pure_dirs_$(m)))) \
                          $(wildcard $(patsubst %.c,%.h,$(pure_srcs_$(m))))))
CHECK_LINUX_HEADERS  := $(call check_headers_in,guests/linux)
CHECK_GUEST_HEADERS  := $(filter-out $(CHECK_LINUX_HEADERS),$(call check_headers_in,guests))
CHECK_LINUX_CFLAGS   := -std=gnu11 $(WARN) -I.
CHECK_HEADER_STAMPS  := $(patsubst %,$(CK)/h/image/%.ok,$(CHECK_IMAGE_HEADERS)) \
                        $(patsubst %,$(CK)/h/hosted/%.ok,$(CHECK_PURE_HEADERS)) \
                        $(patsubst %,$(CK)/h/guest/%.ok,$(CHECK_GUEST_HEADERS)) \
                        $(patsubst %,$(CK)/h/linux/%.ok,$(CHECK_LINUX_HEADERS))
CHECK_FLAG_FILES     := mk/common.mk mk/image.mk mk/host.mk mk/guests.mk mk/check.mk

# $(1): flavour, $(2): compiler flags.  The generated C file includes only the header.
define check_header_rule
$(CK)/h/$(1)/%.ok: % $(CHECK_FLAG_FILES) | $(NEWLIB_LIBC) $(FDT_HEADERS)
	@mkdir -p $$(dir $$@)
	@printf '#include "%s"\n#include "%s"\n' $$< $$< | \
	 gcc $(2) -fsyntax-only -MMD -MP -MF $$@.d -MT $$@ -x c - || \
	 { echo "  $$<: does not compile on its own with the $(1) flags"; exit 1; }
	@touch $$@
endef
$(eval $(call check_header_rule,image,$(IMAGE_CFLAGS)))
$(eval $(call check_header_rule,hosted,$(HOST_CFLAGS)))
$(eval $(call check_header_rule,guest,$(GUEST_CFLAGS)))
$(eval $(call check_header_rule,linux,$(CHECK_LINUX_CFLAGS)))

check-headers: $(CHECK_HEADER_STAMPS)
	@echo "headers: $(words $(CHECK_IMAGE_HEADERS)) compile on their own with the image's flags," \
	      "$(words $(CHECK_PURE_HEADERS)) of them (the pure modules') hosted as well," \
	      "$(words $(CHECK_GUEST_HEADERS) $(CHECK_LINUX_HEADERS)) guest headers with the guests' flags"

# --- Include rules: the rooms table of docs/architecture.md.
check-includes:
	@tools/check-includes

# --- Format: .clang-format over every C file (tools/format applies it).
check-format:
	@tools/format --check

# --- Parameter names: a header's declaration and the definition name parameters alike.
check-param-names:
	@tools/check-param-names

# --- Static analysis: cppcheck over every C file of the project, each with the -D/-I flags of
#     its build (the pure modules' hosted ones; the image's, the guests' and the Linux
#     programs' for theirs; tests, benchmarks and tools hosted).  A C file that is in none of
#     these lists is an error, so a new folder cannot slip past the analyzer.
ANALYZE_PURE   := $(PURE_SRCS)
ANALYZE_IMAGE  := $(filter-out $(PURE_SRCS),$(filter %.c,$(IMAGE_SRCS)))
ANALYZE_LINUX  := $(sort $(shell find guests/linux -name '*.c' 2>/dev/null))
ANALYZE_GUEST  := $(filter-out $(PURE_SRCS) $(ANALYZE_LINUX),$(sort $(filter %.c,$(GUEST_LIB_SRCS)) \
                                                                    $(wildcard guests/*/*.c)))
ANALYZE_HOSTED := $(sort $(wildcard tests/unit/*.c tests/host/*.c tests/fuzz/*.c bench/*.c tools/*.c))
ANALYZE_ALL    := $(ANALYZE_PURE) $(ANALYZE_IMAGE) $(ANALYZE_LINUX) $(ANALYZE_GUEST) $(ANALYZE_HOSTED)
ANALYZE_MISSED := $(filter-out $(ANALYZE_ALL),$(shell find . \( -path ./$(BUILD) -o -path ./.git \) \
                                                      -prune -o -name '*.c' -print | sed 's|^\./||'))

check-analyze:
	@$(if $(ANALYZE_MISSED),echo "analyze: in no build that mk/check.mk knows: $(ANALYZE_MISSED)"; exit 1)
	@tools/analyze --out $(CK)/analyze \
	   --flags "$(filter -D% -I%,$(HOST_CFLAGS))" $(ANALYZE_PURE) $(ANALYZE_HOSTED) \
	   --flags "$(filter -D% -I%,$(IMAGE_CFLAGS))" $(ANALYZE_IMAGE) \
	   --flags "$(filter -D% -I%,$(GUEST_CFLAGS))" $(ANALYZE_GUEST) \
	   --flags "$(filter -D% -I%,$(CHECK_LINUX_CFLAGS))" $(ANALYZE_LINUX)

# --- The checkers' own tests: fixtures in a temporary folder, not the tree (tests/check/run).
check-tests:
	@tests/check/run

-include $(shell find $(CK)/h -name '*.d' 2>/dev/null)
