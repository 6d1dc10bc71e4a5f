/*
 * A reference for IOR's data patterns, written for pario's tests from the
 * formulas of IOR 4 (src/utilities.c: generate_memory_pattern,
 * update_write_memory_pattern, verify_memory_pattern), with IOR's C types so
 * that every conversion happens as it does in IOR: the signature is an `int`
 * (so `rand_seed + i` sign-extends to 64 bits), the rank an `int`, the offset
 * a `uint64_t` item, and `i`/`r` packets use the C library's rand_r().
 *
 * Built with `gcc -O2 -fwrapv` (IOR's `int + int` overflows wrap in practice;
 * -fwrapv makes that defined here).
 *
 *   ior_pattern gen    < cases > data     one buffer per (case, offset)
 *   ior_pattern verify CASES DATA         one 0/1 per (case, offset)
 *
 * A case is a line "TYPE SIGNATURE RANK BYTES OFFSET...": TYPE is t, o, i or
 * r; SIGNATURE is read as IOR reads -G (a 64-bit number truncated to int).
 * `gen` fills the buffer once per case (as IOR does once per repetition),
 * then, for each offset, updates it for a write at that offset and prints it.
 * `verify` reads the buffers back from DATA in the same order and prints
 * verify_memory_pattern's result (1 = error) for each.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* 1 when the buffer read from `item` is not what `rank` wrote there. */
static int verify(uint64_t item, char *buf, size_t bytes, int rand_seed, int rank, enum packet type)
{
        int error = 0;
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
                        error = 1;
        }
        for (size_t i = n * 8; i < bytes; i++)
                if (buf[i] != (char) i)
                        error = 1;
        return error;
}

struct parsed {
        enum packet type;
        int seed;
        int rank;
        size_t bytes;
        size_t offsets;
        uint64_t offset[64];
};

/* Reads one case line; 0 at the end. */
static int parse(FILE *in, struct parsed *c)
{
        char line[4096];
        if (!fgets(line, sizeof line, in))
                return 0;
        char *save = NULL;
        char *tok = strtok_r(line, " \t\n", &save);
        if (!tok)
                return parse(in, c);
        c->type = packet_of(tok[0]);
        /* -G: a 64-bit number stored into an int, as IOR's option parser does */
        c->seed = (int) strtoll(strtok_r(NULL, " \t\n", &save), NULL, 10);
        c->rank = (int) strtol(strtok_r(NULL, " \t\n", &save), NULL, 10);
        c->bytes = (size_t) strtoull(strtok_r(NULL, " \t\n", &save), NULL, 10);
        c->offsets = 0;
        while ((tok = strtok_r(NULL, " \t\n", &save)) && c->offsets < 64)
                c->offset[c->offsets++] = strtoull(tok, NULL, 10);
        return 1;
}

static char *aligned(size_t bytes)
{
        void *p = NULL;
        if (posix_memalign(&p, 4096, bytes + 8) != 0) {
                perror("posix_memalign");
                exit(2);
        }
        return p;
}

int main(int argc, char **argv)
{
        struct parsed c;
        if (argc == 2 && strcmp(argv[1], "gen") == 0) {
                while (parse(stdin, &c)) {
                        char *buf = aligned(c.bytes);
                        memset(buf, 0xee, c.bytes);
                        generate(buf, c.bytes, c.seed, c.rank, c.type);
                        for (size_t j = 0; j < c.offsets; j++) {
                                update(c.offset[j], buf, c.bytes, c.seed, c.rank, c.type);
                                fwrite(buf, 1, c.bytes, stdout);
                        }
                        free(buf);
                }
                return 0;
        }
        if (argc == 4 && strcmp(argv[1], "verify") == 0) {
                FILE *cases = fopen(argv[2], "r");
                FILE *data = fopen(argv[3], "rb");
                if (!cases || !data) {
                        perror("open");
                        return 2;
                }
                while (parse(cases, &c)) {
                        char *buf = aligned(c.bytes);
                        for (size_t j = 0; j < c.offsets; j++) {
                                if (fread(buf, 1, c.bytes, data) != c.bytes) {
                                        fprintf(stderr, "short data\n");
                                        return 2;
                                }
                                printf("%d\n", verify(c.offset[j], buf, c.bytes, c.seed, c.rank, c.type));
                        }
                        free(buf);
                }
                return 0;
        }
        fprintf(stderr, "usage: ior_pattern gen < cases | ior_pattern verify CASES DATA\n");
        return 2;
}
