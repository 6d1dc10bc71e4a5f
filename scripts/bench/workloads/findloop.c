/* A minimal parallel walk (scripts/bench/workloads/find.py): N threads share
   one queue of directories (a mutex, idle threads wait on a condition); each
   reads a directory (opendir, readdir: the entry's type from d_type), queues
   its subdirectories, counts every other entry, and stats only the names
   matching *01* (fstatat on the directory, no symlinks followed) to check
   size 3901 and ctime not older than the timestamp file's, as io500's find
   does. Prints `scanned found seconds`.

   Usage: findloop ROOT TASKS NEWER_THAN_FILE */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static char **queue;
static long head, tail, cap, busy;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static struct timespec newer;
static long scanned_all, found_all;

static void push(char *path) {
    pthread_mutex_lock(&lock);
    if (tail == cap) {
        cap = cap ? cap * 2 : 1024;
        queue = realloc(queue, cap * sizeof *queue);
    }
    queue[tail++] = path;
    pthread_cond_signal(&more);
    pthread_mutex_unlock(&lock);
}

/* The next directory, or NULL when every queue is empty and no thread works. */
static char *pop(void) {
    pthread_mutex_lock(&lock);
    busy--;
    while (head == tail && busy > 0) pthread_cond_wait(&more, &lock);
    char *p = NULL;
    if (head < tail) { p = queue[head++]; busy++; }
    else pthread_cond_broadcast(&more);
    pthread_mutex_unlock(&lock);
    return p;
}

static int newer_than(const struct stat *st) {
    return st->st_ctim.tv_sec > newer.tv_sec ||
           (st->st_ctim.tv_sec == newer.tv_sec && st->st_ctim.tv_nsec >= newer.tv_nsec);
}

static void *walker(void *arg) {
    (void)arg;
    long scanned = 0, found = 0;
    char *dir;
    while ((dir = pop())) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
                continue;
            size_t n = strlen(dir) + strlen(e->d_name) + 2;
            if (e->d_type == DT_DIR) {
                char *sub = malloc(n);
                snprintf(sub, n, "%s/%s", dir, e->d_name);
                push(sub);
                continue;
            }
            scanned++;
            if (fnmatch("*01*", e->d_name, 0) != 0) continue;
            struct stat st;
            if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                st.st_size == 3901 && newer_than(&st)) found++;
        }
        if (d) closedir(d);
        free(dir);
    }
    __atomic_add_fetch(&scanned_all, scanned, __ATOMIC_RELAXED);
    __atomic_add_fetch(&found_all, found, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: findloop ROOT TASKS NEWER_THAN_FILE\n"); return 2; }
    int tasks = atoi(argv[2]);
    struct stat st;
    if (stat(argv[3], &st) != 0 || tasks < 1 || tasks > 256) return 2;
    newer = st.st_ctim;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    busy = tasks;
    push(strdup(argv[1]));
    pthread_t th[256];
    for (int i = 0; i < tasks; i++) pthread_create(&th[i], NULL, walker, NULL);
    for (int i = 0; i < tasks; i++) pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%ld %ld %.6f\n", scanned_all, found_all,
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return 0;
}
