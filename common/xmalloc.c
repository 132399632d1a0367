/* xmalloc.c: allocation that never returns NULL. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mapmon.h"

/*
 * Out of memory: write a fixed line with write(2) (no allocation, no stdio)
 * and abort so the crash handler dumps the recent log.
 */
static mapmon_dead void
xmalloc_fail(const char *what, size_t size)
{
	char buf[128];
	int n;

	n = snprintf(buf, sizeof buf, "fatal: %s of %zu bytes failed\n", what,
	    size);
	if (n > 0)
		(void)!write(STDERR_FILENO, buf, (size_t)n);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p;

	if (size == 0)
		size = 1;
	if ((p = malloc(size)) == NULL)
		xmalloc_fail("malloc", size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if (n == 0 || size == 0)
		n = size = 1;
	if ((p = calloc(n, size)) == NULL)
		xmalloc_fail("calloc", n * size);
	return p;
}

void *
xrealloc(void *p, size_t size)
{
	return xreallocarray(p, 1, size);
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	void *q;

	if (n != 0 && size > SIZE_MAX / n)
		xmalloc_fail("reallocarray (overflow)", SIZE_MAX);
	if (n == 0 || size == 0)
		n = size = 1;
	if ((q = realloc(p, n * size)) == NULL)
		xmalloc_fail("realloc", n * size);
	return q;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t max)
{
	size_t len = strnlen(s, max);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = xvasprintf(ret, fmt, ap);
	va_end(ap);
	return n;
}

int
xvasprintf(char **ret, const char *fmt, va_list ap)
{
	int n;

	if ((n = vasprintf(ret, fmt, ap)) == -1)
		xmalloc_fail("vasprintf", 0);
	return n;
}
