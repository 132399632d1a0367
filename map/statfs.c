/*
 * statfs.c: an OSD's store capacity from and to JSON (statfs.h).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "map/statfs.h"

static const struct {
	const char *name;
	size_t off;
	int required;
} statfs_fields[] = {
	{ "total", offsetof(struct statfs_osd, total), 1 },
	{ "used", offsetof(struct statfs_osd, used), 1 },
	{ "avail", offsetof(struct statfs_osd, avail), 1 },
	{ "data", offsetof(struct statfs_osd, data), 0 },
	{ "omap", offsetof(struct statfs_osd, omap), 0 },
	{ "meta", offsetof(struct statfs_osd, meta), 0 },
};

static void
statfs_set(struct statfs_osd *st, size_t i, uint64_t v)
{
	memcpy((char *)st + statfs_fields[i].off, &v, sizeof v);
}

static uint64_t
statfs_get(const struct statfs_osd *st, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)st + statfs_fields[i].off, sizeof v);
	return v;
}

int
statfs_from_json(json_t *o, struct statfs_osd *st, char **cause)
{
	const char *key;
	json_t *v;
	size_t i;
	int have_data = 0;

	if (!json_is_object(o)) {
		xasprintf(cause, "statfs is not a JSON object");
		return -1;
	}
	json_object_foreach(o, key, v) {
		for (i = 0; i < nitems(statfs_fields); i++)
			if (strcmp(key, statfs_fields[i].name) == 0)
				break;
		if (i == nitems(statfs_fields)) {
			xasprintf(cause,
			    "statfs: unknown field '%s' (expected "
			    "total, used, avail, data, omap, meta)",
			    key);
			return -1;
		}
	}
	memset(st, 0, sizeof *st);
	for (i = 0; i < nitems(statfs_fields); i++) {
		v = json_object_get(o, statfs_fields[i].name);
		if (v == NULL) {
			if (!statfs_fields[i].required)
				continue;
			xasprintf(cause, "statfs: field '%s' is missing",
			    statfs_fields[i].name);
			return -1;
		}
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			xasprintf(cause,
			    "statfs: field '%s' must be an "
			    "integer >= 0 (bytes)",
			    statfs_fields[i].name);
			return -1;
		}
		statfs_set(st, i, (uint64_t)json_integer_value(v));
		if (strcmp(statfs_fields[i].name, "data") == 0)
			have_data = 1;
	}
	if (st->used > st->total) {
		xasprintf(cause, "statfs: used %llu > total %llu",
		    (unsigned long long)st->used,
		    (unsigned long long)st->total);
		return -1;
	}
	if (st->avail > st->total) {
		xasprintf(cause, "statfs: avail %llu > total %llu",
		    (unsigned long long)st->avail,
		    (unsigned long long)st->total);
		return -1;
	}
	if (!have_data)
		st->data = st->used;
	if (st->data > st->used || st->omap > st->used || st->meta > st->used) {
		xasprintf(cause,
		    "statfs: data, omap and meta must each be "
		    "at most used (%llu)",
		    (unsigned long long)st->used);
		return -1;
	}
	return 0;
}

json_t *
statfs_to_json(const struct statfs_osd *st)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < nitems(statfs_fields); i++)
		json_object_set_new(o, statfs_fields[i].name,
		    json_integer((json_int_t)statfs_get(st, i)));
	return o;
}
