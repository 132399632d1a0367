/*
 * stamp.h: wall-clock stamps as int64 microseconds since the Unix epoch,
 * formatted the way Ceph prints utime_t ("2026-11-30T19:45:01.123456+0000").
 */
#ifndef STAMP_H
#define STAMP_H

#include <stddef.h>
#include <stdint.h>

#define STAMP_BUFSIZE 40

/* Now, from CLOCK_REALTIME. */
int64_t stamp_now(void);

/* Microseconds from CLOCK_MONOTONIC, for intervals and timers. */
int64_t stamp_mono(void);

/* Format us into buf (at least STAMP_BUFSIZE bytes); returns buf. */
char *stamp_format(int64_t us, char *buf, size_t len);

/*
 * Parse a stamp in the form stamp_format() writes (the "+0000" may also be
 * "Z"); returns 0, or -1 when s is not such a stamp.
 */
int stamp_parse(const char *s, int64_t *us);

#endif
