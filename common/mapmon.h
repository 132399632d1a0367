/*
 * mapmon.h: what every part of mapmon shares.
 *
 * Conventions (read these first; every header follows them):
 *
 *  1. Functions that can fail return 0 on success and -1 on failure, or a
 *     pointer and NULL on failure.  A failing function that takes a
 *     `char **cause` stores there a one-line message, allocated with
 *     xasprintf(), that the caller owns and frees.  The message says what was
 *     wrong and names the thing (file, key, record) it was wrong about.
 *  2. "Not found" is never an error: lookups return it as their own result
 *     (for the store, STORE_NOTFOUND) and set no cause.
 *  3. Allocation failure is fatal: x*alloc() never return NULL.  Everything a
 *     client, a file or a disk can cause is an error return, never abort().
 *  4. Results meant for the wire are errno-style: 0 or a negative errno
 *     (-ENOENT, -EINVAL, ...), as Ceph's command replies are.
 *  5. A header says what each function does, its errors and who owns the
 *     memory it returns.  A file is named for its functions' prefix
 *     (log.c: log_*; store_lmdb.c: store_lmdb_*); the files of one module
 *     share the module's (mon/mon_*.c: mon_*; tools/bench/bench_*.c:
 *     bench_*); net/client.c is the monitor client, mclient_*; xmalloc.c
 *     keeps the x*alloc names, log.c fatal() and fatalx().
 */
#ifndef MAPMON_H
#define MAPMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef nitems
#define nitems(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define printflike(a, b) __attribute__((format(printf, a, b)))
#define mapmon_dead __attribute__((noreturn))
#define mapmon_unused __attribute__((unused))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Exit codes shared by the tools (sysexits.h values where one fits). */
#define MAPMON_EXIT_USAGE 64	/* EX_USAGE */
#define MAPMON_EXIT_SOFTWARE 70 /* EX_SOFTWARE */
#define MAPMON_EXIT_CONFIG 78	/* EX_CONFIG */

/* xmalloc.c: allocation that never returns NULL (it calls fatalx). */
void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xrealloc(void *, size_t);
void *xreallocarray(void *, size_t, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
int xasprintf(char **, const char *, ...) printflike(2, 3);
int xvasprintf(char **, const char *, va_list) printflike(2, 0);

#endif /* MAPMON_H */
