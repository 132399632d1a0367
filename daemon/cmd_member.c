/*
 * cmd_member.c: `mon add' and `mon rm' (mapmon(8)): the monmap change is
 * the core's (mon_monmap_add(), mon_monmap_rm()); the engine's membership
 * follows it one change at a time (daemon/quorum.c), so a monitor is
 * added only once the last change is done.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "daemon/cmd_priv.h"
#include "daemon/quorum.h"

void
cmd_mon_add(struct cmd_req *r, json_t *cmd)
{
	const char *name = cmd_get_str(cmd, "name");
	const char *addr = cmd_get_str(cmd, "addr");
	const struct monmap *mm = mon_monmap(r->ctx->mon);
	struct quorum *q = quorum_current();
	char *why = NULL;
	size_t i;

	for (i = 0; i < mm->nmons; i++)
		if (strcmp(mm->mons[i].name, name) == 0 ||
		    strcmp(mm->mons[i].addr, addr) == 0)
			break;
	/* Known already: the core answers as Ceph does (0 or EEXIST). */
	if (i == mm->nmons && q != NULL && quorum_changing(q, &why)) {
		cmd_replyf(r, -EBUSY, NULL,
		    "a monitor change is still in progress (%s): one at a "
		    "time, retry once it is done",
		    why);
		free(why);
		return;
	}
	mon_monmap_add(r->ctx->mon, name, addr, cmd_done, r);
}

void
cmd_mon_rm(struct cmd_req *r, json_t *cmd)
{
	const char *name = cmd_get_str(cmd, "name");
	struct quorum *q = quorum_current();
	char *why = NULL;

	/*
	 * A voter goes only once the last change is done: removing one while
	 * another monitor is not voting yet could leave no majority.  A
	 * monitor added and not voting (never started) may go at once.
	 */
	if (q != NULL && quorum_voter(q, name) && quorum_changing(q, &why)) {
		cmd_replyf(r, -EBUSY, NULL,
		    "a monitor change is still in progress (%s): one at a "
		    "time, retry once it is done",
		    why);
		free(why);
		return;
	}
	mon_monmap_rm(r->ctx->mon, name, cmd_done, r);
}
