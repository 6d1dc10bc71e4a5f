/*
 * IOR 4's data patterns (src/utilities.c: generate_memory_pattern,
 * update_write_memory_pattern, verify_memory_pattern), written for pario's
 * tests with IOR's C types so that every conversion happens as in IOR: the
 * signature is an `int` (so `rand_seed + i` sign-extends to 64 bits), the
 * rank an `int`, the offset a `uint64_t` item, and `i`/`r` packets use the C
 * library's rand_r(). Shared by the pattern reference (ior_pattern.c) and
 * the HDF5 reference (ior_hdf5.c); build with -fwrapv (IOR's `int + int`
 * overflows wrap in practice).
 */
#ifndef IOR_PATTERN_H
#define IOR_PATTERN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GOLDEN_RATIO_PRIME 0x9e37fffffffc0001ULL

enum packet { TIMESTAMP, OFFSET, INCOMPRESSIBLE, RANDOM };

static enum packet packet_of(char c)
{
        switch (c) {
        case 't': return TIMESTAMP;
        case 'o': return OFFSET;
        case 'i': return INCOMPRESSIBLE;
        case 'r': return RANDOM;
        }
        fprintf(stderr, "unknown packet type %c\n", c);
        exit(2);
}

/* Filled once per phase. */
static void generate(char *buf, size_t bytes, int rand_seed, int rank, enum packet type)
{
        uint64_t *words = (uint64_t *) buf;
        const size_t n = bytes / 8;
        for (size_t i = 0; i < n; i++) {
                if (type == INCOMPRESSIBLE) {
                        unsigned seed = rand_seed + rank;
                        uint64_t hi = ((uint64_t) rand_r(&seed) << 32);
                        uint64_t lo = (uint64_t) rand_r(&seed);
                        words[i] = hi | lo;
                } else if (type == OFFSET || type == TIMESTAMP) {
                        words[i] = ((uint64_t) rank) << 32 | rand_seed + i;
                }
                /* RANDOM: written per transfer */
        }
        for (size_t i = n * 8; i < bytes; i++)
                buf[i] = (char) i;
}

/* Before each write at file offset `item`. */
static void update(uint64_t item, char *buf, size_t bytes, int rand_seed, int rank, enum packet type)
{
        if (type == TIMESTAMP || bytes < 8)
                return;
        const size_t n = bytes / 8;
        uint64_t *words = (uint64_t *) buf;
        if (type == RANDOM) {
                unsigned seed = rand_seed + rank + item;
                uint64_t state = rand_r(&seed);
                for (size_t i = 0; i < n; i++) {
                        state *= GOLDEN_RATIO_PRIME;
                        state >>= 3;
                        words[i] = state;
                }
                return;
        }
        int k = 1;
        for (size_t i = 0; i < n; i += 512, k++)
                words[i] = ((uint32_t) item * k) | ((uint64_t) rank) << 32;
}

/* The number of wrong 64-bit words (a wrong tail counts as one) in the
 * buffer read from `item`, against what `rank` wrote there: 0 = correct. */
static size_t verify(uint64_t item, char *buf, size_t bytes, int rand_seed, int rank, enum packet type)
{
        size_t errors = 0;
        uint64_t *words = (uint64_t *) buf;
        int k = 1;
        unsigned seed = rand_seed + rank + item;
        uint64_t state = rand_r(&seed);
        const size_t n = bytes / 8;
        for (size_t i = 0; i < n; i++) {
                uint64_t expected = 0;
                if (type == RANDOM) {
                        state *= GOLDEN_RATIO_PRIME;
                        state >>= 3;
                        expected = state;
                } else if (type == INCOMPRESSIBLE) {
                        unsigned s = rand_seed + rank;
                        uint64_t hi = ((uint64_t) rand_r(&s) << 32);
                        uint64_t lo = (uint64_t) rand_r(&s);
                        expected = hi | lo;
                } else {
                        expected = ((uint64_t) rank) << 32 | rand_seed + i;
                }
                if (i % 512 == 0 && type != TIMESTAMP && type != RANDOM) {
                        expected = ((uint32_t) item * k) | ((uint64_t) rank) << 32;
                        k++;
                }
                if (words[i] != expected)
                        errors++;
        }
        for (size_t i = n * 8; i < bytes; i++)
                if (buf[i] != (char) i) {
                        errors++;
                        break;
                }
        return errors;
}

#endif
