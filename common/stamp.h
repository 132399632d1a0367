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

/*
 * Stamps within the first ten years after the epoch (0 above all, "never")
 * are printed as Ceph prints such a utime_t: seconds and microseconds,
 * "0.000000", never as a date in 1970.
 */
#define STAMP_RELATIVE_US (INT64_C(10) * 365 * 24 * 3600 * 1000000)

/* Format us into buf (at least STAMP_BUFSIZE bytes); returns buf. */
char *stamp_format(int64_t us, char *buf, size_t len);

/*
 * A span of us microseconds as Ceph's timespan_str() writes one, the
 * coarsest unit that keeps it at least 2 (or 120 of the next finer):
 * "0.5s", "61s", "5m", "3h", "2d", "3w", "4M", "1y"; a negative span is
 * "0s".  buf should hold 16 bytes; returns buf.
 */
char *stamp_span_format(int64_t us, char *buf, size_t len);

/*
 * Parse a span as Ceph's parse_timespan() does: numbers each followed by a
 * unit (s, sec, second(s), m, min, minute(s), h, hr, hour(s), d, day(s),
 * w, wk, week(s), mo, month(s), y, yr, year(s)), summed; a last number
 * without one is seconds ("90", "1h30m", "2 days").  Returns 0 with *secs,
 * or -1 with why (at least 64 bytes) saying what was wrong.
 */
int stamp_span_parse(const char *s, int64_t *secs, char *why, size_t len);

/*
 * Parse a stamp in either form stamp_format() writes (the "+0000" may also
 * be "Z"; the seconds form "12.000500" only below STAMP_RELATIVE_US);
 * returns 0, or -1 when s is not such a stamp.
 */
int stamp_parse(const char *s, int64_t *us);

#endif
