/* The system-call loop of the mdworkbench workload (scripts/bench/workloads/
   mdworkbench.py): md-workbench -D D -I I -P P -R R (-S 3901, offset 1) with
   exactly the system calls pario's md-workbench makes, in its order, on its
   names (checked with strace -f on x86_64 Linux, PARIO_TASKS=1 and 2):

     setup       thread 0: mkdirat(AT_FDCWD, "DIR/p", 0777); barrier
     precreate   barrier; each thread t: mkdirat(AT_FDCWD, "DIR/p/<t>_<d>",
                 0777) for d < D; then for f < P, for d < D, create
                 "DIR/p/<t>_<d>/file-<f>" (below)
     benchmark   R times, s = 0, I, 2I, ...: barrier, clock starts; for
                 f < I, for d < D, with prev = s + f:
                   newfstatat(AT_FDCWD, "DIR/p/<(t-(d+1)) mod N>_<d>/file-<prev>",
                              &st, 0)
                   open(that, O_RDONLY|O_LARGEFILE|O_CLOEXEC)
                   pread64(fd, buf, 3901, 0)
                   close(fd)
                   unlinkat(AT_FDCWD, that, 0)
                   create "DIR/p/<(t+(d+1)) mod N>_<d>/file-<P+prev>"
                 clock stops at the end of the thread's loop
     cleanup     (no barrier of its own: the end of the last benchmark phase
                 is one) for d < D: unlinkat(AT_FDCWD, "DIR/p/<t>_<d>/
                 file-<f>", 0) for s <= f < s+P, then unlinkat(AT_FDCWD,
                 "DIR/p/<t>_<d>", AT_REMOVEDIR); barrier; thread 0:
                 unlinkat(AT_FDCWD, "DIR/p", AT_REMOVEDIR)
     create      open(path, O_WRONLY|O_CREAT|O_EXCL|O_LARGEFILE|O_CLOEXEC,
                 0664); pwrite64(fd, buf, 3901, 0); close(fd)

   pario opens with the open system call itself, not openat, and sets
   O_LARGEFILE (rustix's raw Linux calls); glibc's open() would make an
   openat without it, so on x86_64 this calls syscall(SYS_open, ...). The
   buffer is an anonymous mapping of 3901 bytes, as pario's is. Threads stand
   for pario's tasks (PARIO_TASKS=N runs them as threads of one process).

   A benchmark phase's rate is md-workbench's: the objects read by all
   threads x 4 (stat, read, delete, create) / the slowest thread's time.
   Prints one line per benchmark phase: the rate (ops/s), then the slowest
   and the fastest thread's time (s). Exit status 1 after a failed call.

   Usage: mdwloop DIR TASKS D I P R */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SIZE 3901
#define MAX_TASKS 1024
#define CREATE_FLAGS (O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC)
#define READ_FLAGS (O_RDONLY | O_CLOEXEC)

static int ntasks;
static long nsets, niter, nprecreate, nphases;
static char prefix[4200];
static pthread_barrier_t bar;
static double took[MAX_TASKS];
static volatile int failed;

#if defined(__x86_64__) && defined(SYS_open)
/* The kernel's O_LARGEFILE: glibc defines O_LARGEFILE as 0 on 64-bit. */
#define KERNEL_O_LARGEFILE 0100000
static int open_file(const char *path, int flags, mode_t mode) {
    return (int)syscall(SYS_open, path, flags | KERNEL_O_LARGEFILE, mode);
}
#else
static int open_file(const char *path, int flags, mode_t mode) {
    return openat(AT_FDCWD, path, flags | O_LARGEFILE, mode);
}
#endif

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fail(const char *what, const char *path) {
    fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno));
    failed = 1;
}

/* Writes k in decimal at p; returns the end (not NUL-terminated). */
static char *put(char *p, long k) {
    char d[24];
    int n = 0;
    do { d[n++] = '0' + k % 10; k /= 10; } while (k);
    while (n) *p++ = d[--n];
    return p;
}

/* DIR/p/<owner>_<d>, NUL-terminated; returns the end. */
static char *dataset(char *out, long owner, long d) {
    size_t len = strlen(prefix);
    memcpy(out, prefix, len);
    char *p = out + len;
    *p++ = '/';
    p = put(p, owner);
    *p++ = '_';
    p = put(p, d);
    *p = 0;
    return p;
}

/* DIR/p/<owner>_<d>/file-<i>. */
static void object(char *out, long owner, long d, long i) {
    char *p = dataset(out, owner, d);
    memcpy(p, "/file-", 6);
    *put(p + 6, i) = 0;
}

static void create(const char *path, const char *buf) {
    int fd = open_file(path, CREATE_FLAGS, 0664);
    if (fd < 0) { fail("create", path); return; }
    if (pwrite(fd, buf, SIZE, 0) != SIZE) fail("write", path);
    if (close(fd) != 0) fail("close", path);
}

/* One object of the benchmark phase: stat, read, delete, create. */
static void one(long t, long d, long prev, char *buf) {
    char path[4400];
    struct stat st;
    long reader = ((t - (d + 1)) % ntasks + ntasks) % ntasks;
    long writer = (t + (d + 1)) % ntasks;
    object(path, reader, d, prev);
    if (fstatat(AT_FDCWD, path, &st, 0) != 0) { fail("stat", path); return; }
    int fd = open_file(path, READ_FLAGS, 0);
    if (fd < 0) { fail("open", path); return; }
    if (pread(fd, buf, SIZE, 0) != SIZE) fail("read", path);
    if (close(fd) != 0) fail("close", path);
    if (unlinkat(AT_FDCWD, path, 0) != 0) fail("unlink", path);
    object(path, writer, d, nprecreate + prev);
    create(path, buf);
}

static void *task(void *arg) {
    long t = (long)arg;
    char path[4400];
    char *buf = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) { fail("mmap", "buffer"); buf = NULL; }
    else memset(buf, 'a' + (int)(t % 26), SIZE);
    if (t == 0 && mkdirat(AT_FDCWD, prefix, 0777) != 0) fail("mkdir", prefix);
    pthread_barrier_wait(&bar);

    /* precreate */
    pthread_barrier_wait(&bar);
    for (long d = 0; d < nsets && !failed; d++) {
        dataset(path, t, d);
        if (mkdirat(AT_FDCWD, path, 0777) != 0) fail("mkdir", path);
    }
    for (long f = 0; f < nprecreate && !failed; f++)
        for (long d = 0; d < nsets && !failed; d++) { object(path, t, d, f); create(path, buf); }

    /* benchmark */
    long start = 0;
    for (long r = 0; r < nphases; r++) {
        pthread_barrier_wait(&bar);
        double t0 = now();
        for (long f = 0; f < niter && !failed; f++)
            for (long d = 0; d < nsets && !failed; d++) one(t, d, start + f, buf);
        took[t] = now() - t0;
        pthread_barrier_wait(&bar);
        if (t == 0 && !failed) {
            double max = 0, min = took[0];
            for (int k = 0; k < ntasks; k++) {
                if (took[k] > max) max = took[k];
                if (took[k] < min) min = took[k];
            }
            printf("%.3f %.9f %.9f\n", (double)ntasks * niter * nsets * 4.0 / max, max, min);
        }
        start += niter;
    }

    /* cleanup */
    for (long d = 0; d < nsets && !failed; d++) {
        for (long f = start; f < start + nprecreate; f++) {
            object(path, t, d, f);
            if (unlinkat(AT_FDCWD, path, 0) != 0) fail("unlink", path);
        }
        dataset(path, t, d);
        if (unlinkat(AT_FDCWD, path, AT_REMOVEDIR) != 0) fail("rmdir", path);
    }
    pthread_barrier_wait(&bar);
    if (t == 0 && !failed && unlinkat(AT_FDCWD, prefix, AT_REMOVEDIR) != 0) fail("rmdir", prefix);
    if (buf) munmap(buf, SIZE);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s DIR TASKS D I P R\n", argv[0]);
        return 2;
    }
    ntasks = atoi(argv[2]);
    nsets = atol(argv[3]);
    niter = atol(argv[4]);
    nprecreate = atol(argv[5]);
    nphases = atol(argv[6]);
    if (ntasks < 1 || ntasks > MAX_TASKS || nsets < 1 || niter < 0 || nprecreate < 1 ||
        nphases < 0) {
        fprintf(stderr, "mdwloop: bad counts (1 <= TASKS <= %d, D >= 1, P >= 1)\n", MAX_TASKS);
        return 2;
    }
    if (snprintf(prefix, sizeof prefix, "%s/p", argv[1]) >= (int)sizeof prefix) {
        fprintf(stderr, "mdwloop: DIR too long\n");
        return 2;
    }
    pthread_barrier_init(&bar, NULL, ntasks);
    pthread_t th[MAX_TASKS];
    for (long t = 0; t < ntasks; t++) pthread_create(&th[t], NULL, task, (void *)t);
    for (long t = 0; t < ntasks; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    return failed ? 1 : 0;
}
