/*
 * A reference for IOR's data patterns (the formulas are in ior_pattern.h),
 * driven by pario's pattern tests.
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
#include <string.h>

#include "ior_pattern.h"

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
                                printf("%d\n", verify(c.offset[j], buf, c.bytes, c.seed, c.rank, c.type) != 0);
                        }
                        free(buf);
                }
                return 0;
        }
        fprintf(stderr, "usage: ior_pattern gen < cases | ior_pattern verify CASES DATA\n");
        return 2;
}
