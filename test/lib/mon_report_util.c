/* mon_report_util.c: a whole cluster's PG reports (mon_report_util.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "mon/mon.h"
#include "map/osdmap.h"
#include "map/pgmap.h"
#include "map/placement.h"
#include "test/lib/mon_report_util.h"

void
mon_report_util_all(struct mon *mon, uint32_t state,
    mon_report_util_fill_cb *fill, mon_report_util_send_cb *send, void *arg)
{
	const struct pgmap *pm = mon_pgmap(mon);
	const struct osdmap *om = mon_osdmap(mon);
	struct osdmap_place *pl = osdmap_place_new(om);
	struct pg_stat **batch, *st;
	size_t *n, i;
	uint32_t s, max_osd = om->max_osd;
	int32_t up[PLACEMENT_MAX_SIZE], osd;
	int len;

	batch = xcalloc(max_osd + 1, sizeof *batch);
	n = xcalloc(max_osd + 1, sizeof *n);
	for (i = 0; i < pm->npools; i++) {
		const struct osdmap_pool *op = osdmap_pool(om, pm->pools[i].id);

		for (s = 0; s < pm->pools[i].pg_num; s++) {
			len = osdmap_place_pg(pl, op->id, op->crush_rule, s,
			    op->size, up);
			if (len == 0)
				continue;
			osd = up[0];
			/* Power-of-two capacities: a sanitizer's realloc copies. */
			if ((n[osd] & (n[osd] - 1)) == 0)
				batch[osd] = xreallocarray(batch[osd],
				    n[osd] ? n[osd] * 2 : 1, sizeof **batch);
			st = &batch[osd][n[osd]++];
			*st = pm->pools[i].pgs[s];
			memcpy(st->up, up, sizeof st->up);
			memcpy(st->acting, up, sizeof st->acting);
			st->up_len = st->acting_len = (uint8_t)len;
			st->up_primary = st->acting_primary = up[0];
			st->state = state;
			st->reported_epoch = om->epoch;
			st->reported_seq++;
			if (fill != NULL)
				fill(st, len, arg);
		}
	}
	osdmap_place_free(pl);
	/* send() may run the loop: om is not read again. */
	for (osd = 0; (uint32_t)osd < max_osd; osd++) {
		if (n[osd] == 0)
			continue;
		send(osd, batch[osd], n[osd], arg);
		free(batch[osd]);
	}
	free(batch);
	free(n);
}
