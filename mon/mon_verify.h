/*
 * mon_verify.h: offline check of a monitor's store (mapmon-store verify).
 */
#ifndef MON_VERIFY_H
#define MON_VERIFY_H

#include <stdint.h>

#include "store/store.h"

struct mon_verify_counts {
	uint64_t osdmaps, incrementals, pgincs, log_entries, pgs;
	uint64_t auth_entities;
	uint64_t capacities; /* "S" records */
	uint64_t problems;
	uint32_t osdmap_epoch;
	uint64_t pgmap_version;
};

/* Called once per problem with a one-line description naming the key. */
typedef void mon_verify_cb(void *arg, const char *problem);

/*
 * Check every record and invariant of the store s (opened, not running a
 * monitor).  Returns 0 when there is no problem, else -1 after reporting
 * each problem through cb.  The derived figures are checked separately by
 * loading the store (mon_open) and mon_check_derived().
 */
int mon_verify(struct store *s, mon_verify_cb *cb, void *arg,
    struct mon_verify_counts *counts);

#endif
