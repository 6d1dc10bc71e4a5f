/* An LD_PRELOAD library that does what a user-space file system does: paths
 * under the made-up prefix $REDIRECT_FROM (which does not exist) are served
 * from the real directory $REDIRECT_TO. Only calls through the C library's
 * exported functions are redirected, so a raw system call on such a path
 * fails (ENOENT) or lands outside the real directory, and the test sees it.
 * Built by tests/interpose.rs with the C compiler. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

static const char *from, *to;
static size_t from_len;

__attribute__((constructor)) static void start(void) {
    from = getenv("REDIRECT_FROM");
    to = getenv("REDIRECT_TO");
    from_len = from ? strlen(from) : 0;
}

/* The real path of `path` in `buf` when it is under the prefix, else
 * `path` itself; NULL (ENAMETOOLONG) when the real path does not fit. */
static const char *real_path(const char *path, char *buf) {
    if (!from || !to || !path || strncmp(path, from, from_len) != 0)
        return path;
    const char *rest = path + from_len;
    if (*rest != '\0' && *rest != '/')
        return path;
    if ((size_t)snprintf(buf, PATH_MAX, "%s%s", to, rest) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return buf;
}

#define NEXT(name, type) \
    static __typeof__(type) real_##name; \
    if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

/* Translates the path argument `p` into `p_real`, or fails like the call. */
#define TRANSLATE(p, fail) \
    char p##_buf[PATH_MAX]; \
    const char *p##_real = real_path(p, p##_buf); \
    if (!p##_real) return fail

static mode_t mode_arg(int flags, va_list ap) {
    return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

#define OPEN(name) \
    int name(const char *path, int flags, ...) { \
        va_list ap; va_start(ap, flags); mode_t mode = mode_arg(flags, ap); va_end(ap); \
        NEXT(name, int (*)(const char *, int, ...)); \
        TRANSLATE(path, -1); \
        return real_##name(path_real, flags, mode); \
    }
OPEN(open) OPEN(open64)

#define OPEN_2(name) \
    int name(const char *path, int flags) { \
        NEXT(name, int (*)(const char *, int)); \
        TRANSLATE(path, -1); \
        return real_##name(path_real, flags); \
    }
OPEN_2(__open_2) OPEN_2(__open64_2)

#define OPENAT(name) \
    int name(int dirfd, const char *path, int flags, ...) { \
        va_list ap; va_start(ap, flags); mode_t mode = mode_arg(flags, ap); va_end(ap); \
        NEXT(name, int (*)(int, const char *, int, ...)); \
        TRANSLATE(path, -1); \
        return real_##name(dirfd, path_real, flags, mode); \
    }
OPENAT(openat) OPENAT(openat64)

#define OPENAT_2(name) \
    int name(int dirfd, const char *path, int flags) { \
        NEXT(name, int (*)(int, const char *, int)); \
        TRANSLATE(path, -1); \
        return real_##name(dirfd, path_real, flags); \
    }
OPENAT_2(__openat_2) OPENAT_2(__openat64_2)

/* name(path, arg) for any one extra argument type. */
#define PATH_ARG(ret, name, argtype, fail) \
    ret name(const char *path, argtype arg) { \
        NEXT(name, ret (*)(const char *, argtype)); \
        TRANSLATE(path, fail); \
        return real_##name(path_real, arg); \
    }
PATH_ARG(int, creat, mode_t, -1) PATH_ARG(int, creat64, mode_t, -1)
PATH_ARG(int, stat, struct stat *, -1) PATH_ARG(int, stat64, struct stat64 *, -1)
PATH_ARG(int, lstat, struct stat *, -1) PATH_ARG(int, lstat64, struct stat64 *, -1)
PATH_ARG(int, mkdir, mode_t, -1) PATH_ARG(int, access, int, -1)
PATH_ARG(int, statvfs, struct statvfs *, -1) PATH_ARG(int, statvfs64, struct statvfs64 *, -1)
PATH_ARG(int, statfs, struct statfs *, -1) PATH_ARG(int, statfs64, struct statfs64 *, -1)
PATH_ARG(int, truncate, off_t, -1) PATH_ARG(int, truncate64, off64_t, -1)

#define PATH_ONLY(ret, name, fail) \
    ret name(const char *path) { \
        NEXT(name, ret (*)(const char *)); \
        TRANSLATE(path, fail); \
        return real_##name(path_real); \
    }
PATH_ONLY(int, unlink, -1) PATH_ONLY(int, rmdir, -1) PATH_ONLY(int, chdir, -1)
PATH_ONLY(DIR *, opendir, NULL)

#define AT_STAT(name, st) \
    int name(int dirfd, const char *path, struct st *buf, int flags) { \
        NEXT(name, int (*)(int, const char *, struct st *, int)); \
        TRANSLATE(path, -1); \
        return real_##name(dirfd, path_real, buf, flags); \
    }
AT_STAT(fstatat, stat) AT_STAT(fstatat64, stat64)

int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf) {
    NEXT(statx, int (*)(int, const char *, int, unsigned, struct statx *));
    /* Rust's std probes statx with a null path, though the header says it
     * is never null: a volatile copy keeps the check. */
    const char *volatile probe = path;
    TRANSLATE(probe, -1);
    return real_statx(dirfd, probe_real, flags, mask, buf);
}

#define XSTAT(name, st) \
    int name(int ver, const char *path, struct st *buf) { \
        NEXT(name, int (*)(int, const char *, struct st *)); \
        TRANSLATE(path, -1); \
        return real_##name(ver, path_real, buf); \
    }
XSTAT(__xstat, stat) XSTAT(__xstat64, stat64) XSTAT(__lxstat, stat) XSTAT(__lxstat64, stat64)

#define FXSTATAT(name, st) \
    int name(int ver, int dirfd, const char *path, struct st *buf, int flags) { \
        NEXT(name, int (*)(int, int, const char *, struct st *, int)); \
        TRANSLATE(path, -1); \
        return real_##name(ver, dirfd, path_real, buf, flags); \
    }
FXSTATAT(__fxstatat, stat) FXSTATAT(__fxstatat64, stat64)

int unlinkat(int dirfd, const char *path, int flags) {
    NEXT(unlinkat, int (*)(int, const char *, int));
    TRANSLATE(path, -1);
    return real_unlinkat(dirfd, path_real, flags);
}

int mkdirat(int dirfd, const char *path, mode_t mode) {
    NEXT(mkdirat, int (*)(int, const char *, mode_t));
    TRANSLATE(path, -1);
    return real_mkdirat(dirfd, path_real, mode);
}

int mknod(const char *path, mode_t mode, dev_t dev) {
    NEXT(mknod, int (*)(const char *, mode_t, dev_t));
    TRANSLATE(path, -1);
    return real_mknod(path_real, mode, dev);
}

int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev) {
    NEXT(mknodat, int (*)(int, const char *, mode_t, dev_t));
    TRANSLATE(path, -1);
    return real_mknodat(dirfd, path_real, mode, dev);
}

int faccessat(int dirfd, const char *path, int how, int flags) {
    NEXT(faccessat, int (*)(int, const char *, int, int));
    TRANSLATE(path, -1);
    return real_faccessat(dirfd, path_real, how, flags);
}

int rename(const char *old, const char *new) {
    NEXT(rename, int (*)(const char *, const char *));
    TRANSLATE(old, -1);
    TRANSLATE(new, -1);
    return real_rename(old_real, new_real);
}

int renameat(int oldfd, const char *old, int newfd, const char *new) {
    NEXT(renameat, int (*)(int, const char *, int, const char *));
    TRANSLATE(old, -1);
    TRANSLATE(new, -1);
    return real_renameat(oldfd, old_real, newfd, new_real);
}

int renameat2(int oldfd, const char *old, int newfd, const char *new, unsigned flags) {
    NEXT(renameat2, int (*)(int, const char *, int, const char *, unsigned));
    TRANSLATE(old, -1);
    TRANSLATE(new, -1);
    return real_renameat2(oldfd, old_real, newfd, new_real, flags);
}

char *realpath(const char *path, char *resolved) {
    NEXT(realpath, char *(*)(const char *, char *));
    TRANSLATE(path, NULL);
    return real_realpath(path_real, resolved);
}
