/*
 * cmd_pgreport.c: `pg report`, the one hot message, in its two forms.
 *
 * JSON:   {"prefix":"pg report","osd":N,"pgs":[PGSTAT, ...]}
 * binary: a BINARY_REQUEST frame whose payload is
 *
 *	u16 opcode = 1 (FRAME_BINARY_PG_REPORT)
 *	u32 osd id
 *	u32 count
 *	count records of pg_stat_encode() (map/pg.h), back to back
 *
 * all big-endian, parsed by pgreport.c.  The binary form is kept because it
 * is measured faster (test/unit/bench_pgreport.c; figures in
 * mapmon-protocol(7)).  Both are
 * answered after the commit holding the stats, with data {"accepted",
 * "unknown", "old"}.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "daemon/cmd_priv.h"
#include "map/pg.h"
#include "map/pgreport.h"
#include "net/server.h"

/*
 * The pending proposal full and not sealable yet (mon_reports_full()): no
 * more binary reports are read until a proposal is sealed (cmd_room()).
 * They wait in the sockets, and the OSDs' own writes then wait: nothing is
 * refused.  (The reply to r may have freed it: ctx is taken first.)
 */
static void
cmd_pgreport_backpressure(struct cmd_ctx *ctx)
{
	if (ctx->server != NULL && mon_reports_full(ctx->mon))
		server_hold_binary(ctx->server, 1);
}

void
cmd_pgreport_json(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	struct pg_stat *pgs;
	char *cause = NULL;
	size_t n;

	if (pgreport_from_json(json_object_get(cmd, "pgs"), &pgs, &n,
	    &cause) == -1) {
		cmd_reply(r, -EINVAL, cause, NULL);
		free(cause);
		return;
	}
	mon_pg_report(ctx->mon, (int32_t)cmd_get_int(cmd, "osd", 0), pgs, n,
	    cmd_done, r);
	free(pgs);
	cmd_pgreport_backpressure(ctx);
}

void
cmd_pgreport_binary(struct cmd_req *r, const uint8_t *p, size_t len)
{
	struct cmd_ctx *ctx = r->ctx;
	struct pg_stat *pgs;
	char *cause = NULL;
	int32_t osd;
	size_t n;

	if (pgreport_decode(p, len, &osd, &pgs, &n, &cause) == -1) {
		cmd_reply(r, -EINVAL, cause, NULL);
		free(cause);
		return;
	}
	mon_pg_report(ctx->mon, osd, pgs, n, cmd_done, r);
	free(pgs);
	cmd_pgreport_backpressure(ctx);
}
