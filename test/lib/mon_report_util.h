/*
 * mon_report_util.h: the test programs' PG reports of a whole cluster
 * (test/unit/test_mon.c, test/e2e/mon_scenario.c): every PG of every pool reported
 * by its primary, as the OSDs would after a peering round.
 */
#ifndef MON_REPORT_UTIL_H
#define MON_REPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "mon/mon.h"
#include "map/pg.h"

/*
 * Sets the counters of one reported PG (objects, bytes, ...); size is the
 * length of its up set.
 */
typedef void mon_report_util_fill_cb(struct pg_stat *st, int size, void *arg);

/*
 * Sends one OSD's report: batch[0..n) are PGs osd is the primary of.  The
 * batch is freed when this returns (mon_pg_report() copies it).
 */
typedef void mon_report_util_send_cb(int32_t osd, const struct pg_stat *batch,
    size_t n, void *arg);

/*
 * Every PG of every pool of mon's pgmap that maps to an up set under the
 * current osdmap: a copy of its pg_stat with up and acting that set, both
 * primaries its first OSD, the given state, reported_epoch the osdmap's
 * epoch and reported_seq one more; then fill() (may be NULL) sets its
 * counters.  The PGs are grouped by primary and send() is called once per
 * OSD that has any, in OSD order, after all are built.  Never fails.
 */
void mon_report_util_all(struct mon *mon, uint32_t state,
    mon_report_util_fill_cb *fill, mon_report_util_send_cb *send, void *arg);

#endif /* MON_REPORT_UTIL_H */
