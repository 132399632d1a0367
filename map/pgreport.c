/*
 * pgreport.c: the two forms of a PG report, parsed into PG stats (see
 * pgreport.h).  No monitor here, so the benchmark and a fuzz target can
 * link it alone.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "map/pg.h"
#include "map/pgreport.h"

/* The smallest record of any version. */
#define PGREPORT_MIN_RECORD PG_STAT_MIN_ENCODED_SIZE

int
pgreport_decode(const uint8_t *p, size_t len, int32_t *osd,
    struct pg_stat **pgs, size_t *n, char **cause)
{
	struct enc_reader r;
	struct pg_stat *out;
	uint32_t count, id, i;
	char *why = NULL;

	*pgs = NULL;
	*n = 0;
	enc_reader_init(&r, p, len);
	if (enc_get_u16(&r) != 1) {
		xasprintf(cause, "binary pg report: not opcode 1");
		return -1;
	}
	id = enc_get_u32(&r);
	count = enc_get_u32(&r);
	if (r.failed) {
		xasprintf(cause, "binary pg report: header truncated (%zu "
		    "bytes, 10 needed)", len);
		return -1;
	}
	if (id > INT32_MAX) {
		xasprintf(cause, "binary pg report: osd id %u out of range",
		    id);
		return -1;
	}
	/* Never trust count for the allocation: the bytes must be there. */
	if (count > r.left / PGREPORT_MIN_RECORD) {
		xasprintf(cause, "binary pg report: %u records cannot fit in "
		    "%zu bytes", count, r.left);
		return -1;
	}
	out = xreallocarray(NULL, count ? count : 1, sizeof *out);
	for (i = 0; i < count; i++) {
		if (pg_stat_decode(&r, &out[i], &why) == -1) {
			xasprintf(cause, "binary pg report: record %u: %s", i,
			    why ? why : "corrupt");
			free(why);
			free(out);
			return -1;
		}
	}
	if (r.left != 0) {
		xasprintf(cause, "binary pg report: %zu bytes after the %u "
		    "records", r.left, count);
		free(out);
		return -1;
	}
	*osd = (int32_t)id;
	*pgs = out;
	*n = count;
	return 0;
}

int
pgreport_from_json(json_t *a, struct pg_stat **pgs, size_t *n,
    char **cause)
{
	struct pg_stat *out;
	json_t *v;
	char *why = NULL;
	size_t i;

	*pgs = NULL;
	*n = 0;
	if (!json_is_array(a)) {
		xasprintf(cause, "pg report: argument 'pgs' must be an array "
		    "of PG stats");
		return -1;
	}
	out = xreallocarray(NULL, json_array_size(a) ? json_array_size(a) :
	    1, sizeof *out);
	json_array_foreach(a, i, v) {
		if (!json_is_object(v)) {
			xasprintf(cause, "pg report: pgs[%zu] must be an "
			    "object", i);
			free(out);
			return -1;
		}
		if (pg_stat_from_json(v, &out[i], &why) == -1) {
			xasprintf(cause, "pg report: pgs[%zu]: %s", i,
			    why ? why : "bad PG stat");
			free(why);
			free(out);
			return -1;
		}
	}
	*pgs = out;
	*n = json_array_size(a);
	return 0;
}
