/* An LD_PRELOAD library that counts the C library's file-system calls made
 * on paths under $COUNT_PREFIX (and on descriptors and directory streams
 * opened there), and appends "symbol count" lines to $COUNT_FILE at exit.
 * Built by tests/interpose.rs with the C compiler; each wrapper calls the
 * next definition of its symbol (the C library's). Every exported name of
 * a family is wrapped on its own (open and open64, stat64 and __xstat64...)
 * because a program binds to exactly one of them. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define SYMBOLS(X) \
    X(open) X(open64) X(__open_2) X(__open64_2) X(openat) X(openat64) \
    X(__openat_2) X(__openat64_2) X(creat) X(creat64) \
    X(pread) X(pread64) X(pwrite) X(pwrite64) X(read) X(write) \
    X(fsync) X(fdatasync) X(close) \
    X(stat) X(stat64) X(lstat) X(lstat64) X(fstat) X(fstat64) \
    X(fstatat) X(fstatat64) X(statx) X(__xstat) X(__xstat64) X(__lxstat) \
    X(__lxstat64) X(__fxstat) X(__fxstat64) X(__fxstatat) X(__fxstatat64) \
    X(unlink) X(unlinkat) X(mkdir) X(mkdirat) X(rmdir) X(rename) \
    X(renameat) X(renameat2) X(mknod) X(mknodat) X(access) X(faccessat) \
    X(syncfs) X(statvfs) X(statvfs64) X(opendir) X(fdopendir) X(readdir) \
    X(readdir64) X(closedir)

enum {
#define ENUM(name) N_##name,
    SYMBOLS(ENUM)
#undef ENUM
    N_COUNT
};

static const char *names[] = {
#define NAME(name) #name,
    SYMBOLS(NAME)
#undef NAME
};

static unsigned long counts[N_COUNT];
/* Descriptors opened under the prefix. */
#define MAX_FD 65536
static unsigned char mine[MAX_FD];
static const char *prefix;
static size_t prefix_len;

static void count(int which) { __atomic_fetch_add(&counts[which], 1, __ATOMIC_RELAXED); }

static int under(const char *path) {
    return prefix && path && strncmp(path, prefix, prefix_len) == 0;
}

static int fd_mine(int fd) {
    return fd >= 0 && fd < MAX_FD && __atomic_load_n(&mine[fd], __ATOMIC_RELAXED);
}

static void mark(int fd, int on) {
    if (fd >= 0 && fd < MAX_FD)
        __atomic_store_n(&mine[fd], (unsigned char)on, __ATOMIC_RELAXED);
}

/* A path relative to a descriptor is ours if the descriptor is. */
static int at_mine(int dirfd, const char *path) {
    if (!path)
        return 0;
    if (path[0] == '/')
        return under(path);
    return fd_mine(dirfd);
}

__attribute__((constructor)) static void start(void) {
    prefix = getenv("COUNT_PREFIX");
    prefix_len = prefix ? strlen(prefix) : 0;
}

__attribute__((destructor)) static void report(void) {
    const char *file = getenv("COUNT_FILE");
    if (!file)
        return;
    /* Appended, only what was called: other processes that inherit
     * LD_PRELOAD (an MPI singleton's helper) write their own lines, and the
     * test sums them. */
    FILE *out = fopen(file, "a");
    if (!out)
        return;
    for (int i = 0; i < N_COUNT; i++) {
        unsigned long n = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
        if (n)
            fprintf(out, "%s %lu\n", names[i], n);
    }
    fclose(out);
}

#define NEXT(name, type) \
    static __typeof__(type) real_##name; \
    if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

static mode_t mode_arg(int flags, va_list ap) {
    return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

#define OPEN(name) \
    int name(const char *path, int flags, ...) { \
        va_list ap; va_start(ap, flags); mode_t mode = mode_arg(flags, ap); va_end(ap); \
        NEXT(name, int (*)(const char *, int, ...)); \
        int fd = real_##name(path, flags, mode); \
        if (under(path)) { count(N_##name); mark(fd, 1); } \
        return fd; \
    }
OPEN(open) OPEN(open64)

#define OPEN_2(name) \
    int name(const char *path, int flags) { \
        NEXT(name, int (*)(const char *, int)); \
        int fd = real_##name(path, flags); \
        if (under(path)) { count(N_##name); mark(fd, 1); } \
        return fd; \
    }
OPEN_2(__open_2) OPEN_2(__open64_2)

#define OPENAT(name) \
    int name(int dirfd, const char *path, int flags, ...) { \
        va_list ap; va_start(ap, flags); mode_t mode = mode_arg(flags, ap); va_end(ap); \
        NEXT(name, int (*)(int, const char *, int, ...)); \
        int ours = at_mine(dirfd, path); \
        int fd = real_##name(dirfd, path, flags, mode); \
        if (ours) { count(N_##name); mark(fd, 1); } \
        return fd; \
    }
OPENAT(openat) OPENAT(openat64)

#define OPENAT_2(name) \
    int name(int dirfd, const char *path, int flags) { \
        NEXT(name, int (*)(int, const char *, int)); \
        int ours = at_mine(dirfd, path); \
        int fd = real_##name(dirfd, path, flags); \
        if (ours) { count(N_##name); mark(fd, 1); } \
        return fd; \
    }
OPENAT_2(__openat_2) OPENAT_2(__openat64_2)

#define CREAT(name) \
    int name(const char *path, mode_t mode) { \
        NEXT(name, int (*)(const char *, mode_t)); \
        int fd = real_##name(path, mode); \
        if (under(path)) { count(N_##name); mark(fd, 1); } \
        return fd; \
    }
CREAT(creat) CREAT(creat64)

#define PIO(name, buftype) \
    ssize_t name(int fd, buftype buf, size_t n, off_t off) { \
        NEXT(name, ssize_t (*)(int, buftype, size_t, off_t)); \
        if (fd_mine(fd)) count(N_##name); \
        return real_##name(fd, buf, n, off); \
    }
PIO(pread, void *) PIO(pread64, void *) PIO(pwrite, const void *) PIO(pwrite64, const void *)

ssize_t read(int fd, void *buf, size_t n) {
    NEXT(read, ssize_t (*)(int, void *, size_t));
    if (fd_mine(fd)) count(N_read);
    return real_read(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n) {
    NEXT(write, ssize_t (*)(int, const void *, size_t));
    if (fd_mine(fd)) count(N_write);
    return real_write(fd, buf, n);
}

#define FD_CALL(name) \
    int name(int fd) { \
        NEXT(name, int (*)(int)); \
        if (fd_mine(fd)) count(N_##name); \
        return real_##name(fd); \
    }
FD_CALL(fsync) FD_CALL(fdatasync) FD_CALL(syncfs)

int close(int fd) {
    NEXT(close, int (*)(int));
    if (fd_mine(fd)) { count(N_close); mark(fd, 0); }
    return real_close(fd);
}

#define PATH_STAT(name, st) \
    int name(const char *path, struct st *buf) { \
        NEXT(name, int (*)(const char *, struct st *)); \
        if (under(path)) count(N_##name); \
        return real_##name(path, buf); \
    }
PATH_STAT(stat, stat) PATH_STAT(stat64, stat64) PATH_STAT(lstat, stat) PATH_STAT(lstat64, stat64)

#define FD_STAT(name, st) \
    int name(int fd, struct st *buf) { \
        NEXT(name, int (*)(int, struct st *)); \
        if (fd_mine(fd)) count(N_##name); \
        return real_##name(fd, buf); \
    }
FD_STAT(fstat, stat) FD_STAT(fstat64, stat64)

#define AT_STAT(name, st) \
    int name(int dirfd, const char *path, struct st *buf, int flags) { \
        NEXT(name, int (*)(int, const char *, struct st *, int)); \
        if (at_mine(dirfd, path)) count(N_##name); \
        return real_##name(dirfd, path, buf, flags); \
    }
AT_STAT(fstatat, stat) AT_STAT(fstatat64, stat64)

int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf) {
    NEXT(statx, int (*)(int, const char *, int, unsigned, struct statx *));
    /* The header says path is never null, but Rust's std probes statx with a
     * null path: a volatile copy keeps the compiler from dropping the check. */
    const char *volatile probe = path;
    if (at_mine(dirfd, probe)) count(N_statx);
    return real_statx(dirfd, path, flags, mask, buf);
}

#define XSTAT(name, st) \
    int name(int ver, const char *path, struct st *buf) { \
        NEXT(name, int (*)(int, const char *, struct st *)); \
        if (under(path)) count(N_##name); \
        return real_##name(ver, path, buf); \
    }
XSTAT(__xstat, stat) XSTAT(__xstat64, stat64) XSTAT(__lxstat, stat) XSTAT(__lxstat64, stat64)

#define FXSTAT(name, st) \
    int name(int ver, int fd, struct st *buf) { \
        NEXT(name, int (*)(int, int, struct st *)); \
        if (fd_mine(fd)) count(N_##name); \
        return real_##name(ver, fd, buf); \
    }
FXSTAT(__fxstat, stat) FXSTAT(__fxstat64, stat64)

#define FXSTATAT(name, st) \
    int name(int ver, int dirfd, const char *path, struct st *buf, int flags) { \
        NEXT(name, int (*)(int, int, const char *, struct st *, int)); \
        if (at_mine(dirfd, path)) count(N_##name); \
        return real_##name(ver, dirfd, path, buf, flags); \
    }
FXSTATAT(__fxstatat, stat) FXSTATAT(__fxstatat64, stat64)

int unlink(const char *path) {
    NEXT(unlink, int (*)(const char *));
    if (under(path)) count(N_unlink);
    return real_unlink(path);
}

int unlinkat(int dirfd, const char *path, int flags) {
    NEXT(unlinkat, int (*)(int, const char *, int));
    if (at_mine(dirfd, path)) count(N_unlinkat);
    return real_unlinkat(dirfd, path, flags);
}

int mkdir(const char *path, mode_t mode) {
    NEXT(mkdir, int (*)(const char *, mode_t));
    if (under(path)) count(N_mkdir);
    return real_mkdir(path, mode);
}

int mkdirat(int dirfd, const char *path, mode_t mode) {
    NEXT(mkdirat, int (*)(int, const char *, mode_t));
    if (at_mine(dirfd, path)) count(N_mkdirat);
    return real_mkdirat(dirfd, path, mode);
}

int rmdir(const char *path) {
    NEXT(rmdir, int (*)(const char *));
    if (under(path)) count(N_rmdir);
    return real_rmdir(path);
}

int rename(const char *from, const char *to) {
    NEXT(rename, int (*)(const char *, const char *));
    if (under(from)) count(N_rename);
    return real_rename(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
    NEXT(renameat, int (*)(int, const char *, int, const char *));
    if (at_mine(fromfd, from)) count(N_renameat);
    return real_renameat(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags) {
    NEXT(renameat2, int (*)(int, const char *, int, const char *, unsigned));
    if (at_mine(fromfd, from)) count(N_renameat2);
    return real_renameat2(fromfd, from, tofd, to, flags);
}

int mknod(const char *path, mode_t mode, dev_t dev) {
    NEXT(mknod, int (*)(const char *, mode_t, dev_t));
    if (under(path)) count(N_mknod);
    return real_mknod(path, mode, dev);
}

int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev) {
    NEXT(mknodat, int (*)(int, const char *, mode_t, dev_t));
    if (at_mine(dirfd, path)) count(N_mknodat);
    return real_mknodat(dirfd, path, mode, dev);
}

int access(const char *path, int how) {
    NEXT(access, int (*)(const char *, int));
    if (under(path)) count(N_access);
    return real_access(path, how);
}

int faccessat(int dirfd, const char *path, int how, int flags) {
    NEXT(faccessat, int (*)(int, const char *, int, int));
    if (at_mine(dirfd, path)) count(N_faccessat);
    return real_faccessat(dirfd, path, how, flags);
}

#define STATVFS(name, st) \
    int name(const char *path, struct st *buf) { \
        NEXT(name, int (*)(const char *, struct st *)); \
        if (under(path)) count(N_##name); \
        return real_##name(path, buf); \
    }
#include <sys/statvfs.h>
STATVFS(statvfs, statvfs) STATVFS(statvfs64, statvfs64)

DIR *opendir(const char *path) {
    NEXT(opendir, DIR *(*)(const char *));
    DIR *d = real_opendir(path);
    if (under(path)) {
        count(N_opendir);
        if (d) mark(dirfd(d), 1);
    }
    return d;
}

DIR *fdopendir(int fd) {
    NEXT(fdopendir, DIR *(*)(int));
    if (fd_mine(fd)) count(N_fdopendir);
    return real_fdopendir(fd);
}

struct dirent *readdir(DIR *d) {
    NEXT(readdir, struct dirent *(*)(DIR *));
    if (fd_mine(dirfd(d))) count(N_readdir);
    return real_readdir(d);
}

struct dirent64 *readdir64(DIR *d) {
    NEXT(readdir64, struct dirent64 *(*)(DIR *));
    if (fd_mine(dirfd(d))) count(N_readdir64);
    return real_readdir64(d);
}

int closedir(DIR *d) {
    NEXT(closedir, int (*)(DIR *));
    int fd = dirfd(d);
    if (fd_mine(fd)) { count(N_closedir); mark(fd, 0); }
    return real_closedir(d);
}
