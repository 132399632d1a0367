/* stamp.c: wall-clock stamps in microseconds. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/stamp.h"

int64_t
stamp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t
stamp_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

char *
stamp_format(int64_t us, char *buf, size_t len)
{
	time_t secs;
	struct tm tm;
	int64_t frac;

	if (us >= 0 && us < STAMP_RELATIVE_US) {
		snprintf(buf, len, "%lld.%06lld", (long long)(us / 1000000),
		    (long long)(us % 1000000));
		return buf;
	}
	secs = (time_t)(us / 1000000);
	frac = us % 1000000;
	if (frac < 0) {
		frac += 1000000;
		secs--;
	}
	if (gmtime_r(&secs, &tm) == NULL) {
		snprintf(buf, len, "invalid");
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ld+0000",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (long)frac);
	return buf;
}

char *
stamp_span_format(int64_t us, char *buf, size_t len)
{
	static const struct {
		int64_t per; /* units of the previous one */
		const char *unit;
		int64_t below; /* the next unit takes over here */
	} steps[] = {
		{ 60, "m", 120 },
		{ 60, "h", 48 },
		{ 24, "d", 14 },
		{ 7, "w", 12 },
	};
	int64_t sec, n, day;
	size_t i;

	if (us < 0)
		us = 0;
	if (us < 2000000) {
		snprintf(buf, len, "%gs", (double)(float)((double)us / 1e6));
		return buf;
	}
	sec = us / 1000000;
	if (sec < 120) {
		snprintf(buf, len, "%llds", (long long)sec);
		return buf;
	}
	n = sec;
	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		n /= steps[i].per;
		if (n < steps[i].below) {
			snprintf(buf, len, "%lld%s", (long long)n,
			    steps[i].unit);
			return buf;
		}
	}
	day = sec / 86400;
	if (day / 30 < 24)
		snprintf(buf, len, "%lldM", (long long)(day / 30));
	else
		snprintf(buf, len, "%lldy", (long long)(day / 365));
	return buf;
}

int
stamp_span_parse(const char *s, int64_t *secs, char *why, size_t len)
{
	static const struct {
		const char *unit;
		int64_t secs;
	} units[] = {
		{ "s", 1 },
		{ "sec", 1 },
		{ "second", 1 },
		{ "seconds", 1 },
		{ "m", 60 },
		{ "min", 60 },
		{ "minute", 60 },
		{ "minutes", 60 },
		{ "h", 3600 },
		{ "hr", 3600 },
		{ "hour", 3600 },
		{ "hours", 3600 },
		{ "d", 86400 },
		{ "day", 86400 },
		{ "days", 86400 },
		{ "w", 604800 },
		{ "wk", 604800 },
		{ "week", 604800 },
		{ "weeks", 604800 },
		{ "mo", 2592000 },
		{ "month", 2592000 },
		{ "months", 2592000 },
		{ "y", 31536000 },
		{ "yr", 31536000 },
		{ "year", 31536000 },
		{ "years", 31536000 },
	};
	const char *p = s, *u;
	int64_t total = 0, v;
	size_t i, n;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (*p < '0' || *p > '9') {
			snprintf(why, len, "expected digit");
			return -1;
		}
		for (v = 0; *p >= '0' && *p <= '9'; p++) {
			if (v > (INT64_MAX - 9) / 10) {
				snprintf(why, len, "value too large");
				return -1;
			}
			v = v * 10 + (*p - '0');
		}
		while (*p == ' ' || *p == '\t')
			p++;
		for (u = p;
		     (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'); p++)
			;
		n = (size_t)(p - u);
		if (n > 0) {
			for (i = 0; i < sizeof units / sizeof units[0]; i++)
				if (strlen(units[i].unit) == n &&
				    strncmp(units[i].unit, u, n) == 0)
					break;
			if (i == sizeof units / sizeof units[0]) {
				snprintf(why, len, "unrecognized unit '%.*s'",
				    (int)(n > 32 ? 32 : n), u);
				return -1;
			}
			if (v > INT64_MAX / units[i].secs) {
				snprintf(why, len, "value too large");
				return -1;
			}
			v *= units[i].secs;
		} else if (*p != '\0') {
			snprintf(why, len, "unexpected trailing '%.32s'", p);
			return -1;
		}
		if (v > INT64_MAX - total) {
			snprintf(why, len, "value too large");
			return -1;
		}
		total += v;
	}
	*secs = total;
	return 0;
}

/* The seconds form, "12.000500": 0, or -1 when s is not one. */
static int
stamp_parse_relative(const char *s, int64_t *us)
{
	int64_t secs = 0, frac = 0;
	const char *p;
	int n;

	for (p = s, n = 0; *p >= '0' && *p <= '9' && n < 9; p++, n++)
		secs = secs * 10 + (*p - '0');
	if (n == 0 || *p++ != '.')
		return -1;
	for (n = 0; *p >= '0' && *p <= '9' && n < 6; p++, n++)
		frac = frac * 10 + (*p - '0');
	if (n != 6 || *p != '\0' || secs * 1000000 + frac >= STAMP_RELATIVE_US)
		return -1;
	*us = secs * 1000000 + frac;
	return 0;
}

int
stamp_parse(const char *s, int64_t *us)
{
	struct tm tm;
	long frac = 0;
	int n = 0, fraclen;
	const char *p;

	if (stamp_parse_relative(s, us) == 0)
		return 0;
	memset(&tm, 0, sizeof tm);
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
	    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 ||
	    n != 19)
		return -1;
	p = s + n;
	if (*p == '.') {
		p++;
		for (fraclen = 0; *p >= '0' && *p <= '9' && fraclen < 6;
		    fraclen++, p++)
			frac = frac * 10 + (*p - '0');
		if (fraclen == 0)
			return -1;
		for (; fraclen < 6; fraclen++)
			frac *= 10;
	}
	if (strcmp(p, "Z") != 0 && strcmp(p, "+0000") != 0 && *p != '\0')
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
	    tm.tm_sec > 60)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*us = (int64_t)timegm(&tm) * 1000000 + frac;
	return 0;
}
