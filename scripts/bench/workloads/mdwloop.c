/* The system-call loop of md-workbench's workload (scripts/bench/workloads/
   mdworkbench.py), mirroring what pario's md-workbench calls, in its order:
   N threads; the prefix DIR/p (thread 0); each thread's D datasets
   DIR/p/<t>_<d> (mkdir) and P objects file-<i> in each (open O_WRONLY|
   O_CREAT|O_EXCL|O_CLOEXEC 0664, pwrite S bytes at 0, close); then R
   benchmark phases between barriers, each of I iterations over the D
   datasets: stat the oldest object of dataset d of thread t-(d+1), open it
   O_RDONLY|O_CLOEXEC, pread S bytes, close, unlink it, and create object
   P+prev in dataset d of thread t+(d+1) as above; then the cleanup (unlink
   the thread's objects, rmdir its datasets; thread 0 removes the prefix).
   A phase's time per thread runs from the barrier to the end of its loop;
   its rate is md-workbench's: objects read x 4 / the slowest thread's time.
   Prints one rate (ops/s) per benchmark phase.

   Usage: mdwloop DIR TASKS D I P R */
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

#define SIZE 3901
static int ntasks;
static long nsets, niter, nprecreate, nphases;
static const char *root;
static char prefix[4200];
static pthread_barrier_t bar;
static double took[1024];
static volatile int failed;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fail(const char *what, const char *path) {
    fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno));
    failed = 1;
}

static void object(char *out, long owner, long d, long i) {
    sprintf(out, "%s/%ld_%ld/file-%ld", prefix, owner, d, i);
}

static void create(const char *path, const char *buf) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0664);
    if (fd < 0) { fail("create", path); return; }
    if (pwrite(fd, buf, SIZE, 0) != SIZE) fail("write", path);
    close(fd);
}

static void one(long t, long d, long prev, char *buf) {
    char path[4400];
    struct stat st;
    long reader = ((t - (d + 1)) % ntasks + ntasks) % ntasks;
    long writer = (t + (d + 1)) % ntasks;
    object(path, reader, d, prev);
    if (stat(path, &st) != 0) { fail("stat", path); return; }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { fail("open", path); return; }
    if (pread(fd, buf, SIZE, 0) != SIZE) fail("read", path);
    close(fd);
    if (unlink(path) != 0) fail("unlink", path);
    object(path, writer, d, nprecreate + prev);
    create(path, buf);
}

static void *task(void *arg) {
    long t = (long)arg;
    char path[4400];
    char *buf = malloc(SIZE);
    memset(buf, (int)t, SIZE);
    if (t == 0 && mkdir(prefix, 0777) != 0) fail("mkdir", prefix);
    pthread_barrier_wait(&bar);
    for (long d = 0; d < nsets; d++) {
        sprintf(path, "%s/%ld_%ld", prefix, t, d);
        if (mkdir(path, 0777) != 0) fail("mkdir", path);
    }
    for (long i = 0; i < nprecreate; i++)
        for (long d = 0; d < nsets; d++) { object(path, t, d, i); create(path, buf); }
    long start = 0;
    for (long r = 0; r < nphases; r++) {
        pthread_barrier_wait(&bar);
        double t0 = now();
        for (long f = 0; f < niter; f++)
            for (long d = 0; d < nsets; d++) one(t, d, start + f, buf);
        took[t] = now() - t0;
        pthread_barrier_wait(&bar);
        if (t == 0) {
            double max = 0;
            for (int k = 0; k < ntasks; k++) if (took[k] > max) max = took[k];
            printf("%.1f\n", ntasks * niter * nsets * 4.0 / max);
        }
        start += niter;
    }
    pthread_barrier_wait(&bar);
    for (long d = 0; d < nsets; d++) {
        for (long i = start; i < start + nprecreate; i++) {
            object(path, t, d, i);
            if (unlink(path) != 0) fail("unlink", path);
        }
        sprintf(path, "%s/%ld_%ld", prefix, t, d);
        if (rmdir(path) != 0) fail("rmdir", path);
    }
    pthread_barrier_wait(&bar);
    if (t == 0 && rmdir(prefix) != 0) fail("rmdir", prefix);
    free(buf);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: mdwloop DIR TASKS D I P R\n");
        return 2;
    }
    root = argv[1];
    ntasks = atoi(argv[2]);
    nsets = atol(argv[3]);
    niter = atol(argv[4]);
    nprecreate = atol(argv[5]);
    nphases = atol(argv[6]);
    if (ntasks < 1 || ntasks > 1024) return 2;
    snprintf(prefix, sizeof prefix, "%s/p", root);
    pthread_barrier_init(&bar, NULL, ntasks);
    pthread_t th[1024];
    for (long t = 0; t < ntasks; t++) pthread_create(&th[t], NULL, task, (void *)t);
    for (long t = 0; t < ntasks; t++) pthread_join(th[t], NULL);
    return failed;
}
