/*
 * What the libFuzzer harnesses of tests/fuzz share (README.md there; run
 * them with scripts/fuzz.sh). Each harness defines LLVMFuzzerTestOneInput:
 * it hands the input, as NUL-terminated text, to one reader, checks what
 * the reader's module promises about an accepted input (a round trip
 * through its writer, where it has one) and frees everything the reader
 * made. Built with -fsanitize=fuzzer,address,undefined, a crash, a leak,
 * undefined behaviour or a broken promise is a finding: libFuzzer stops
 * and saves the input.
 */
#ifndef PIPEOPT_FUZZ_H
#define PIPEOPT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a new NUL-terminated string, or NULL when out of memory. A
 * reader stops at a NUL byte, as it does reading a file. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (text) {
		if (size)
			memcpy(text, data, size);
		text[size] = 0;
	}
	return text;
}

/* A promise the module makes: abort when broken, so libFuzzer saves the
 * input as a crash. */
static inline void fuzz_check(bool ok, const char *what, const char *detail)
{
	if (!ok) {
		fprintf(stderr, "fuzz: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
		abort();
	}
}

#endif
