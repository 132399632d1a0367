/* bytes.c: byte counts in 1024-based units. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "common/bytes.h"
#include "common/mapmon.h"

char *
bytes_format(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB",
	    "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < nitems(units)) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else if (v < 10)
		snprintf(buf, len, "%.1f %s", v, units[u]);
	else
		snprintf(buf, len, "%.0f %s", v, units[u]);
	return buf;
}
