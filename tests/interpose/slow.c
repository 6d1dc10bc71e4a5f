/* An LD_PRELOAD library that makes every positioned write through the C
 * library sleep a millisecond first. The tests that stop a job "writing
 * until stopped" (scancel, a Slurm time limit, a killed rank) run it with
 * this: the job then waits instead of keeping the cores busy with 8-byte
 * writes for the minute or more the test waits for its end, while the
 * files and the partial row it leaves are the same.
 * Built by tests/interpose.rs with the C compiler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static void pause_first(void) {
    struct timespec t = {0, 1000000};
    nanosleep(&t, NULL);
}

#define SLOW(name, buffer, count)                                                  \
    ssize_t name(int fd, buffer b, count n, off_t offset) {                        \
        static ssize_t (*real)(int, buffer, count, off_t);                         \
        if (!real)                                                                 \
            real = (ssize_t(*)(int, buffer, count, off_t))dlsym(RTLD_NEXT, #name); \
        pause_first();                                                             \
        return real(fd, b, n, offset);                                             \
    }

SLOW(pwrite, const void *, size_t)
SLOW(pwrite64, const void *, size_t)
SLOW(pwritev, const struct iovec *, int)
SLOW(pwritev64, const struct iovec *, int)
