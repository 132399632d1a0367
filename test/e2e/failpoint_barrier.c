/*
 * failpoint_barrier.c: a failpoint linked into test/e2e/mapmond_failpoint
 * only, a mapmond built with -Wl,--wrap=raft_barrier (daemon/include.am):
 * every call the daemon makes to raft_barrier() comes here first.
 *
 * With MAPMON_FAILPOINT_BARRIERS=N in the environment, the first N barriers
 * the process appends fail, in turn the two ways C-Raft fails one: refused
 * at once (RAFT_NOSPACE and its message, as when most monitors have too
 * little log space prepared) and failed in their callback after the engine
 * took them (RAFT_IOERR, as when the append fails on disk).  Every other
 * barrier, and all of them without the variable, go to C-Raft unchanged.
 * test/e2e/mon_barrier.sh checks that a leader whose barriers fail this
 * way becomes ready once one commits (daemon/quorum.c,
 * quorum_barrier_send()).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <raft.h>

int __real_raft_barrier(struct raft *, struct raft_barrier *, raft_barrier_cb);
int __wrap_raft_barrier(struct raft *, struct raft_barrier *, raft_barrier_cb);

static long failpoint_left = -1;     /* barriers still to fail; -1: not read */
static long failpoint_made;	     /* failed so far */
static raft_barrier_cb failpoint_cb; /* the caller's, of the one in flight */

static void
failpoint_barrier_cb(struct raft_barrier *req, int status)
{
	raft_barrier_cb cb = failpoint_cb;

	(void)status;
	failpoint_cb = NULL;
	cb(req, RAFT_IOERR);
}

int
__wrap_raft_barrier(struct raft *r, struct raft_barrier *req,
    raft_barrier_cb cb)
{
	const char *s;
	int rc;

	if (failpoint_left == -1) {
		s = getenv("MAPMON_FAILPOINT_BARRIERS");
		failpoint_left = s != NULL ? strtol(s, NULL, 10) : 0;
		if (failpoint_left < 0)
			failpoint_left = 0;
	}
	/* One failed in its callback at a time: its cb is kept here. */
	if (failpoint_left == 0 || failpoint_cb != NULL)
		return __real_raft_barrier(r, req, cb);
	failpoint_left--;
	if (failpoint_made++ % 2 == 0) {
		snprintf(r->errmsg, sizeof r->errmsg, "%s (failpoint)",
		    raft_strerror(RAFT_NOSPACE));
		return RAFT_NOSPACE;
	}
	failpoint_cb = cb;
	if ((rc = __real_raft_barrier(r, req, failpoint_barrier_cb)) != 0)
		failpoint_cb = NULL;
	return rc;
}
