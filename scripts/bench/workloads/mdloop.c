/* The system-call loop of the mdtest workload (scripts/bench/workloads/
   mdtest.py): N threads, each creating (open O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC,
   close), stat'ing (stat), reading (open O_RDONLY|O_CLOEXEC, close: mdtest's
   read with -e 0) and removing (unlink) its files file.mdtest.<t>.<k> in one
   shared directory, phases separated by barriers and timed by thread 0 from
   the barrier before a phase to the barrier after it, as mdtest does. Prints
   one line of four rates (ops/s) per iteration.

   Usage: mdloop DIR TASKS ITEMS ITERATIONS */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int ntasks, iterations;
static long nitems;
static const char *root;
static char mid[4200], dir[4300];
static pthread_barrier_t bar;
static double t0[4], t1[4];
static volatile int failed;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Writes k in decimal at p, NUL-terminated. */
static void put(char *p, long k) {
    char d[24];
    int n = 0;
    do { d[n++] = '0' + k % 10; k /= 10; } while (k);
    while (n) *p++ = d[--n];
    *p = 0;
}

static void fail(const char *what, const char *path) {
    fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno));
    failed = 1;
}

/* Thread 0 makes the iteration's directories (mdtest's layout, so that path
   walks cost the same: DIR/test-dir.I-0/mdtest_tree.0). */
static void make_dirs(int it) {
    snprintf(mid, sizeof mid, "%s/test-dir.%d-0", root, it);
    snprintf(dir, sizeof dir, "%s/mdtest_tree.0", mid);
    if (mkdir(mid, 0775) != 0) fail("mkdir", mid);
    else if (mkdir(dir, 0775) != 0) fail("mkdir", dir);
}

static void remove_dirs(void) {
    if (rmdir(dir) != 0) fail("rmdir", dir);
    else if (rmdir(mid) != 0) fail("rmdir", mid);
}

/* Each thread lives through every iteration, as an mdtest task does: a
   thread started afresh for each iteration would let the scheduler place it
   away from the CPU still freeing the last iteration's files. */
static void *task(void *arg) {
    long r = (long)arg;
    char path[4400];
    for (int it = 0; it < iterations; it++) {
        if (r == 0 && !failed) make_dirs(it);
        pthread_barrier_wait(&bar);
        if (failed) return NULL;
        int len = snprintf(path, sizeof path, "%s/file.mdtest.%ld.", dir, r);
        for (int phase = 0; phase < 4; phase++) {
            pthread_barrier_wait(&bar);
            if (r == 0) t0[phase] = now();
            for (long k = 0; k < nitems && !failed; k++) {
                put(path + len, k);
                struct stat st;
                int fd;
                switch (phase) {
                case 0:
                    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0664);
                    if (fd < 0) fail("create", path); else close(fd);
                    break;
                case 1:
                    if (stat(path, &st) != 0) fail("stat", path);
                    break;
                case 2:
                    fd = open(path, O_RDONLY | O_CLOEXEC);
                    if (fd < 0) fail("open", path); else close(fd);
                    break;
                case 3:
                    if (unlink(path) != 0) fail("unlink", path);
                    break;
                }
            }
            pthread_barrier_wait(&bar);
            if (r == 0) t1[phase] = now();
        }
        if (r == 0) {
            if (!failed) remove_dirs();
            double total = (double)ntasks * nitems;
            if (!failed)
                printf("%.3f %.3f %.3f %.3f\n", total / (t1[0] - t0[0]),
                       total / (t1[1] - t0[1]), total / (t1[2] - t0[2]),
                       total / (t1[3] - t0[3]));
        }
        /* A failure is seen by every thread behind the next iteration's
           first barrier. */
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR TASKS ITEMS ITERATIONS\n", argv[0]);
        return 2;
    }
    root = argv[1];
    ntasks = atoi(argv[2]);
    nitems = atol(argv[3]);
    iterations = atoi(argv[4]);
    if (mkdir(root, 0775) != 0 && errno != EEXIST) { fail("mkdir", root); return 1; }
    pthread_barrier_init(&bar, NULL, ntasks);
    pthread_t th[ntasks];
    for (long r = 0; r < ntasks; r++) pthread_create(&th[r], NULL, task, (void *)r);
    for (long r = 0; r < ntasks; r++) pthread_join(th[r], NULL);
    pthread_barrier_destroy(&bar);
    return failed ? 1 : 0;
}
