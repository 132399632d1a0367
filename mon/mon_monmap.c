/*
 * mon_monmap.c: `mon add' and `mon rm' (mon.h): a new monmap, committed
 * like any change (with several monitors, in a replicated entry), with
 * Ceph's words, errors and idempotency.  The engine's membership follows
 * the committed monmap (mapmond(8), QUORUM, Membership).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"

/* A monitor change staged or on its way, not yet applied. */
static int
mon_monmap_changing(const struct mon *m)
{
	return (m->pending != NULL && m->pending->has_monmap) ||
	    (m->inflight != NULL && m->inflight->has_monmap) ||
	    (m->applying != NULL && m->applying->has_monmap);
}

/* Whether addr is HOST:PORT with a port a monitor (and its raft) can use. */
static int
mon_monmap_addr_ok(const char *addr)
{
	const char *colon = strrchr(addr, ':');
	char *end;
	unsigned long port;

	if (colon == NULL || colon == addr || colon[1] == '\0')
		return 0;
	port = strtoul(colon + 1, &end, 10);
	return *end == '\0' && port > 0 && port < 65535;
}

static int
mon_monmap_find(const struct monmap *mm, const char *name, const char *addr)
{
	size_t i;

	for (i = 0; i < mm->nmons; i++)
		if ((name != NULL && strcmp(mm->mons[i].name, name) == 0) ||
		    (addr != NULL && strcmp(mm->mons[i].addr, addr) == 0))
			return (int)i;
	return -1;
}

/* Stage mm as the next monmap and answer done with status once committed. */
static void
mon_monmap_stage(struct mon *m, struct monmap *mm, mon_done_cb *done, void *arg,
    const char *status)
{
	mm->epoch = m->monmap.epoch + 1;
	mm->modified = stamp_now();
	mon_stage_monmap(m, mm);
	mon_stage_done(m, done, arg, status, NULL);
}

void
mon_monmap_add(struct mon *m, const char *name, const char *addr,
    mon_done_cb *done, void *arg)
{
	const struct monmap *cur = &m->monmap;
	struct monmap mm;
	char *status;
	int i;

	if (*name == '\0' || strlen(name) >= MONMAP_NAME_MAX ||
	    strchr(name, '=') != NULL || strchr(name, ',') != NULL) {
		xasprintf(&status, "invalid monitor name '%s'", name);
		goto inval;
	}
	if ((i = mon_monmap_find(cur, name, NULL)) >= 0) {
		if (strcmp(cur->mons[i].addr, addr) == 0) {
			xasprintf(&status, "mon.%s at %s already exists", name,
			    addr);
			done(arg, 0, status, NULL);
			free(status);
			return;
		}
		xasprintf(&status, "mon.%s already exists at address %s", name,
		    cur->mons[i].addr);
		done(arg, -EEXIST, status, NULL);
		free(status);
		return;
	}
	if ((i = mon_monmap_find(cur, NULL, addr)) >= 0) {
		xasprintf(&status, "mon.%s already exists at address %s",
		    cur->mons[i].name, addr);
		done(arg, -EEXIST, status, NULL);
		free(status);
		return;
	}
	if (strlen(addr) >= MONMAP_ADDR_MAX || !mon_monmap_addr_ok(addr)) {
		xasprintf(&status,
		    "addr %s does not parse (HOST:PORT, a port below 65535: "
		    "the raft port is PORT+1)",
		    addr);
		goto inval;
	}
	if (m->quorum == NULL) {
		xasprintf(&status,
		    "this monitor runs alone: a quorum is made with [mon] "
		    "mon_host (mapmond(8), QUORUM)");
		goto inval;
	}
	if (cur->nmons == MONMAP_MAX_MONS) {
		xasprintf(&status, "the monmap holds %d monitors, the most",
		    MONMAP_MAX_MONS);
		goto inval;
	}
	if (mon_monmap_changing(m)) {
		done(arg, -EBUSY,
		    "another monitor change is being committed: one at a "
		    "time (retry)",
		    NULL);
		return;
	}
	mm = *cur;
	snprintf(mm.mons[mm.nmons].name, sizeof mm.mons[mm.nmons].name, "%s",
	    name);
	snprintf(mm.mons[mm.nmons].addr, sizeof mm.mons[mm.nmons].addr, "%s",
	    addr);
	mm.nmons++;
	xasprintf(&status, "adding mon.%s at %s", name, addr);
	mon_monmap_stage(m, &mm, done, arg, status);
	free(status);
	return;
inval:
	done(arg, -EINVAL, status, NULL);
	free(status);
}

void
mon_monmap_rm(struct mon *m, const char *name, mon_done_cb *done, void *arg)
{
	const struct monmap *cur = &m->monmap;
	struct monmap mm;
	char *status;
	int i;

	if ((i = mon_monmap_find(cur, name, NULL)) < 0) {
		xasprintf(&status,
		    "mon.%s does not exist or has already been removed", name);
		done(arg, 0, status, NULL);
		free(status);
		return;
	}
	if (cur->nmons == 1 || m->quorum == NULL) {
		xasprintf(&status, "error: refusing removal of last monitor %s",
		    name);
		done(arg, -EINVAL, status, NULL);
		free(status);
		return;
	}
	if (mon_monmap_changing(m)) {
		done(arg, -EBUSY,
		    "another monitor change is being committed: one at a "
		    "time (retry)",
		    NULL);
		return;
	}
	mm = *cur;
	memmove(&mm.mons[i], &mm.mons[i + 1],
	    (mm.nmons - (size_t)i - 1) * sizeof mm.mons[0]);
	mm.nmons--;
	memset(&mm.mons[mm.nmons], 0, sizeof mm.mons[0]);
	xasprintf(&status, "removing mon.%s at %s, there will be %zu monitors",
	    name, cur->mons[i].addr, mm.nmons);
	mon_monmap_stage(m, &mm, done, arg, status);
	free(status);
}
