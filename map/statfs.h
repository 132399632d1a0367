/*
 * statfs.h: an OSD's store capacity, as it reports it in its beacon
 * (mapmon-protocol(7), "osd beacon").
 *
 * Bytes, as Ceph's store_statfs_t: total is the store's size, used what it
 * has allocated (raw, every copy), avail what it can still allocate.  data,
 * omap and meta split used the way `osd df` shows it (DATA, OMAP, META);
 * a reporter that does not know the split sends used alone and data is
 * taken as used.  total >= used and total >= avail are required: a store
 * cannot use or offer more than its size (used + avail may be less than
 * total, the rest being reserved).
 *
 * JSON: {"total": B, "used": B, "avail": B, "data": B, "omap": B,
 * "meta": B}, the last three optional, every value an integer >= 0.
 */
#ifndef STATFS_H
#define STATFS_H

#include <stdint.h>

#include <jansson.h>

struct statfs_osd {
	uint64_t total;
	uint64_t used;
	uint64_t avail;
	uint64_t data;
	uint64_t omap;
	uint64_t meta;
};

/*
 * Parse o into *st.  Returns 0, or -1 with *cause (the caller frees) naming
 * the field that is missing, not an integer, negative, or inconsistent
 * ("statfs: used 12 > total 10"); *st is then undefined.  Unknown keys are
 * refused too, so that a misspelt field is not silently zero.
 */
int statfs_from_json(json_t *o, struct statfs_osd *st, char **cause);

/* The JSON object of *st (a new reference), every field present. */
json_t *statfs_to_json(const struct statfs_osd *st);

#endif /* STATFS_H */
