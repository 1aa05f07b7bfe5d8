# make freestanding: the core built with -ffreestanding, no libc headers
# (-nostdinc: only the compiler's own stddef.h/stdint.h/stdbool.h) and a
# static arena instead of malloc, linked into a program with no C library
# at all (-nostdlib), which then runs and prints a histogram.
FS_BUILD  := $(BUILD)/freestanding
FS_INC    := $(shell $(CC) -print-file-name=include)
FS_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -ffreestanding -fno-builtin \
	-fno-stack-protector -fno-pie -nostdinc -isystem $(FS_INC) \
	-DHIST_FREESTANDING -Iinclude -Isrc
FS_SRC    := $(CORE_SRC) examples/freestanding/bare_host.c
FS_OBJ    := $(FS_SRC:%.c=$(FS_BUILD)/%.o)

$(FS_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(FS_CFLAGS) -MMD -MP -c $< -o $@

$(FS_BUILD)/bare_host: $(FS_OBJ)
	$(CC) -nostdlib -static -no-pie -o $@ $^ -lgcc

.PHONY: freestanding
freestanding: $(FS_BUILD)/bare_host
	@if [ "$$(uname -m)" = x86_64 ] && [ "$$(uname -s)" = Linux ]; then \
		$(FS_BUILD)/bare_host > $(FS_BUILD)/out.txt || { echo "bare_host failed"; exit 1; }; \
		grep -q '^    Hits: ' $(FS_BUILD)/out.txt || { echo "bare_host printed no histogram"; exit 1; }; \
		head -8 $(FS_BUILD)/out.txt; \
		echo "freestanding: libc-free build ran; $$(grep -c '^{' $(FS_BUILD)/out.txt) entries"; \
	else \
		echo "freestanding: built (running it needs x86-64 Linux)"; \
	fi

-include $(FS_OBJ:.o=.d)
